"""Word n-gram shingles hashed to unsigned 64-bit integers, and exact Jaccard similarity.

The input text is expected to be normalized already (NFKC, case-folded, whitespace collapsed),
so the tokens are ``text.split()``, except that each character of a script written without
spaces (Chinese, Japanese, Thai...) is a token of its own (:func:`~.text.tokens`): such text is
shingled on character n-grams. A shingle starts at every token and spans ``size`` tokens, or
``min(size, 3)`` (``kernels.UNSPACED_SHINGLE_SIZE``) when it starts at a character of an
unspaced script: about as much text as a 5-word shingle holds in Chinese or Japanese is
three characters, and a changed character then breaks three shingles, not five (measured on
three generators' corpora: README, "Quality").

Hashing scheme (stable across processes, machines and Python versions; never ``hash()``):

* each word is hashed once with ``zlib.crc32`` of its UTF-8 bytes (a 32-bit value), plus
  ``2**32`` when it is a character of an unspaced script;
* the ``size`` word hashes of a shingle are combined with a vectorized Horner scheme
  ``acc = acc * C + w`` (uint64, wrapping) starting from a fixed non-zero value, so the order and
  the number of words both matter;
* the result goes through the MurmurHash3 64-bit finalizer (a bijection) to spread the bits.

The loops run compiled (:mod:`.kernels`) over the text's UTF-8 bytes;
``tests/algorithms/test_kernels.py`` checks them against this definition written in plain
Python and numpy.

>>> shingle_hashes("a b c d e f", size=5).size
2
>>> jaccard(shingle_set("a b c d e f g"), shingle_set("a b c d e f h"))
0.5
"""

from __future__ import annotations

from collections.abc import Set

import numpy as np

from .text import compiled

__all__ = ["DEFAULT_SHINGLE_SIZE", "jaccard", "shingle_hashes", "shingle_set", "fmix64"]

DEFAULT_SHINGLE_SIZE = 5

_U64 = np.uint64
_FMIX_C1 = _U64(0xFF51AFD7ED558CCD)
_FMIX_C2 = _U64(0xC4CEB9FE1A85EC53)
_S33 = _U64(33)


def fmix64(h: np.ndarray) -> np.ndarray:
    """Apply the MurmurHash3 64-bit finalizer in place to a uint64 array and return it.

    It is a bijection on 64-bit values with good avalanche.

    >>> int(fmix64(np.array([0, 1], dtype=np.uint64))[1])
    12994781566227106604
    """
    h ^= h >> _S33
    h *= _FMIX_C1
    h ^= h >> _S33
    h *= _FMIX_C2
    h ^= h >> _S33
    return h


def _check_size(size: int) -> None:
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 1:
        raise ValueError(f"size must be a positive int (words per shingle, e.g. 5), got {size!r}")


def shingle_hashes(text: str, size: int = DEFAULT_SHINGLE_SIZE) -> np.ndarray:
    """Return the sorted unique uint64 hashes of the token ``size``-grams of ``text``.

    A text too short for any shingle (fewer than ``size`` words) gives a single shingle made of
    all its words; an empty (or all-whitespace) text gives an empty array.

    >>> h = shingle_hashes("one two three four five six")
    >>> h.dtype, h.size
    (dtype('uint64'), 2)
    >>> shingle_hashes("just three words").size
    1
    >>> shingle_hashes("").size
    0
    >>> shingle_hashes("东京都渋谷区").size  # character trigrams
    4
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str (decode bytes first), got {type(text).__name__}")
    return shingle_hashes_utf8(text, size)


def shingle_hashes_utf8(text: str | bytes, size: int = DEFAULT_SHINGLE_SIZE) -> np.ndarray:
    """:func:`shingle_hashes` of a text or of its UTF-8 bytes (a normalized text as the
    pipeline keeps it: :attr:`~.text.TextDigest.utf8`).

    >>> bool((shingle_hashes_utf8("東京 a b".encode()) == shingle_hashes("東京 a b")).all())
    True
    """
    _check_size(size)
    acc = compiled().shingle_hashes_utf8(text, int(size))
    if acc.size > 1:  # sort + neighbour mask: several times faster than numpy 2's np.unique
        acc.sort()
        keep = np.empty(acc.size, dtype=bool)
        keep[0] = True
        np.not_equal(acc[1:], acc[:-1], out=keep[1:])
        acc = acc[keep]
    return acc


def shingle_set(text: str, size: int = DEFAULT_SHINGLE_SIZE) -> set[int]:
    """Return the shingle hashes of ``text`` as a Python ``set`` of ints.

    >>> shingle_set("a b c", size=2) == shingle_set("a b c", size=2)
    True
    >>> len(shingle_set("a b c", size=2))
    2
    """
    return set(shingle_hashes(text, size).tolist())


def jaccard(a: Set[int] | np.ndarray, b: Set[int] | np.ndarray) -> float:
    """Exact Jaccard similarity |a & b| / |a | b| of two shingle sets (sets or arrays).

    Arrays may hold repeated values (they are treated as sets). Two empty sets give 0.0.

    >>> jaccard({1, 2, 3}, {2, 3, 4})
    0.5
    >>> jaccard(np.array([1, 2], dtype=np.uint64), {1, 2})
    1.0
    >>> jaccard(set(), set())
    0.0
    """
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.ndim != 1 or b.ndim != 1:
            raise ValueError("jaccard() needs 1-D arrays of shingle hashes (pass one text each)")
        ua = np.unique(a)
        ub = np.unique(b)
        inter = int(np.intersect1d(ua, ub, assume_unique=True).size)
        union = ua.size + ub.size - inter
    else:
        sa = _as_set(a)
        sb = _as_set(b)
        inter = len(sa & sb)
        union = len(sa) + len(sb) - inter
    return inter / union if union else 0.0


def _as_set(x: Set[int] | np.ndarray) -> Set[int]:
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise ValueError("jaccard() needs 1-D arrays of shingle hashes (pass one text each)")
        return set(x.tolist())
    if isinstance(x, Set):
        return x
    raise ValueError(
        f"jaccard() takes sets or numpy arrays of shingle hashes, got {type(x).__name__}; "
        "wrap other iterables in set(...)"
    )
