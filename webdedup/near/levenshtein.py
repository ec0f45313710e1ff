"""Sliding-window near-duplicate detection with the normalized Indel similarity.

The caller sorts the texts (by canonical URL) so that likely duplicates are close; each text is
compared with the next ``distance`` texts. The score is the normalized Indel similarity
``1 - indel_distance / (len_a + len_b)`` (rapidfuzz ``Indel.normalized_similarity``, equal to
``Levenshtein.ratio`` and to ``fuzz.ratio / 100``), 1.0 for two empty texts.

Pairs that cannot reach the threshold by length alone (``2 * min / (len_a + len_b)`` is an
upper bound of the score) are skipped before any string comparison; the others are scored in
blocks with ``rapidfuzz.process.cpdist`` (pairwise, native threads with ``workers``, memory
bounded by ``block_size * distance`` pairs).

>>> list(window_pairs(["abcdef", "abcdeg", "zzzzzz"], distance=2, threshold=0.8))
[(0, 1, 0.8333333333333334)]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Indel

__all__ = ["window_pairs"]

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
        la, lb = lengths[ii], lengths[jj]
        total = la + lb
        # Upper bound of the Indel ratio: 2 * min / (la + lb); two empty texts score 1.0.
        bound = np.where(total > 0, 2.0 * np.minimum(la, lb) / np.maximum(total, 1), 1.0)
        possible = bound >= threshold - 1e-12  # float slack: never drop a reachable pair
        ii, jj = ii[possible], jj[possible]
        if ii.size == 0:
            continue
        scores = process.cpdist(
            [window[i] for i in ii.tolist()],
            [window[j] for j in jj.tolist()],
            scorer=Indel.normalized_similarity,
            score_cutoff=threshold,
            dtype=np.float64,
            workers=workers,
        )
        hit = scores >= threshold
        for i, j, s in zip(ii[hit].tolist(), jj[hit].tolist(), scores[hit].tolist(), strict=True):
            yield start + i, start + j, s
