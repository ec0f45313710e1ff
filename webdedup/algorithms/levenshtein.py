"""Sliding-window near-duplicate detection with the normalized Indel similarity.

The caller sorts the texts (by canonical URL) so that likely duplicates are close; each text is
compared with the next ``distance`` texts. The score is the normalized Indel similarity
``1 - indel_distance / (len_a + len_b)`` (rapidfuzz ``Indel.normalized_similarity``, equal to
``Levenshtein.ratio`` and to ``fuzz.ratio / 100``), 1.0 for two empty texts.

Pairs that cannot reach the threshold by length alone (``2 * min / (len_a + len_b)`` is an
upper bound of the score) are skipped before any string comparison; the others are scored in
blocks with ``rapidfuzz.process.cpdist`` (pairwise, native threads with ``workers``, memory
bounded by ``block_size * distance`` pairs).

An incremental run does not slide the window again: :func:`window_delta` places the changed
nodes among the unchanged ones and names the only pairs whose outcome can differ.

>>> list(window_pairs(["abcdef", "abcdeg", "zzzzzz"], distance=2, threshold=0.8))
[(0, 1, 0.8333333333333334)]
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Indel

__all__ = ["WindowDelta", "indel_scores", "may_reach", "window_delta", "window_pairs"]

DEFAULT_BLOCK_SIZE = 1024


def _check_int(name: str, value: object, minimum: int, example: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, e.g. {example}; got {value!r}")
    return int(value)


def window_pairs(
    texts: Sequence[str],
    distance: int,
    threshold: float,
    workers: int = 1,
    max_chars: int | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> Iterator[tuple[int, int, float]]:
    """Yield ``(i, j, score)`` with ``i < j <= i + distance`` and ``score >= threshold``.

    Pairs come in increasing ``(i, j)`` order.

    Args:
        texts: the (already sorted, normalized) texts.
        distance: how many following texts each text is compared with (window size).
        threshold: minimum normalized Indel similarity, in (0, 1].
        workers: native threads for rapidfuzz (``-1`` = all cores); the GIL is released.
        max_chars: if set, every text is truncated to its first ``max_chars`` characters before
            comparing (scores then describe the prefixes): bounds the cost of huge texts, since
            one comparison costs about ``len_a * len_b / 64`` word operations. ``None`` = exact.
        block_size: texts per block (memory is ``O(block_size * distance)``).

    >>> list(window_pairs(["aaaa", "bbbb", "aaab"], distance=1, threshold=0.7))
    []
    >>> list(window_pairs(["aaaa", "bbbb", "aaab"], distance=2, threshold=0.7))
    [(0, 2, 0.75)]
    """
    distance = _check_int("distance", distance, 1, "distance=20")
    block_size = _check_int("block_size", block_size, 1, "block_size=1024")
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise ValueError(f"threshold must be a float in (0, 1], e.g. 0.9; got {threshold!r}")
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], e.g. 0.9; got {threshold}")
    if isinstance(workers, bool) or not isinstance(workers, int) or (workers < 1 and workers != -1):
        raise ValueError(f"workers must be a positive int or -1 (all cores), got {workers!r}")
    if max_chars is not None:
        max_chars = _check_int("max_chars", max_chars, 1, "max_chars=20000")
    return _window_pairs(texts, distance, float(threshold), workers, max_chars, block_size)


def _window_pairs(
    texts: Sequence[str],
    distance: int,
    threshold: float,
    workers: int,
    max_chars: int | None,
    block_size: int,
) -> Iterator[tuple[int, int, float]]:
    n = len(texts)
    if n < 2:
        return
    offsets = np.arange(1, distance + 1, dtype=np.int64)
    for start in range(0, n - 1, block_size):
        stop = min(start + block_size, n - 1)  # rows i in [start, stop)
        hi = min(stop + distance, n)
        window = texts[start:hi]
        for k, t in enumerate(window):
            if not isinstance(t, str):
                raise ValueError(f"texts[{start + k}] is {type(t).__name__}, expected str")
        if max_chars is not None:
            window = [t[:max_chars] for t in window]
        lengths = np.fromiter(map(len, window), dtype=np.int64, count=len(window))
        rows = np.arange(stop - start, dtype=np.int64)
        ii = np.repeat(rows, distance)
        jj = ii + np.tile(offsets, rows.size)
        inside = jj < len(window)
        ii, jj = ii[inside], jj[inside]
        possible = may_reach(lengths[ii], lengths[jj], threshold)
        ii, jj = ii[possible], jj[possible]
        if ii.size == 0:
            continue
        scores = indel_scores(
            [window[i] for i in ii.tolist()], [window[j] for j in jj.tolist()], threshold, workers
        )
        hit = scores >= threshold
        for i, j, s in zip(ii[hit].tolist(), jj[hit].tolist(), scores[hit].tolist(), strict=True):
            yield start + i, start + j, s


def may_reach(la: np.ndarray, lb: np.ndarray, threshold: float) -> np.ndarray:
    """Which pairs of texts of lengths ``la``/``lb`` can score ``threshold`` at all.

    ``2 * min / (la + lb)`` bounds the Indel ratio from above (two empty texts score 1.0); a
    little float slack keeps every reachable pair.
    """
    la, lb = np.asarray(la, dtype=np.int64), np.asarray(lb, dtype=np.int64)
    total = la + lb
    bound = np.where(total > 0, 2.0 * np.minimum(la, lb) / np.maximum(total, 1), 1.0)
    return bound >= threshold - 1e-12


def indel_scores(
    left: Sequence[str], right: Sequence[str], threshold: float, workers: int = 1
) -> np.ndarray:
    """The normalized Indel similarity of ``left[k]`` and ``right[k]`` (0.0 below threshold)."""
    if not left:
        return np.zeros(0, dtype=np.float64)
    return process.cpdist(
        left,
        right,
        scorer=Indel.normalized_similarity,
        score_cutoff=threshold,
        dtype=np.float64,
        workers=workers,
    )


# -- incremental: what an insertion or removal changes in the window ------------------------
Key = tuple[str | bytes, int]  # the sort key of a node: (canonical URL key, page id)

#: Outside nodes read at a time by :func:`window_delta`.
DELTA_CHUNK = 65_536


@dataclass
class WindowDelta:
    """The window pairs an incremental run must look at (pairs are ``(earlier, later)`` ids).

    ``region``: every pair of the new order within ``distance`` with a region node in it;
    ``entered``: pairs of outside nodes in the new window that were not in the old one (a
    node between them left); ``left``: pairs of outside nodes in the old window and no longer
    in the new one (a node came between them). Outside pairs in both windows score as before.
    ``outside``: the extra fields of each outside node in those pairs, by id.
    ``was_near``: for each ``region`` pair, whether both nodes were already within
    ``distance`` of each other in the old order.
    """

    region: list[tuple[int, int]]
    was_near: list[bool]
    entered: list[tuple[int, int]]
    left: list[tuple[int, int]]
    outside: dict[int, tuple[int, ...]]
    nodes: int  # length of the new order


def window_delta(
    outside: Iterable[Sequence],
    old_region: Iterable[Key],
    new_region: Iterable[Key],
    distance: int,
) -> WindowDelta:
    """Compare the old and the new sorted node order around the region of a run (pure).

    ``outside`` streams the unchanged nodes in key order as rows ``(url_key, id, *ints)``
    (their keys, hence their order, are the same before and after);
    ``old_region``/``new_region`` are the region's nodes as last stored and as computed now.
    Each region node is placed among the outside ones by bisection, chunk by chunk; the rest
    is array arithmetic. Memory: a few integers a node.
    """
    distance = _check_int("distance", distance, 1, "distance=20")
    old_keys, new_keys = sorted(old_region), sorted(new_region)
    # insertion points of the region nodes among the outside nodes, and the outside rows
    at_old: list[int] = []
    at_new: list[int] = []
    parts: list[np.ndarray] = []
    n = io = inew = 0
    rows = iter(outside)
    while chunk := list(islice(rows, DELTA_CHUNK)):
        last = chunk[-1]
        while io < len(old_keys) and old_keys[io] < last:  # type: ignore[operator]
            at_old.append(n + bisect_left(chunk, old_keys[io]))  # type: ignore[type-var]
            io += 1
        while inew < len(new_keys) and new_keys[inew] < last:  # type: ignore[operator]
            at_new.append(n + bisect_left(chunk, new_keys[inew]))  # type: ignore[type-var]
            inew += 1
        parts.append(np.array([row[1:] for row in chunk], dtype=np.int64))
        n += len(chunk)
    at_old += [n] * (len(old_keys) - io)
    at_new += [n] * (len(new_keys) - inew)
    info = np.concatenate(parts) if parts else np.zeros((0, 1), dtype=np.int64)
    ids = info[:, 0]

    # positions in both orders: an outside node is preceded by the region nodes inserted at
    # or before its index; the j-th region node (in key order) by j region nodes
    index = np.arange(n, dtype=np.int64)
    po = index + np.searchsorted(np.asarray(at_old, dtype=np.int64), index, side="right")
    pn = index + np.searchsorted(np.asarray(at_new, dtype=np.int64), index, side="right")
    m = len(new_keys)
    size = n + m
    region_pos = np.asarray(at_new, dtype=np.int64) + np.arange(m, dtype=np.int64)
    order = np.empty(size, dtype=np.int64)
    order[pn] = ids
    order[region_pos] = [key[1] for key in new_keys]
    is_region = np.zeros(size, dtype=bool)
    is_region[region_pos] = True
    outside_at = np.full(size, -1, dtype=np.int64)  # new position -> outside row
    outside_at[pn] = index

    firsts: list[np.ndarray] = []
    seconds: list[np.ndarray] = []
    for k in range(1, distance + 1):
        later = region_pos + k  # the region node first
        ok = later < size
        firsts.append(region_pos[ok])
        seconds.append(later[ok])
        earlier = region_pos - k  # an outside node first (region-region pairs come above)
        ok = earlier >= 0
        ok[ok] = ~is_region[earlier[ok]]
        firsts.append(earlier[ok])
        seconds.append(region_pos[ok])
    first = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
    second = np.concatenate(seconds) if seconds else np.zeros(0, dtype=np.int64)
    by_position = np.lexsort((second, first))
    first, second = first[by_position], second[by_position]
    region = list(zip(order[first].tolist(), order[second].tolist(), strict=True))
    # old positions by new position (-1: not in the old order)
    old_at = np.full(size, -1, dtype=np.int64)
    old_at[pn] = po
    was_at = {key[1]: at + j for j, (key, at) in enumerate(zip(old_keys, at_old, strict=True))}
    old_at[region_pos] = [was_at.get(key[1], -1) for key in new_keys]
    o1, o2 = old_at[first], old_at[second]
    was_near = ((o1 >= 0) & (o2 >= 0) & (np.abs(o2 - o1) <= distance)).tolist()

    entered_idx: list[tuple[np.ndarray, np.ndarray]] = []
    left_idx: list[tuple[np.ndarray, np.ndarray]] = []
    # two outside nodes change window membership only when fewer than `distance` outside
    # nodes lie between them, so offsets up to `distance` in the outside order cover them all
    for k in range(1, min(distance, n - 1) + 1):
        d_old, d_new = po[k:] - po[:-k], pn[k:] - pn[:-k]
        came = np.flatnonzero((d_new <= distance) & (d_old > distance))
        went = np.flatnonzero((d_old <= distance) & (d_new > distance))
        entered_idx.append((came, came + k))
        left_idx.append((went, went + k))

    def id_pairs(found: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[int, int]]:
        return [
            pair for a, b in found for pair in zip(ids[a].tolist(), ids[b].tolist(), strict=True)
        ]

    used = [outside_at[first], outside_at[second]]
    used += [x for pair in entered_idx + left_idx for x in pair]
    rows_used = np.unique(np.concatenate(used)) if used else np.zeros(0, dtype=np.int64)
    rows_used = rows_used[rows_used >= 0]
    extra = {int(r[0]): tuple(r[1:]) for r in info[rows_used].tolist()}
    return WindowDelta(
        region, was_near, id_pairs(entered_idx), id_pairs(left_idx), extra, size
    )
