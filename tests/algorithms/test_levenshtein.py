"""Tests for webdedup.algorithms.levenshtein.window_pairs against a brute-force reference."""

import random

import Levenshtein
import pytest
from conftest import normalized_texts
from hypothesis import given, settings
from hypothesis import strategies as st

from webdedup.algorithms import levenshtein
from webdedup.algorithms.levenshtein import window_delta, window_pairs


def _real_texts(n: int, **kw: int) -> list[str]:
    return normalized_texts(n, **({"max_chars": 3000} | kw))


def _brute(texts, distance, threshold):
    return [
        (i, j, Levenshtein.ratio(texts[i], texts[j]))
        for i in range(len(texts))
        for j in range(i + 1, min(i + distance + 1, len(texts)))
        if Levenshtein.ratio(texts[i], texts[j]) >= threshold
    ]


def _mutate(text: str, rng: random.Random, edits: int) -> str:
    chars = list(text)
    for _ in range(edits):
        k = rng.randrange(len(chars) + 1)
        op = rng.choice("ids")
        if op == "i":
            chars.insert(k, rng.choice("abcxyz "))
        elif chars and k < len(chars):
            if op == "d":
                del chars[k]
            else:
                chars[k] = rng.choice("abcxyz ")
    return "".join(chars)


def _corpus(seed: int) -> list[str]:
    """Real texts, some followed by edited copies, some truncated: many borderline pairs."""
    rng = random.Random(seed)
    base = _real_texts(30, max_chars=800)
    texts = []
    for text in base:
        texts.append(text)
        for _ in range(rng.randrange(3)):
            texts.append(_mutate(text, rng, rng.choice([1, 10, 40, 120])))
        if rng.random() < 0.3:
            texts.append(text[: rng.randrange(1, len(text) + 1)])
    texts += ["", "", "x"]
    return texts


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("distance", [1, 3, 8])
@pytest.mark.parametrize("threshold", [0.5, 0.8, 0.93, 1.0])
def test_matches_brute_force(seed, distance, threshold):
    texts = _corpus(seed)
    expected = _brute(texts, distance, threshold)
    got = list(window_pairs(texts, distance, threshold, block_size=7))
    assert [(i, j) for i, j, _ in got] == [(i, j) for i, j, _ in expected]
    for (_, _, s), (_, _, e) in zip(got, expected, strict=True):
        assert s == pytest.approx(e, abs=1e-12)


def test_workers_and_block_size_do_not_change_results():
    texts = _corpus(3)
    reference = list(window_pairs(texts, 5, 0.7))
    assert reference  # the corpus has near duplicates
    assert list(window_pairs(texts, 5, 0.7, workers=2, block_size=3)) == reference
    assert list(window_pairs(texts, 5, 0.7, workers=-1, block_size=10_000)) == reference


def test_max_chars_truncates_before_comparing():
    a = "same prefix " * 10
    texts = [a + "tail one" * 50, a + "other ending" * 50]
    assert list(window_pairs(texts, 1, 0.95)) == []
    assert list(window_pairs(texts, 1, 0.95, max_chars=len(a))) == [(0, 1, 1.0)]


def test_small_inputs_and_exact_duplicates():
    assert list(window_pairs([], 3, 0.9)) == []
    assert list(window_pairs(["only"], 3, 0.9)) == []
    assert list(window_pairs(["", ""], 1, 0.9)) == [(0, 1, 1.0)]
    assert list(window_pairs(["abc", "abc", "abc"], 1, 1.0)) == [(0, 1, 1.0), (1, 2, 1.0)]


def test_length_prefilter_boundary_kept():
    # score exactly reaches the length bound: 2 * 3 / (3 + 5) = 0.75
    assert list(window_pairs(["abc", "abcde"], 1, 0.75)) == [(0, 1, 0.75)]
    assert list(window_pairs(["abc", "abcde"], 1, 0.76)) == []


