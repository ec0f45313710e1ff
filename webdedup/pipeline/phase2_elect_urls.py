"""Phase 2, URL election: one winner per canonical URL.

``ROW_NUMBER() OVER (PARTITION BY url_key ORDER BY <election>)`` in ``sql/elect_url.sql``;
pages without a canonical URL have a ``url_key`` of their own and win alone.
"""

from __future__ import annotations

from ..store import run_script
from .context import ElectionResult, RunContext


def run(ctx: RunContext) -> ElectionResult:
    """Elect the URL winners into ``temp.run_url_election``."""
    run_script(ctx.conn, "elect_url", election=ctx.election_sql())
    (losers,) = ctx.conn.execute(
        "SELECT count(*) FROM temp.run_url_election WHERE url_winner <> id"
    ).fetchone()
    return ElectionResult(duplicates=int(losers))
