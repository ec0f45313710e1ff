"""Tests for webdedup.algorithms.cluster (union-find, stars without chaining)."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from webdedup.algorithms.cluster import UnionFind, degree_stars, group_near, group_pairs


def test_union_find_basics():
    uf = UnionFind(range(6))
    assert len(uf) == 6
    assert uf.union(0, 1) and uf.union(1, 2) and uf.union(4, 5)
    assert not uf.union(0, 2)
    assert uf.connected(0, 2) and not uf.connected(0, 3)
    assert uf.set_size(2) == 3
    assert sorted(sorted(g) for g in uf.groups()) == [[0, 1, 2], [3], [4, 5]]
    assert 7 not in uf
    assert uf.find(7) == 7 and 7 in uf


def test_union_find_long_chain_is_compressed():
    uf = UnionFind()
    for k in range(5000):
        uf.union(k, k + 1)
    root = uf.find(0)
    assert all(uf.find(k) == root for k in range(5001))
    assert uf.set_size(1234) == 5001


def test_chain_does_not_merge_through_middle():
    # B resembles A and C, which are unrelated: unless B is their canonical (each then
    # resembles it directly), no group holds both A and C
    edges = {("A", "B"): 0.9, ("B", "C"): 0.9}
    unrelated = {("A", "C"): 0.1}

    def score_of(a, b):
        return unrelated.get((a, b), unrelated.get((b, a), 0.0))

    for order in itertools.permutations("ABC"):
        got = group_near(list(order), edges, score_of, chain_floor=0.5)
        canonical = {n: c for n, (c, _s) in got.items()}
        for n in order:
            canonical.setdefault(n, n)
        if order[0] != "B":
            assert canonical["A"] != canonical["C"]
        for member, (centre, score) in got.items():
            assert score >= 0.5 and score == max(edges.get((member, centre), 0),
                                                 edges.get((centre, member), 0), 0.1)
    # transitive closure would have merged A and C
    uf = UnionFind("ABC")
    for a, b in edges:
        uf.union(a, b)
    assert uf.connected("A", "C")


def test_copies_of_one_original_stay_together():
    # two copies of O, a little less alike than the threshold to each other: one group
    edges = {(1, 2): 0.95, (1, 3): 0.95}
    got = group_near([2, 3, 1], edges, lambda a, b: 0.85, chain_floor=0.5)
    assert got == {3: (2, 0.85), 1: (2, 0.95)}


def test_group_pairs_keep_the_best_score_between_groups():
    component = {10: 1, 11: 1, 20: 2, 30: 3}
    edges = [(10, 20, 0.91), (11, 20, 0.97), (10, 11, 0.99), (20, 30, 0.92)]
    assert triples(group_pairs(edges, component, set())) == [(1, 2, 0.97), (2, 3, 0.92)]
    # a reviewer keeps 1 and 2 apart
    assert triples(group_pairs(edges, component, {(1, 2)})) == [(2, 3, 0.92)]


def triples(arrays) -> list[tuple]:
    return list(zip(*(a.tolist() for a in arrays), strict=True))


@st.composite
def graphs(draw):
    n = draw(st.integers(min_value=0, max_value=25))
    order = draw(st.permutations(list(range(n))))
    pairs = list(itertools.combinations(range(n), 2))
    edges = draw(
        st.lists(
            st.tuples(st.sampled_from(pairs), st.floats(0.5, 1.0)),
            max_size=60,
        )
        if pairs
        else st.just([])
    )
    return order, [(a, b, s) for (a, b), s in edges]


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_degree_star_invariants(graph):
    order, edges = graph
    stars = degree_stars(order, edges)
    linked = {x for a, b, _ in edges if a != b for x in (a, b)}
    rank = {node: k for k, node in enumerate(order)}
    members = [m for ms in stars.values() for m in ms]
    assert len(members) == len(set(members)) and set(members) <= linked  # at most one star
    pairs = {frozenset((a, b)) for a, b, _ in edges}
    for centre, ms in stars.items():
        assert centre in ms
        assert [rank[m] for m in ms] == sorted(rank[m] for m in ms)
        for m in ms:
            if m != centre:
                assert frozenset((m, centre)) in pairs  # a direct edge to the centre
