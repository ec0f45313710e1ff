"""Phases 2 and 3: URL election, then exact-content election over the URL winners.

Phase 2 is one SQL window (``sql/elect_url.sql``). Phase 3 first links URL groups that share
a content hash into components (a URL group can hold several texts: re-crawls), then elects
one winner per component with the same SQL window (``sql/elect_exact.sql``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..election import order_by_sql
from ..near.cluster import UnionFind
from ..store import run_script, sql


def exact_components(linked_winners: Iterable[Iterable[int]]) -> dict[int, int]:
    """Component id of each URL winner that shares a text with another (pure).

    ``linked_winners`` lists, for each shared content hash, the URL winners holding it.
    """
    uf = UnionFind()
    for winners in linked_winners:
        first, *rest = winners
        uf.add(first)
        for w in rest:
            uf.add(w)
            uf.union(first, w)
    return {w: min(group) for group in uf.groups() for w in group}


def run_url(ctx: Any) -> dict[str, int]:
    """Phase 2: ``ROW_NUMBER() OVER (PARTITION BY url_key ORDER BY <election>)``."""
    run_script(ctx.conn, "elect_url", election=order_by_sql(ctx.config.election))
    (losers,) = ctx.conn.execute(
        "SELECT count(*) FROM temp.run_url_election WHERE url_winner <> id"
    ).fetchone()
    return {"url_duplicates": losers}


def run_exact(ctx: Any) -> dict[str, int]:
    """Phase 3: components of URL groups sharing a text, one elected winner each."""
    conn = ctx.conn
    conn.execute("DELETE FROM temp.run_exact_component")  # a grown region runs it again
    rows = conn.execute(sql("exact_links"), {"min_words": ctx.config.min_words})
    components = exact_components([int(w) for w in ws.split(",")] for _h, ws in rows)
    conn.executemany(
        "INSERT INTO temp.run_exact_component (id, component) VALUES (?, ?)",
        components.items(),
    )
    run_script(conn, "elect_exact", election=order_by_sql(ctx.config.election))
    (losers,) = conn.execute(
        "SELECT count(*) FROM temp.run_exact_election WHERE exact_winner <> id"
    ).fetchone()
    return {"exact_duplicates": losers}
