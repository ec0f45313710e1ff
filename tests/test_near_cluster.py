"""Tests for webdedup.near.cluster (union-find and anti-chaining star clusters)."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webdedup.near.cluster import UnionFind, star_clusters


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
    edges = [("A", "B", 0.9), ("B", "C", 0.8)]
    got = star_clusters(["A", "B", "C"], edges)
    assert got == {"A": ("A", 1.0), "B": ("A", 0.9), "C": ("C", 1.0)}
    got = star_clusters(["C", "B", "A"], edges)
    assert got == {"C": ("C", 1.0), "B": ("C", 0.8), "A": ("A", 1.0)}
    # the middle node elected first takes both ends (both are direct neighbours)
    got = star_clusters(["B", "A", "C"], edges)
    assert got == {"B": ("B", 1.0), "A": ("B", 0.9), "C": ("B", 0.8)}
    # transitive closure would have merged A and C
    uf = UnionFind("ABC")
    for a, b, _ in edges:
        uf.union(a, b)
    assert uf.connected("A", "C")


def test_clique_star_and_isolated_nodes():
    clique = [(a, b, 0.95) for a, b in itertools.combinations(range(5), 2)]
    got = star_clusters([3, 1, 0, 4, 2], clique)
    assert got == {n: (3, 1.0 if n == 3 else 0.95) for n in range(5)}

    star = [(0, leaf, 0.5 + leaf / 10) for leaf in range(1, 5)]
    got = star_clusters([2, 0, 1, 3, 4], star)
    # leaf 2 comes first: it becomes a center and takes the hub; other leaves stay alone
    assert got == {2: (2, 1.0), 0: (2, 0.7), 1: (1, 1.0), 3: (3, 1.0), 4: (4, 1.0)}
    got = star_clusters([0, 1, 2, 3, 4], star)
    assert got == {0: (0, 1.0), 1: (0, 0.6), 2: (0, 0.7), 3: (0, 0.8), 4: (0, 0.9)}

    assert star_clusters([9, 8], []) == {9: (9, 1.0), 8: (8, 1.0)}
    assert star_clusters([], []) == {}


def test_duplicate_edges_keep_best_score_and_self_loops_ignored():
    got = star_clusters([1, 2], [(1, 2, 0.7), (2, 1, 0.9), (1, 1, 0.5)])
    assert got == {1: (1, 1.0), 2: (1, 0.9)}


def test_bad_arguments():
    with pytest.raises(ValueError, match="twice"):
        star_clusters([1, 1], [])
    with pytest.raises(ValueError, match="not in order"):
        star_clusters([1, 2], [(1, 3, 0.9)])
    with pytest.raises(ValueError, match="tuple"):
        star_clusters([1, 2], [(1, 2)])


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
def test_star_cluster_invariants(graph):
    order, edges = graph
    got = star_clusters(order, edges)
    assert list(got) == list(order)
    best = {}
    for a, b, s in edges:
        for key in ((a, b), (b, a)):
            best[key] = max(best.get(key, 0.0), s)
    rank = {node: k for k, node in enumerate(order)}
    for node, (center, score) in got.items():
        assert got[center] == (center, 1.0)  # centers are their own center
        if node != center:
            assert best[(node, center)] == score  # direct edge to the center, its score
            assert rank[center] < rank[node]  # center first in order among its members
    # maximality: two centers are never directly connected
    centers = [n for n, (c, _) in got.items() if n == c]
    for a, b in itertools.combinations(centers, 2):
        assert (a, b) not in best
