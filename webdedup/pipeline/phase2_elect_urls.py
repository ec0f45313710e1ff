"""Phase 2, URL election: one winner per canonical URL.

``ROW_NUMBER() OVER (PARTITION BY url_key ORDER BY <election>)`` in ``sql/elect_url.sql``,
over the pages of the keys that several pages share (found in ``sql/lookup_keys.sql``'s
tables, in key order); pages without a canonical URL have a ``url_key`` of their own and win
alone.
"""

from __future__ import annotations

from ..store import run_script
from ..store.verdicts import Verdicts
from .context import ElectionResult, RunContext, election_sql


def run(ctx: RunContext, verdicts: Verdicts) -> ElectionResult:
    """Elect the URL winners into ``temp.run_url_election`` (the pages reviewers chose as
    canonical first: ``verdicts``)."""
    run_script(ctx.conn, "lookup_keys")  # the keys in order (phase 3 and 5 read them too)
    run_script(ctx.conn, "elect_url", election=election_sql(ctx.config, verdicts))
    (losers,) = ctx.conn.execute(
        "SELECT count(*) FROM temp.run_url_election WHERE url_winner <> id"
    ).fetchone()
    return ElectionResult(duplicates=int(losers))
