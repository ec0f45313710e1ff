"""Band collisions found by sorting arrays (algorithms/bands.py) against brute force, and the
band keys read back from stored sketches (sketch.band_matrix) against the ones phase 1 made."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import real_texts

from webdedup import Config
from webdedup.algorithms import bands
from webdedup.algorithms import simhash as sh
from webdedup.algorithms.bands import (
    NewKeys,
    _component_labels,
    candidate_pairs,
    collisions,
    component_order,
    pairs_by_band,
)
from webdedup.algorithms.cluster import UnionFind
from webdedup.algorithms.kernels import band_collisions
from webdedup.algorithms.sketch import band_matrix, sketch_texts
from webdedup.algorithms.text import normalize_text


def brute_pairs(keys: np.ndarray, groups: np.ndarray | None) -> list[tuple[int, int]]:
    out = set()
    for a, b in itertools.combinations(range(len(keys)), 2):
        if (keys[a] == keys[b]).any() and (groups is None or groups[a] != groups[b]):
            out.add((a, b))
    return sorted(out)


@pytest.mark.parametrize("seed", range(6))
def test_candidate_pairs_are_every_shared_key(seed):
    rng = np.random.default_rng(seed)
    n, bands = int(rng.integers(0, 120)), int(rng.integers(1, 6))
    # few distinct values: runs of 2 to dozens of equal keys in a column
    keys = rng.integers(0, int(rng.integers(2, 60)), size=(n, bands)).astype(np.uint32)
    groups = rng.integers(0, 30, size=n)
    for g in (None, groups):
        lo, hi = candidate_pairs(keys, g)
        assert list(zip(lo.tolist(), hi.tolist(), strict=True)) == brute_pairs(keys, g)


@pytest.mark.parametrize("seed", range(4))
def test_packed_sort_finds_the_runs_the_argsort_finds(seed, monkeypatch):
    """32-bit keys are sorted packed with their rows (key << 32 | row) and their runs found a
    chunk at a time; wider keys take an argsort. Both give every equal pair, ``a < b``, in
    the same order: across chunk edges (chunks of 7 rows), runs at the ends, the top key."""
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(bands, "RUN_CHUNK", 7)
    n = int(rng.integers(2, 400))
    column = rng.integers(0, int(rng.integers(2, 80)), size=n).astype(np.uint32)
    column[rng.random(n) < 0.2] = 2**32 - 1  # the largest key: its run can end the sort
    a, b = bands._equal_runs(column)
    wide_a, wide_b = bands._equal_runs(column.astype(np.int64))
    assert a.tolist() == wide_a.tolist() and b.tolist() == wide_b.tolist()
    assert (a < b).all()
    brute = sorted(p for p in itertools.combinations(range(n), 2) if column[p[0]] == column[p[1]])
    assert sorted(zip(a.tolist(), b.tolist(), strict=True)) == brute


def test_candidate_pairs_of_nothing():
    lo, hi = candidate_pairs(np.empty((0, 37), np.uint32))
    assert lo.size == hi.size == 0
    lo, hi = candidate_pairs(np.arange(10, dtype=np.uint32).reshape(5, 2))
    assert lo.size == 0
    with pytest.raises(ValueError, match="2-D"):
        candidate_pairs(np.arange(3))


@pytest.mark.parametrize("seed", range(9))
def test_collisions_are_every_shared_key(seed):
    rng = np.random.default_rng(seed)
    top = int(rng.integers(2, 50))
    new = rng.integers(0, top, size=(int(rng.integers(1, 15)), 3))
    stored = rng.integers(0, top, size=(int(rng.integers(0, 200)), 3))
    if seed % 3 == 1:  # signed 64-bit keys, as simhash's, negative ones too
        new, stored = new - top // 2 - 2**62, stored - top // 2 - 2**62
    if seed % 3 == 2:  # 32-bit keys over the whole range, as minhash's
        spread = rng.integers(0, 2**32, size=top, dtype=np.uint64).astype(np.uint32)
        new, stored = spread[new], spread[stored]
    i, m = collisions(new, stored)
    got = sorted(set(zip(i.tolist(), m.tolist(), strict=True)))
    want = sorted(
        (a, b) for a in range(len(new)) for b in range(len(stored)) if (new[a] == stored[b]).any()
    )
    assert got == want
    # one NewKeys met by the stored rows a chunk at a time finds the same pairs
    keys = NewKeys(new)
    chunked = set()
    for start in range(0, len(stored), 7):
        ci, cm = keys.collisions(stored[start : start + 7])
        chunked |= set(zip(ci.tolist(), (cm + start).tolist(), strict=True))
    assert sorted(chunked) == want


def test_collisions_of_keys_of_two_integer_types():
    # 32-bit keys met by the same values as signed 64-bit ones: the same pairs
    rng = np.random.default_rng(5)
    new = rng.integers(0, 2**32, size=(6, 3), dtype=np.uint64).astype(np.uint32)
    more = rng.integers(0, 2**32, size=(20, 3), dtype=np.uint64).astype(np.uint32)
    stored = np.concatenate([new[::-1], more])
    want = sorted(
        (a, b) for a in range(len(new)) for b in range(len(stored)) if (new[a] == stored[b]).any()
    )
    for left, right in ((new, stored.astype(np.int64)), (new.astype(np.int64), stored)):
        i, m = NewKeys(left).collisions(right)
        assert sorted(set(zip(i.tolist(), m.tolist(), strict=True))) == want
    # unsigned and signed 64-bit keys have no exact common type (numpy would round to float)
    big = np.array([[2**60 + 1]], dtype=np.uint64)
    with pytest.raises(TypeError, match="cannot be compared"):
        NewKeys(big).collisions(big.astype(np.int64))


def test_band_collisions_refuses_arrays_it_would_read_past():
    # the compiled loop does not check indexes: the wrapper checks the shapes first
    keys = np.arange(6, dtype=np.uint32).reshape(3, 2)
    member = np.zeros(1 << 21, dtype=np.uint8)
    ordered, order = np.zeros((2, 1), np.uint32), np.zeros((2, 1), np.int64)
    ok = band_collisions(keys, keys, np.ones((2, 2), np.uint32), member, 8, ordered, order)
    assert ok[0].size == 0
    bad = [
        (keys, keys, np.ones((2, 3), np.uint32), member, 8, ordered, order),  # multipliers
        (keys, keys, np.ones((2, 2), np.uint32), member[:100], 8, ordered, order),  # filter
        (keys, keys, np.ones((2, 2), np.uint32), member, 7, ordered, order),  # shift
        (keys, keys, np.ones((2, 2), np.uint32), member, 8, ordered[:1], order[:1]),  # columns
        (keys, keys.astype(np.int64), np.ones((2, 2), np.uint32), member, 8, ordered, order),
    ]
    for args in bad:
        with pytest.raises(ValueError, match="mismatched"):
            band_collisions(*args)


def test_simhash_band_keys_array_equals_band_keys():
    rng = np.random.default_rng(3)
    hashes = np.concatenate(
        [rng.integers(0, 2**64, size=50, dtype=np.uint64), np.array([0, 2**64 - 1], np.uint64)]
    )
    for d in range(64):
        assert sh.band_keys_array(hashes, d).tolist() == [sh.band_keys(int(h), d) for h in hashes]


@pytest.mark.parametrize("method", ["minhash", "simhash"])
def test_band_matrix_reads_back_the_keys_of_sketch_texts(method):
    spec = Config(method=method).near_spec()
    texts = [normalize_text(t["text"]) for t in real_texts()[:40]]
    sketches = sketch_texts(spec, texts)
    keys = band_matrix(spec, [blob for blob, _ in sketches])
    if method == "minhash":
        assert keys.shape == (40, spec.bands) and keys.dtype == np.uint32
        # the listed keys carry their band in the high bits, so bands never meet when pooled
        assert [[k >> 32 for k in listed] for _, listed in sketches] == [
            list(range(spec.bands))
        ] * 40
        assert keys.tolist() == [[k & 0xFFFFFFFF for k in listed] for _, listed in sketches]
    else:
        assert keys.tolist() == [listed for _, listed in sketches]


def test_band_matrix_refuses_a_signature_of_the_old_layout():
    spec = Config().near_spec()
    old = spec.hasher().serialize(spec.hasher().signature(np.arange(10, dtype=np.uint64)))
    with pytest.raises(ValueError, match="full pass"):
        band_matrix(spec, [old])


def test_near_copies_of_real_texts_share_a_band_and_others_do_not():
    spec = Config().near_spec()
    texts = [normalize_text(t["text"]) for t in real_texts()[:200]]
    texts = [t for t in texts if len(t.split()) > 300][:30]
    copies = [t.replace(" the ", " a ", 2) for t in texts]  # two words changed
    keys = band_matrix(spec, [blob for blob, _ in sketch_texts(spec, texts + copies)])
    lo, hi = candidate_pairs(keys)
    pairs = set(zip(lo.tolist(), hi.tolist(), strict=True))
    n = len(texts)
    assert {(i, i + n) for i in range(n)} <= pairs
    assert len(pairs) <= n + 3  # different real articles: (almost) never a candidate


@pytest.mark.parametrize("seed", range(4))
def test_pairs_by_band_gives_each_pair_once(seed):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 5, size=(60, 4)).astype(np.uint32)
    groups = rng.integers(0, 20, size=60)
    given = [
        pair
        for lo, hi in pairs_by_band(keys, groups)
        for pair in zip(lo.tolist(), hi.tolist(), strict=True)
    ]
    assert len(given) == len(set(given))
    assert sorted(given) == brute_pairs(keys, groups)


@pytest.mark.parametrize("seed", range(8))
def test_component_order_puts_each_component_together(seed):
    rng = np.random.default_rng(seed)
    nodes = rng.choice(10**9, size=int(rng.integers(2, 400)), replace=False)
    edges = int(rng.integers(1, 600))
    lo, hi = rng.choice(nodes, size=edges), rng.choice(nodes, size=edges)
    order = component_order(lo, hi)
    assert sorted(order.tolist()) == list(range(edges))  # a permutation
    uf = UnionFind()
    for a, b in zip(lo.tolist(), hi.tolist(), strict=True):
        uf.union(a, b)
    roots = [uf.find(int(lo[k])) for k in order]
    runs = [root for k, root in enumerate(roots) if k == 0 or root != roots[k - 1]]
    assert len(runs) == len(set(runs))  # each component's pairs in one run
    members: dict = {}
    for a, b in zip(lo.tolist(), hi.tolist(), strict=True):
        members.setdefault(uf.find(a), set()).update((a, b))
    smallest = [min(members[root]) for root in runs]
    assert smallest == sorted(smallest)  # components by their smallest node
    for start in range(len(order) - 1):  # by (lo, hi) inside a component
        k, m = order[start], order[start + 1]
        if roots[start] == roots[start + 1]:
            assert (lo[k], hi[k]) <= (lo[m], hi[m])


def test_component_labels_of_a_long_shuffled_chain_take_few_rounds():
    """A chain of near-duplicates crawled in scattered id order (revisions, archives): the
    labels must not creep one link a round (a million-link chain would take hours)."""
    rng = np.random.default_rng(3)
    nodes = 20_000
    chain = rng.permutation(nodes)
    a, b = chain[:-1], chain[1:]
    label, rounds = _component_labels(a, b, nodes)
    assert (label == 0).all()
    assert rounds <= 60, rounds  # creeping one link a round would take thousands


def test_component_order_of_nothing():
    assert component_order(np.empty(0, np.int64), np.empty(0, np.int64)).tolist() == []


def test_band_keys_on_disk_give_the_same_pairs_as_the_matrix():
    """Phase 4 of minhash keeps the band keys on disk a band at a time (BandColumns): the
    pairs, each once and in the same order, are those of the whole matrix in memory."""
    from webdedup.store.spool import BandColumns

    rng = np.random.default_rng(5)
    keys = rng.integers(0, 40, size=(3000, 9), dtype=np.uint32)  # many collisions
    groups = rng.integers(0, 2500, size=3000)
    columns = BandColumns(9, np.uint32)
    try:
        for start in range(0, 3000, 700):  # appended a block at a time, as phase 4 reads them
            columns.append(keys[start : start + 700])
        assert columns.rows == 3000
        for g in (None, groups):
            lo, hi = candidate_pairs(keys, g)
            lo2, hi2 = candidate_pairs(columns, g)
            assert len(lo) > 10_000
            assert lo.tolist() == lo2.tolist() and hi.tolist() == hi2.tolist()
            by_band = [(a.tolist(), b.tolist()) for a, b in pairs_by_band(keys, g)]
            assert by_band == [(a.tolist(), b.tolist()) for a, b in pairs_by_band(columns, g)]
    finally:
        columns.close()
