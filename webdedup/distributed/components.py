"""Connected components of an edge dataframe: alternating large-star and small-star.

The algorithm of Kiveris et al. ("Connected Components in MapReduce and Beyond", 2014) that
Daft's MinHash deduplication tutorial uses: every round is a few joins and group-bys, so it runs
wherever the dataframe does, and it ends in O(log n) rounds. Each component ends as a star
around its smallest node, which labels it (the same label ``UnionFind`` users here take: the
smallest member).

Needs the ``daft`` extra (imported by the caller).
"""

from __future__ import annotations

from typing import Any

#: A guard against a loop that does not converge (the algorithm needs O(log n) rounds).
MAX_ROUNDS = 200


def connected_components(edges: Any) -> Any:
    """``(node, component)`` for every node of ``edges`` (columns ``u``, ``v``: int64).

    The component is the smallest node of it. Nodes without edges are not in the result.
    """
    import daft
    from daft import col

    current = _normalized(edges).collect()
    for _ in range(MAX_ROUNDS):
        nxt = _small_star(_large_star(current)).collect()
        if _same(current, nxt):
            break
        current = nxt
    else:  # pragma: no cover - would need a graph of 2**200 nodes
        raise RuntimeError("connected components did not converge")
    # a star: every edge is (node, root) with root < node
    members = current.select(col("u").alias("node"), col("v").alias("component"))
    roots = current.select(col("v").alias("node"), col("v").alias("component"))
    out = members.concat(roots).distinct()
    return out if out is not None else daft.from_pydict({"node": [], "component": []})


def _normalized(edges: Any) -> Any:
    """Each undirected edge once, as (larger, smaller); self-loops dropped."""
    from daft import col
    from daft.functions import when

    return (
        edges.where(col("u") != col("v"))
        .select(
            when(col("u") > col("v"), col("u")).otherwise(col("v")).alias("u"),
            when(col("u") > col("v"), col("v")).otherwise(col("u")).alias("v"),
        )
        .distinct()
    )


def _large_star(edges: Any) -> Any:
    """Connect every strictly larger neighbour of a node to the node's smallest neighbour
    (itself included)."""
    from daft import col

    both = edges.select(col("u"), col("v")).concat(
        edges.select(col("v").alias("u"), col("u").alias("v"))
    )
    smallest = both.groupby("u").agg(col("v").min().alias("m"))
    joined = both.join(smallest, on="u")
    out = joined.where(col("v") > col("u")).select(
        col("v").alias("u"), _least(col("m"), col("u")).alias("v")
    )
    return _normalized(out)


def _small_star(edges: Any) -> Any:
    """Connect a node and its smaller neighbours to the smallest of them."""
    from daft import col

    # edges are (larger u, smaller v): a node's smaller neighbours are its v's
    smallest = edges.groupby("u").agg(col("v").min().alias("m"))
    joined = edges.join(smallest, on="u")
    neighbours = joined.select(col("v").alias("u"), col("m").alias("v"))
    own = smallest.select(col("u"), col("m").alias("v"))
    return _normalized(neighbours.concat(own))


def _least(a: Any, b: Any) -> Any:
    from daft.functions import when

    return when(a < b, a).otherwise(b)


def _same(a: Any, b: Any) -> bool:
    """True when two normalized edge sets are equal (one job: rows on one side only)."""
    from daft import col, lit

    left = a.select("u", "v", lit(True).alias("_a"))
    right = b.select("u", "v", lit(True).alias("_b"))
    only = left.join(right, on=["u", "v"], how="outer").where(
        col("_a").is_null() | col("_b").is_null()
    )
    return int(only.count_rows()) == 0
