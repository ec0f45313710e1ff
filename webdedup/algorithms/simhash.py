"""64-bit SimHash compatible with ``trafilatura.deduplication.Simhash``, plus Hamming banding.

:func:`simhash` re-implements trafilatura 2.3's algorithm (it does not import trafilatura):

* tokens: whitespace-split words stripped of ASCII punctuation, kept if ``str.isalnum()``; if
  none survive, the text with every Unicode punctuation character (category ``P*``) replaced by a
  space is split and alphanumeric tokens kept;
* sampling: the tokens longer than ``i`` characters for the first ``i`` in 4, 3, 2, 1 that leaves
  at least 32 of them, else all tokens;
* each token (every occurrence) votes +1/-1 per bit of ``blake2b(token, digest_size=8)`` read
  big-endian; bit ``i`` is set when its vote total is >= 0 (so no tokens gives ``2**64 - 1``).

>>> hamming(0b1011, 0b0001)
2
>>> similarity(0, 1)
0.984375
"""

from __future__ import annotations

import math
import string
import unicodedata
from hashlib import blake2b
from itertools import combinations

import numpy as np

__all__ = [
    "hamming_distances",
    "HASH_BITS",
    "band_keys",
    "band_keys_array",
    "band_layout",
    "hamming",
    "band_distance_for",
    "candidate_distance_for",
    "max_distance_for",
    "similarity",
    "simhash",
]

HASH_BITS = 64
_MASK64 = (1 << HASH_BITS) - 1
_SAMPLE_LENGTH = 64  # trafilatura passes the hash length (64) as the sample length


def _strip_unicode_punctuation(text: str) -> str:
    return "".join(" " if unicodedata.category(c)[0] == "P" else c for c in text)


def _tokens(text: str) -> list[str]:
    punct = string.punctuation
    tokens = [t for token in text.split() if (t := token.strip(punct)).isalnum()]
    if not tokens:
        tokens = [t for t in _strip_unicode_punctuation(text).split() if t.isalnum()]
    for i in range(4, 0, -1):
        sample = [t for t in tokens if len(t) > i]
        if len(sample) >= _SAMPLE_LENGTH / 2:
            return sample
    return tokens


def simhash(text: str) -> int:
    """Return the 64-bit SimHash of ``text`` (unsigned, equal to trafilatura's ``Simhash.hash``).

    >>> simhash("") == 2**64 - 1
    True
    >>> hamming(simhash("the cat sat on the mat"), simhash("the cat sat on a mat")) < 16
    True
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str (decode bytes first), got {type(text).__name__}")
    tokens = _tokens(text)
    if not tokens:
        return _MASK64
    digests = b"".join(blake2b(t.encode(), digest_size=8).digest() for t in tokens)
    # Row k holds token k's 64 bits, most significant first.
    bits = np.unpackbits(np.frombuffer(digests, dtype=np.uint8).reshape(len(tokens), 8), axis=1)
    votes_for = bits.sum(axis=0, dtype=np.int64)
    keep = 2 * votes_for >= len(tokens)  # (+1) * set + (-1) * unset >= 0
    return int.from_bytes(np.packbits(keep).tobytes(), "big")


def _check_hash(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an int SimHash, got {value!r}")
    value = int(value)
    if value < 0:
        if value < -(1 << 63):
            raise ValueError(f"{name} must fit 64 bits, got {value}")
        value &= _MASK64  # accept the signed int64 form stored in SQLite
    elif value > _MASK64:
        raise ValueError(f"{name} must fit 64 bits, got {value}")
    return value


def hamming(a: int, b: int) -> int:
    """Number of differing bits of two 64-bit hashes (signed int64 forms are accepted).

    >>> hamming(-1, 2**64 - 1)
    0
    """
    return (_check_hash("a", a) ^ _check_hash("b", b)).bit_count()


_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def hamming_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise Hamming distances of two uint64 arrays of SimHashes.

    >>> hamming_distances(np.array([0, 7], dtype=np.uint64), np.array([1, 0], dtype=np.uint64))
    array([1, 3])
    """
    x = np.bitwise_xor(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64))
    return _POPCOUNT8[x.view(np.uint8)].reshape(-1, 8).sum(axis=1, dtype=np.int64)


