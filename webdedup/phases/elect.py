"""Phases 2 and 3: URL election, then exact-content election over the URL winners.

Both are one SQL window function each (``sql/elect_url.sql``, ``sql/elect_exact.sql``) with
the configured election order.
"""

from __future__ import annotations

from typing import Any

from ..election import order_by_sql
from ..store import run_script


def run_url(ctx: Any) -> dict[str, int]:
    """Phase 2: ``ROW_NUMBER() OVER (PARTITION BY url_key ORDER BY <election>)``."""
    run_script(ctx.conn, "elect_url", election=order_by_sql(ctx.config.election))
    (losers,) = ctx.conn.execute(
        "SELECT count(*) FROM temp.run_url_election WHERE url_winner <> id"
    ).fetchone()
    return {"url_duplicates": losers}


def run_exact(ctx: Any) -> dict[str, int]:
    """Phase 3: the same window over URL winners, partitioned by ``content_hash``."""
    run_script(ctx.conn, "elect_exact", election=order_by_sql(ctx.config.election))
    (losers,) = ctx.conn.execute(
        "SELECT count(*) FROM temp.run_exact_election WHERE exact_winner <> id"
    ).fetchone()
    return {"exact_duplicates": losers}