def test_bad_arguments():
    with pytest.raises(ValueError, match="distance"):
        window_pairs(["a", "b"], 0, 0.9)
    with pytest.raises(ValueError, match="threshold"):
        window_pairs(["a", "b"], 1, 0)
    with pytest.raises(ValueError, match="workers"):
        window_pairs(["a", "b"], 1, 0.9, workers=0)
    with pytest.raises(ValueError, match="max_chars"):
        window_pairs(["a", "b"], 1, 0.9, max_chars=0)
    with pytest.raises(ValueError, match="texts\\[1\\]"):
        list(window_pairs(["a", None], 1, 0.9))


# -- window_delta: what changes in the window when region nodes come and go -----------------
def _window(order, distance):
    return {
        (order[i], order[j])
        for i in range(len(order))
        for j in range(i + 1, min(i + distance + 1, len(order)))
    }


_keys = st.lists(st.tuples(st.sampled_from("abcde"), st.integers(0, 3)), max_size=25)


@settings(max_examples=300, deadline=None)
@given(
    outside=_keys,
    old=_keys,
    new=_keys,
    distance=st.integers(1, 5),
)
def test_window_delta_matches_brute_force(outside, old, new, distance):
    _check_delta(outside, old, new, distance)


def test_window_delta_across_chunks(monkeypatch):
    # the outside nodes are read in chunks: region nodes at and across chunk edges
    monkeypatch.setattr(levenshtein, "DELTA_CHUNK", 3)
    rng = random.Random(5)
    for _ in range(300):
        keys = [[(rng.choice("abcde"), rng.randrange(4)) for _ in range(rng.randrange(25))]]
        keys += [[(rng.choice("abcde"), rng.randrange(4)) for _ in range(rng.randrange(8))]]
        keys += [[(rng.choice("abcde"), rng.randrange(4)) for _ in range(rng.randrange(8))]]
        _check_delta(*keys, distance=rng.randint(1, 5))


def _check_delta(outside, old, new, distance):
    # ids: outside nodes 0.., region nodes 100.. (a region id may sit at other keys before
    # and after, or exist on one side only)
    out_keys = sorted({(f"{h}{n}", i) for i, (h, n) in enumerate(outside)})
    old_keys = [(f"{h}{n}", 100 + i) for i, (h, n) in enumerate(old)]
    new_keys = [(f"{h}{n}", 100 + i + len(old) // 2) for i, (h, n) in enumerate(new)]
    delta = window_delta([(*k, 10 * k[1]) for k in out_keys], old_keys, new_keys, distance)

    old_order = [i for _, i in sorted(out_keys + old_keys)]
    new_order = [i for _, i in sorted(out_keys + new_keys)]
    before, after = _window(old_order, distance), _window(new_order, distance)
    region_ids = {i for _, i in new_keys}
    outside_ids = {i for _, i in out_keys}
    assert sorted(delta.region) == sorted(p for p in after if set(p) & region_ids)
    assert len(delta.region) == len(set(delta.region))
    old_rank = {i: r for r, i in enumerate(old_order)}
    assert delta.was_near == [
        a in old_rank and b in old_rank and abs(old_rank[a] - old_rank[b]) <= distance
        for a, b in delta.region
    ]
    assert set(delta.entered) == {p for p in after - before if set(p) <= outside_ids}
    assert set(delta.left) == {p for p in before - after if set(p) <= outside_ids}
    assert delta.nodes == len(new_order)
    in_pairs = {x for p in delta.region + delta.entered + delta.left for x in p} & outside_ids
    assert delta.outside == {i: (10 * i,) for i in in_pairs}


def test_window_delta_of_one_insertion():
    outside = [(k, i) for i, k in enumerate("abcdef")]
    delta = window_delta(outside, [], [("c", 99)], distance=2)
    # only the pairs two apart across the insertion leave the window
    assert sorted(delta.region) == [(1, 99), (2, 99), (99, 3), (99, 4)]
    assert delta.entered == []
    assert sorted(delta.left) == [(1, 3), (2, 4)]
