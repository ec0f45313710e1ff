"""Tests for webdedup.algorithms.simhash (trafilatura-compatible SimHash, Hamming banding)."""

import numpy as np
import pytest
from conftest import normalized_texts
from hypothesis import given, settings
from hypothesis import strategies as st
from trafilatura.deduplication import Simhash

from webdedup.algorithms.simhash import (
    PAIRED_MAX_DISTANCE,
    band_keys,
    band_layout,
    hamming,
    hamming_distances,
    max_distance_for,
    simhash,
    similarity,
)


def _real_texts(n: int, **kw: int) -> list[str]:
    return normalized_texts(n, **({"step": 97} | kw))


EDGE_CASES = [
    "",
    "a",
    "!!! ??? ...",
    "这是一个中文句子。没有空格，也没有拉丁字母。",
    "日本語 テキスト、句読点。",
    "short words: an ox is at it",
    'hyphen-ated words, quotes\' and "dots..."',
    "ünïcödé wörds straße größe",
    " ".join(["word"] * 40),
]


def test_equals_trafilatura_on_real_and_edge_texts():
    texts = _real_texts(25) + EDGE_CASES
    assert len(texts) >= 30
    for text in texts:
        assert simhash(text) == Simhash(text).hash, text[:60]


def test_pinned_values():
    # Literal values computed once with trafilatura 2.3.1: a change on either side shows here.
    assert simhash("the quick brown fox jumps over the lazy dog") == 1932188759623088695
    assert simhash("") == 18446744073709551615
    assert simhash("near duplicate detection for web pages") == 16161671812893415997
    for text in ("the quick brown fox jumps over the lazy dog", ""):
        assert Simhash(text).hash == simhash(text)


def test_hamming_and_similarity():
    assert hamming(0, 0) == 0
    assert hamming(0, 2**64 - 1) == 64
    assert hamming(-1, 0) == 64  # signed int64 form accepted
    assert similarity(0, 0b111) == (64 - 3) / 64
    a, b = Simhash("one text here"), Simhash("another text there")
    assert similarity(a.hash, b.hash) == a.similarity(b)
    with pytest.raises(ValueError, match="64 bits"):
        hamming(2**64, 0)
    with pytest.raises(ValueError, match="str"):
        simhash(b"bytes")


def test_similar_texts_are_close():
    text, other = _real_texts(2)
    words = text.split()
    edited = " ".join(words[:50] + ["changed"] + words[51:])
    assert hamming(simhash(text), simhash(edited)) <= 6
    assert hamming(simhash(text), simhash(other)) > 10


def test_max_distance_for():
    assert max_distance_for(1.0) == 0
    assert max_distance_for(0.9) == 6
    assert max_distance_for(0.75) == 16
    assert max_distance_for(0.01) == 63
    for t in (0.5, 0.8, 0.85, 0.9, 0.95, 0.97, 63 / 64, 60 / 64):
        d = max_distance_for(t)
        assert (64 - d) / 64 >= t
        assert d == 63 or (64 - (d + 1)) / 64 < t
    for bad in (0, 1.5, "0.9"):
        with pytest.raises(ValueError, match="threshold"):
            max_distance_for(bad)


def test_band_layout_covers_64_bits():
    for d in range(64):
        layout = band_layout(d)
        assert len(layout) == d + 1
        assert sum(w for _, w in layout) == 64
        assert layout[0][0] == 0
        assert all(s1 + w1 == s2 for (s1, w1), (s2, _) in zip(layout, layout[1:], strict=False))
    with pytest.raises(ValueError, match="max_distance"):
        band_layout(64)


def test_band_keys_shape_and_range():
    h = simhash(_real_texts(1)[0])
    for d in (0, 1, 2, 3, 6, 8, 9, 12, 63):
        keys = band_keys(h, d)
        assert len(keys) == len(set(keys)) == len(_key_groups(d))
        assert all(-(2**63) <= k < 2**63 for k in keys)
    assert band_keys(2**64 - 1, 0) == [-1]
    assert band_keys(5, 0) == [5]


hashes = st.integers(min_value=0, max_value=2**64 - 1)


@settings(max_examples=300, deadline=None)
@given(hashes, st.integers(min_value=0, max_value=63), st.data())
def test_band_keys_pigeonhole(h, max_distance, data):
    flips = data.draw(
        st.lists(st.integers(0, 63), max_size=max_distance, unique=True), label="flipped bits"
    )
    other = h
    for bit in flips:
        other ^= 1 << bit
    assert hamming(h, other) <= max_distance
    assert set(band_keys(h, max_distance)) & set(band_keys(other, max_distance))


def _key_groups(d: int) -> list[list[tuple[int, int]]]:
    """The bit blocks behind each key: pairs of d + 2 blocks for 2 <= d <= PAIRED_MAX_DISTANCE,
    else bands."""
    if not 2 <= d <= PAIRED_MAX_DISTANCE:
        return [[band] for band in band_layout(d)]
    n = d + 2
    widths = [64 // n + (1 if i < 64 % n else 0) for i in range(n)]
    blocks = [(sum(widths[:i]), widths[i]) for i in range(n)]
    return [[blocks[i], blocks[j]] for i in range(n) for j in range(i + 1, n)]


@settings(max_examples=300, deadline=None)
@given(hashes, hashes, st.integers(min_value=0, max_value=20), st.data())
def test_band_keys_shared_iff_some_key_group_equal(a, b, max_distance, data):
    if data.draw(st.booleans(), label="b near a"):  # else two random hashes rarely collide
        b = a ^ (b & data.draw(st.sampled_from([0xFF, 0xFF00FF, 0xF0F0F0F0F0F0F0F0])))
    shared = set(band_keys(a, max_distance)) & set(band_keys(b, max_distance))
    equal_group = any(
        all((a >> s) & ((1 << w) - 1) == (b >> s) & ((1 << w) - 1) for s, w in group)
        for group in _key_groups(max_distance)
    )
    assert bool(shared) == equal_group


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(hashes, hashes), max_size=40))
def test_hamming_distances_match_hamming(pairs):
    a = np.array([x for x, _ in pairs], dtype=np.uint64)
    b = np.array([y for _, y in pairs], dtype=np.uint64)
    assert hamming_distances(a, b).tolist() == [hamming(x, y) for x, y in pairs]
