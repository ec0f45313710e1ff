"""Grouping verified near-duplicate edges: union-find (transitive) and star clustering.

Transitive closure chains: A~B and B~C put A and C together even when they are unrelated.
:func:`star_clusters` avoids that: every member of a group is directly similar to its center.

>>> uf = UnionFind()
>>> uf.union(1, 2), uf.union(2, 3), uf.connected(1, 3)
(True, True, True)
>>> star_clusters([1, 2, 3], [(1, 2, 0.9), (2, 3, 0.9)])
{1: (1, 1.0), 2: (1, 0.9), 3: (3, 1.0)}
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterable, Sequence

__all__ = ["UnionFind", "star_clusters"]


class UnionFind:
    """Disjoint sets over hashable items, with path compression and union by size.

    Items are added on first use.

    >>> uf = UnionFind([1, 2, 3])
    >>> uf.union(1, 3)
    True
    >>> sorted(sorted(g) for g in uf.groups())
    [[1, 3], [2]]
    """

    def __init__(self, items: Iterable[Hashable] = ()) -> None:
        self._parent: dict[Hashable, Hashable] = {}
        self._size: dict[Hashable, int] = {}
        for item in items:
            self.add(item)

    def __len__(self) -> int:
        return len(self._parent)

    def __contains__(self, item: object) -> bool:
        return item in self._parent

    def add(self, item: Hashable) -> None:
        """Add ``item`` as a singleton set (no-op if already present)."""
        if item not in self._parent:
            self._parent[item] = item
            self._size[item] = 1

    def find(self, item: Hashable) -> Hashable:
        """Return the representative of ``item``'s set (adding ``item`` if new)."""
        self.add(item)
        root = item
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[item] != root:  # path compression
            self._parent[item], item = root, self._parent[item]
        return root

    def union(self, a: Hashable, b: Hashable) -> bool:
        """Merge the sets of ``a`` and ``b``; return False if they were already one set."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self._size[ra] < self._size[rb]:
            ra, rb = rb, ra
        self._parent[rb] = ra
        self._size[ra] += self._size.pop(rb)
        return True

    def connected(self, a: Hashable, b: Hashable) -> bool:
        """True if ``a`` and ``b`` are in the same set."""
        return self.find(a) == self.find(b)

    def set_size(self, item: Hashable) -> int:
        """Number of items in ``item``'s set."""
        return self._size[self.find(item)]

    def groups(self) -> list[list[Hashable]]:
        """All sets, each as a list of items (in insertion order)."""
        out: dict[Hashable, list[Hashable]] = {}
        for item in list(self._parent):
            out.setdefault(self.find(item), []).append(item)
        return list(out.values())


def star_clusters(
    order: Sequence[int], edges: Iterable[tuple[int, int, float]]
) -> dict[int, tuple[int, float]]:
    """Assign every node to a center, never through a chain (anti-chaining rule).

    ``order`` lists all node ids in election order, best first. Walking it, a node not yet
    assigned becomes a center (mapped to ``(itself, 1.0)``) and each of its still unassigned
    neighbours joins it with the score of their edge. Every member therefore has a direct edge to
    its center, and a center comes first in ``order`` among its members. An edge given more than
    once keeps its highest score; self-loops are ignored.

    Args:
        order: node ids, each once, best first.
        edges: ``(a, b, score)`` verified similar pairs, both ends in ``order``.

    Returns:
        ``{node: (center, score)}`` for every node of ``order``.

    >>> star_clusters([3, 1, 2], [(1, 2, 0.9), (2, 3, 0.8)])
    {3: (3, 1.0), 1: (1, 1.0), 2: (3, 0.8)}
    """
    rank: dict[int, int] = {}
    for position, node in enumerate(order):
        if node in rank:
            raise ValueError(f"node {node!r} appears twice in order; list each node once")
        rank[node] = position
    neighbours: dict[int, dict[int, float]] = {}
    for edge in edges:
        try:
            a, b, score = edge
        except (TypeError, ValueError):
            raise ValueError(f"each edge must be an (a, b, score) tuple, got {edge!r}") from None
        for node in (a, b):
            if node not in rank:
                raise ValueError(
                    f"edge {edge!r} references node {node!r} that is not in order; "
                    "include every node of the edges in order"
                )
        if a == b:
            continue
        score = float(score)
        for x, y in ((a, b), (b, a)):
            adj = neighbours.setdefault(x, {})
            if score > adj.get(y, float("-inf")):
                adj[y] = score
    result: dict[int, tuple[int, float]] = {}
    for node in order:
        if node in result:
            continue
        result[node] = (node, 1.0)
        for other, score in neighbours.get(node, {}).items():
            if other not in result:
                result[other] = (node, score)
    return {node: result[node] for node in order}


def degree_stars(
    order: Sequence[int], edges: Iterable[tuple[int, int, float]]
) -> dict[int, list[int]]:
    """Stars whose centres are the best-connected nodes (anti-chaining, like :func:`star_clusters`).

    Repeatedly the unassigned node with the most unassigned neighbours (ties: earlier in
    ``order``) becomes a centre and takes those neighbours. The page that all near copies were
    made from is linked to each of them, so it becomes the centre and they stay one group,
    while every member still has a direct edge to its centre. Returns ``{centre: members}``
    (members include the centre, in ``order``); nodes without edges are left out.

    >>> degree_stars([1, 2, 3, 4], [(1, 2, 0.9), (2, 3, 0.9), (2, 4, 0.95)])
    {2: [1, 2, 3, 4]}
    >>> degree_stars([1, 2, 3], [(1, 2, 0.9), (2, 3, 0.9), (1, 3, 0.9)])
    {1: [1, 2, 3]}
    """
    rank = {node: i for i, node in enumerate(order)}
    neighbours: dict[int, set[int]] = {}
    for a, b, _score in edges:
        if a == b:
            continue
        if a not in rank or b not in rank:
            raise ValueError(f"edge ({a!r}, {b!r}) names a node missing from order")
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    heap = [(-len(nb), rank[n], n) for n, nb in neighbours.items()]
    heapq.heapify(heap)
    assigned: set[int] = set()
    stars: dict[int, list[int]] = {}
    while heap:
        neg_degree, r, node = heapq.heappop(heap)
        if node in assigned:
            continue
        free = [m for m in neighbours[node] if m not in assigned]
        if len(free) != -neg_degree:  # stale entry: push back with the current degree
            if free:
                heapq.heappush(heap, (-len(free), r, node))
            continue
        members = sorted([node, *free], key=rank.__getitem__)
        assigned.update(members)
        stars[node] = members
    return stars
