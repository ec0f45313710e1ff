"""Grouping: union-find (for exact components) and stars without chaining (near groups).

Transitive closure chains: A~B and B~C put A and C together even when they are unrelated.
:func:`group_near` avoids that: every member of a group is directly similar to its centre
and at least ``chain_floor`` similar to its canonical.

>>> uf = UnionFind()
>>> uf.union(1, 2), uf.union(2, 3), uf.connected(1, 3)
(True, True, True)
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Edges",
    "GroupOf",
    "UnionFind",
    "degree_stars",
    "group_near",
    "group_pairs",
    "groups_apart",
]


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


def degree_stars(
    order: Sequence[int], edges: Iterable[tuple[int, int, float]]
) -> dict[int, list[int]]:
    """Stars whose centres are the best-connected nodes (no chaining).

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


#: A verified edge as SQLite gives it: two page ids and the score.
_EDGE_ROW = np.dtype([("a", "<i8"), ("b", "<i8"), ("score", "<f8")])


@dataclass(frozen=True)
class Edges:
    """Verified page edges ``a[k]``-``b[k]`` with their scores, as three arrays: 24 bytes an
    edge, where a list of ``(a, b, score)`` tuples takes about 150 (at three million pages
    phase 4 verifies millions of edges).

    >>> edges = Edges.of([(1, 2, 0.9), (3, 4, 0.8)])
    >>> len(edges), list(edges[edges.score > 0.85].rows())
    (2, [(1, 2, 0.9)])
    """

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray

    @classmethod
    def of(cls, edges: Edges | Sequence[tuple[int, int, float]]) -> Edges:
        """``edges`` as arrays (a list of tuples, or already :class:`Edges`)."""
        if isinstance(edges, Edges):
            return edges
        return cls.from_rows(edges)

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, int, float]]) -> Edges:
        """From ``(a, b, score)`` rows, such as a cursor's: no list of them is made."""
        table = np.fromiter(rows, dtype=_EDGE_ROW)
        return cls(*(np.ascontiguousarray(table[name]) for name in ("a", "b", "score")))

    def __len__(self) -> int:
        return len(self.a)

    def __getitem__(self, keep: np.ndarray | slice) -> Edges:
        return Edges(self.a[keep], self.b[keep], self.score[keep])

    def rows(self, chunk: int = 100_000) -> Iterator[tuple[int, int, float]]:
        """The edges as ``(a, b, score)`` tuples, made ``chunk`` at a time."""
        for start in range(0, len(self), chunk):
            end = start + chunk
            yield from zip(self.a[start:end].tolist(), self.b[start:end].tolist(),
                           self.score[start:end].tolist(), strict=True)


@dataclass(frozen=True)
class GroupOf:
    """Each page's exact group (the group's winner) as two arrays sorted by page: 16 bytes a
    page, where a dict takes about 100. Called with an array of pages, gives their groups.

    >>> group = GroupOf.of({7: 3, 3: 3, 9: 9})
    >>> group(np.array([9, 7])).tolist()
    [9, 3]
    >>> group(np.array([8]))
    Traceback (most recent call last):
    ...
    KeyError: 8
    """

    ids: np.ndarray
    groups: np.ndarray

    @classmethod
    def of(cls, component: GroupOf | Mapping[int, int]) -> GroupOf:
        if isinstance(component, GroupOf):
            return component
        return cls.from_rows(component.items())

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, int]]) -> GroupOf:
        """From ``(page, group)`` rows in any order, each page once."""
        table = np.fromiter(rows, dtype=[("id", "<i8"), ("group", "<i8")])
        table.sort(order="id")
        return cls(np.ascontiguousarray(table["id"]), np.ascontiguousarray(table["group"]))

    def __call__(self, pages: np.ndarray) -> np.ndarray:
        at = np.searchsorted(self.ids, pages)
        found = at < len(self.ids)
        found[found] = self.ids[at[found]] == pages[found]
        if not found.all():
            raise KeyError(int(pages[~found][0]))
        return self.groups[at]


