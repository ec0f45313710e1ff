"""Phase 3, exact-content election over the URL winners.

URL groups that share a content hash are linked into components (a URL group can hold
several texts: re-crawls; links through a losing capture count only for texts of at least
``min_words``, ``sql/exact_links.sql``), then the same SQL window as phase 2 elects one
winner per component (``sql/elect_exact.sql``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..algorithms.cluster import UnionFind
from ..store import run_script, sql
from ..store.verdicts import Verdicts
from .context import ElectionResult, RunContext, election_sql


def exact_components(linked_winners: Iterable[Iterable[int]]) -> dict[int, int]:
    """Component id (its smallest member) of each URL winner that shares a text (pure).

    ``linked_winners`` lists, for each shared content hash, the URL winners holding it.
    Linear in the number of winners.

    >>> exact_components([[3, 5], [5, 9], [4, 8]])
    {3: 3, 5: 3, 9: 3, 4: 4, 8: 4}
    """
    uf = UnionFind()
    for winners in linked_winners:
        first, *rest = winners
        uf.add(first)
        for w in rest:
            uf.add(w)
            uf.union(first, w)
    out: dict[int, int] = {}
    for group in uf.groups():
        members = [int(w) for w in group]  # type: ignore[call-overload]
        smallest = min(members)
        for w in members:
            out[w] = smallest
    return out


def run(ctx: RunContext, verdicts: Verdicts) -> ElectionResult:
    """Elect the exact winners into ``temp.run_exact_election`` (the pages reviewers chose
    as canonical first: ``verdicts``)."""
    conn = ctx.conn
    conn.execute("DELETE FROM temp.run_exact_component")  # a grown region runs it again
    rows = conn.execute(sql("exact_links"), {"min_words": ctx.config.min_words})
    components = exact_components([int(w) for w in ws.split(",")] for _h, ws in rows)
    conn.executemany(
        "INSERT INTO temp.run_exact_component (id, component) VALUES (?, ?)",
        components.items(),
    )
    run_script(conn, "elect_exact", election=election_sql(ctx.config, verdicts))
    (losers,) = conn.execute(
        "SELECT count(*) FROM temp.run_exact_election WHERE exact_winner <> id"
    ).fetchone()
    return ElectionResult(duplicates=int(losers))