def similarity(a: int, b: int) -> float:
    """trafilatura's SimHash similarity: ``(64 - hamming(a, b)) / 64``.

    >>> similarity(5, 5)
    1.0
    """
    return (HASH_BITS - hamming(a, b)) / HASH_BITS


def max_distance_for(threshold: float) -> int:
    """Largest Hamming distance ``d`` with ``(64 - d) / 64 >= threshold``.

    >>> max_distance_for(0.9), max_distance_for(0.75), max_distance_for(1.0)
    (6, 16, 0)
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise ValueError(f"threshold must be a float in (0, 1], e.g. 0.9; got {threshold!r}")
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], e.g. 0.9; got {threshold}")
    d = int(HASH_BITS * (1.0 - threshold) + 1e-9)
    while d > 0 and (HASH_BITS - d) / HASH_BITS < threshold:  # guard against float rounding
        d -= 1
    return min(d, HASH_BITS - 1)


def candidate_distance_for(threshold: float) -> int:
    """The Hamming distance within which two SimHashes make a candidate pair at ``threshold``:
    :func:`max_distance_for` ``d`` plus ``ceil(sqrt(d))`` bits (at least one).

    The SimHash distance follows the Levenshtein ratio only loosely: the bits that differ
    are a count whose spread grows about as the square root of its mean (on
    ``make_ratio_pairs.py``'s pairs of ratio 0.92-0.94 the median distance was 5 bits, a tenth
    of them 9 or more). The candidates are verified on their texts, so the margin only
    proposes more of the pairs above the threshold (of those more than 0.02 above 0.85 / 0.9
    / 0.95, 95 / 93 / 93 % within 12 / 9 / 5 bits, against 87 / 78 / 69 % within 9 / 6 / 3).

    >>> candidate_distance_for(0.9), candidate_distance_for(0.85), candidate_distance_for(1.0)
    (9, 12, 1)
    """
    d = max_distance_for(threshold)
    return min(d + max(1, math.ceil(math.sqrt(d))), HASH_BITS - 1)


#: The widest candidate distance banded whole: pairs of 7 blocks, 21 keys of 18 bits or more
#: a page, which random hashes share about once in 12,000 pairs. Wider candidate distances
#: are banded at the threshold's own distance (the bands of 0.9 and under are as before:
#: 28 keys of 16 bits at 0.9).
CHEAP_BAND_DISTANCE = 5


def band_distance_for(threshold: float) -> int:
    """The Hamming distance the band keys guarantee to find at ``threshold``: the candidate
    distance (:func:`candidate_distance_for`) where its keys are cheap (up to
    :data:`CHEAP_BAND_DISTANCE`), else the threshold's own (:func:`max_distance_for`) or that
    cheap one, the wider. Pairs further apart, up to the candidate distance, are still found
    when they share a key by their untouched blocks (most do: of two hashes 9 bits apart cut
    into 8 blocks, about 2.4 blocks are untouched).

    >>> band_distance_for(0.95), band_distance_for(0.9), band_distance_for(0.85)
    (5, 6, 9)
    """
    cheap = max(max_distance_for(threshold), CHEAP_BAND_DISTANCE)
    return min(candidate_distance_for(threshold), cheap)


def band_layout(max_distance: int) -> list[tuple[int, int]]:
    """Return the ``(shift, width)`` of each of the ``max_distance + 1`` bands over 64 bits.

    The first ``64 % (max_distance + 1)`` bands are one bit wider.

    >>> band_layout(2)
    [(0, 22), (22, 21), (43, 21)]
    """
    if isinstance(max_distance, bool) or not isinstance(max_distance, int | np.integer):
        raise ValueError(f"max_distance must be an int in [0, 63], got {max_distance!r}")
    if not 0 <= max_distance < HASH_BITS:
        raise ValueError(
            f"max_distance must be in [0, 63] (use max_distance_for(threshold)), got {max_distance}"
        )
    return _blocks(int(max_distance) + 1)


def _blocks(n: int) -> list[tuple[int, int]]:
    """``n`` consecutive blocks over the 64 bits, the first ``64 % n`` one bit wider."""
    base, extra = divmod(HASH_BITS, n)
    layout = []
    shift = 0
    for i in range(n):
        width = base + (1 if i < extra else 0)
        layout.append((shift, width))
        shift += width
    return layout


#: Up to this distance the 64 bits are cut into ``max_distance + 2`` blocks and every pair of
#: blocks is a key (91 keys at most, of 8 bits at least): two blocks are always left
#: untouched, and a pair of blocks collides by chance far less often than one block (at 11
#: bits a run over 20,000 real-length pages peaked at 1.6 GB with pairs of blocks, 2.4 GB
#: with single blocks).
PAIRED_MAX_DISTANCE = 12
_PAIRED = 1 << 56  # marks the keys of paired blocks


def band_keys(h: int, max_distance: int) -> list[int]:
    """Pigeonhole band keys: hashes within ``max_distance`` bits share at least one key.

    ``d`` differing bits touch at most ``d`` blocks of the 64 bits. For ``2 <= d <=``
    :data:`PAIRED_MAX_DISTANCE` the bits are cut into ``d + 2`` blocks and each pair of blocks
    gives a key (at least two blocks are equal, so their pair is); otherwise into ``d + 1``
    bands (:func:`band_layout`), one key each (one band is equal). Keys are signed int64
    (SQLite INTEGER): for ``d == 0`` the hash itself; else ``(count << 40) | (index << 32) |
    bits``, with :data:`_PAIRED` set for pairs (the bits of a key are at most 32 wide). Keys
    are comparable only between hashes banded with the same ``max_distance``.

    >>> band_keys(0xFF, 1)
    [2199023255807, 2203318222848]
    >>> len(band_keys(0xFF, 6))  # 8 blocks of 8 bits, 28 pairs of them
    28
    >>> set(band_keys(0b1, 3)) & set(band_keys(0b11, 3)) != set()
    True
    """
    value = _check_hash("h", h)
    layout = band_layout(max_distance)
    if len(layout) == 1:
        return [value - (1 << 64) if value >= 1 << 63 else value]
    if 2 <= max_distance <= PAIRED_MAX_DISTANCE:
        blocks = [
            ((value >> shift) & ((1 << width) - 1), width)
            for shift, width in _blocks(max_distance + 2)
        ]
        pairs = list(combinations(blocks, 2))
        count = len(pairs)
        return [
            _PAIRED | (count << 40) | (i << 32) | (a << wb) | b
            for i, ((a, _), (b, wb)) in enumerate(pairs)
        ]
    n = len(layout)
    return [
        (n << 40) | (i << 32) | ((value >> shift) & ((1 << width) - 1))
        for i, (shift, width) in enumerate(layout)
    ]


def band_keys_array(hashes: np.ndarray, max_distance: int) -> np.ndarray:
    """:func:`band_keys` of many hashes at once: an ``(n, keys)`` int64 matrix (row ``i`` is
    ``band_keys(hashes[i], max_distance)``).

    >>> band_keys_array(np.array([0xFF], dtype=np.uint64), 1).tolist()
    [[2199023255807, 2203318222848]]
    """
    h = np.asarray(hashes, dtype=np.uint64).reshape(-1)
    layout = band_layout(max_distance)
    if len(layout) == 1:
        return h.view(np.int64).reshape(-1, 1).copy()

    def bits(shift: int, width: int) -> np.ndarray:
        return (h >> np.uint64(shift)) & np.uint64((1 << width) - 1)

    columns = []
    if 2 <= max_distance <= PAIRED_MAX_DISTANCE:
        pairs = list(combinations(_blocks(max_distance + 2), 2))
        for i, ((sa, wa), (sb, wb)) in enumerate(pairs):
            tag = np.uint64(_PAIRED | (len(pairs) << 40) | (i << 32))
            columns.append(tag | (bits(sa, wa) << np.uint64(wb)) | bits(sb, wb))
    else:
        for i, (shift, width) in enumerate(layout):
            columns.append(np.uint64((len(layout) << 40) | (i << 32)) | bits(shift, width))
    return np.stack(columns, axis=1).view(np.int64) if columns else np.empty((len(h), 0), np.int64)