def group_pairs(
    edges: Edges | Sequence[tuple[int, int, float]],
    component: GroupOf | Mapping[int, int],
    apart: set[tuple[int, int]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Page edges lifted to edges between exact groups (``component``: page -> its group's
    winner), each pair of groups once with its best score, less the reviewers' cannot-link
    pairs ``apart`` (pairs of winners, smaller first): three arrays, the pairs ``lo < hi``
    in order (pure). Arrays, not a dict of pairs: 24 bytes an edge instead of about 200.

    >>> lo, hi, score = group_pairs(
    ...     [(1, 2, 0.91), (4, 2, 0.97), (1, 3, 0.95), (3, 5, 0.9)],
    ...     {1: 1, 2: 2, 3: 1, 4: 2, 5: 3}, apart={(1, 3)})
    >>> list(zip(lo.tolist(), hi.tolist(), score.tolist()))
    [(1, 2, 0.91)]
    >>> group_pairs([(1, 2, 0.9), (3, 4, 0.8)], {1: 1, 2: 2, 3: 2, 4: 1}, set())[2].tolist()
    [0.9]
    """
    edges, group = Edges.of(edges), GroupOf.of(component)
    n = len(edges)
    a, b, score = group(edges.a), group(edges.b), edges.score
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    del a, b
    keep = lo != hi
    if apart:
        keep &= np.fromiter(
            ((x, y) not in apart for x, y in zip(lo.tolist(), hi.tolist(), strict=True)), bool, n
        )
    lo, hi, score = lo[keep], hi[keep], score[keep]
    best = np.lexsort((-score, hi, lo))  # each pair's best score first
    lo, hi, score = lo[best], hi[best], score[best]
    first = np.ones(len(lo), dtype=bool)
    first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    return lo[first], hi[first], score[first]


def groups_apart(
    cannot_link: Iterable[tuple[int, int]], winner: dict[int, int]
) -> set[tuple[int, int]]:
    """Cannot-link page pairs lifted to pairs of exact groups (``winner``: page -> its exact
    group's winner), each as ``(smaller, larger)`` (pure).

    A pair with a page not in ``winner`` (gone, ignored, outside an incremental region)
    drops out, and so does a pair inside one exact group (same URL or same text: phase 4
    cannot split it).

    >>> sorted(groups_apart([(3, 7), (4, 5), (1, 9)], {3: 3, 7: 2, 4: 4, 5: 4, 1: 1}))
    [(2, 3)]
    """
    out = set()
    for a, b in cannot_link:
        wa, wb = winner.get(a), winner.get(b)
        if wa is not None and wb is not None and wa != wb:
            out.add((min(wa, wb), max(wa, wb)))
    return out


def group_near(
    order: Sequence[int],
    group_edges: dict[tuple[int, int], float],
    score_of: Callable[[int, int], float],
    chain_floor: float,
    apart: Iterable[tuple[int, int]] = (),
) -> dict[int, tuple[int, float]]:
    """``{exact winner: (canonical, score)}`` for every group that joins a near group (pure).

    The rule against chaining: groups form stars around the best-connected group
    (:func:`degree_stars`), so every member has a verified edge to its centre; the canonical
    of a star is its best member by election order; and a member stays only when its
    similarity to that canonical (the edge's score, else ``score_of``) is at least
    ``chain_floor``. Members that fail are clustered again among themselves. So A~B~C with A
    and C unrelated never becomes one group, while two copies of one original that are a
    little less alike than the threshold (both linked to it) stay together.

    ``apart`` lists cannot-link pairs (reviewers' "not a duplicate" verdicts): without an
    edge between them they could still meet in one star through a common neighbour, so a
    member that cannot link with the canonical or with a member already taken is evicted
    like one under ``chain_floor`` and clustered again among the rest.

    >>> group_near([1, 2, 3], {(1, 2): 0.9, (1, 3): 0.9}, lambda a, b: 0.9, 0.5)
    {2: (1, 0.9), 3: (1, 0.9)}
    >>> group_near([1, 2, 3], {(1, 2): 0.9, (1, 3): 0.9}, lambda a, b: 0.9, 0.5, [(2, 3)])
    {2: (1, 0.9)}
    """
    cannot: dict[int, set[int]] = {}
    for a, b in apart:
        cannot.setdefault(a, set()).add(b)
        cannot.setdefault(b, set()).add(a)
    out: dict[int, tuple[int, float]] = {}
    pending = set(order)
    while True:
        sub_order = [n for n in order if n in pending]
        sub_edges = [
            (a, b, s) for (a, b), s in group_edges.items() if a in pending and b in pending
        ]
        stars = degree_stars(sub_order, sub_edges)
        if not stars:
            return out
        evicted: set[int] = set()
        for members in stars.values():
            canonical = members[0]
            taken = {canonical}
            for m in members[1:]:
                if cannot and not cannot.get(m, set()).isdisjoint(taken):
                    evicted.add(m)
                    continue
                key = (m, canonical) if m < canonical else (canonical, m)
                score = group_edges.get(key)
                if score is None:
                    score = score_of(m, canonical)
                if score >= chain_floor:
                    out[m] = (canonical, round(score, 6))
                    taken.add(m)
                else:
                    evicted.add(m)
            pending.difference_update(set(members) - evicted)
        if not evicted:
            return out
