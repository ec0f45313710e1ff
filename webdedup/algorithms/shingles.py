"""Word n-gram shingles hashed to unsigned 64-bit integers, and exact Jaccard similarity.

The input text is expected to be normalized already (NFKC, case-folded, whitespace collapsed),
so the tokens are ``text.split()``, except that each character of a script written without
spaces (Chinese, Japanese, Thai...) is a token of its own (:func:`~.text.tokens`): such text is
shingled on character n-grams.

Hashing scheme (stable across processes, machines and Python versions; never ``hash()``):

* each word is hashed once with ``zlib.crc32`` of its UTF-8 bytes (a 32-bit value);
* the ``size`` word hashes of a shingle are combined with a vectorized Horner scheme
  ``acc = acc * C + w`` (uint64, wrapping) starting from a fixed non-zero value, so the order and
  the number of words both matter;
* the result goes through the MurmurHash3 64-bit finalizer (a bijection) to spread the bits.

>>> shingle_hashes("a b c d e f", size=5).size
2
>>> jaccard(shingle_set("a b c d e f g"), shingle_set("a b c d e f h"))
0.5
"""

from __future__ import annotations

import zlib
from collections.abc import Set

import numpy as np

from .text import has_unspaced
from .text import tokens as text_tokens

__all__ = ["DEFAULT_SHINGLE_SIZE", "jaccard", "shingle_hashes", "shingle_set", "fmix64"]

DEFAULT_SHINGLE_SIZE = 5

_U64 = np.uint64
_INIT = _U64(0x243F6A8885A308D3)  # pi digits: non-zero start so the word count matters
_MULT = _U64(0x9E3779B97F4A7C15)  # odd 64-bit constant (golden ratio)
_FMIX_C1 = _U64(0xFF51AFD7ED558CCD)
_FMIX_C2 = _U64(0xC4CEB9FE1A85EC53)
_S33 = _U64(33)
# Characters str.split() treats as whitespace but bytes.split() does not (ASCII ones first).
_ASCII_ONLY_STR_WHITESPACE = "\x1c\x1d\x1e\x1f"
_NON_ASCII_WHITESPACE = (
    "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _needs_str_split(text: str) -> bool:
    """True if ``text`` holds whitespace that bytes.split() would not split on."""
    if any(c in text for c in _ASCII_ONLY_STR_WHITESPACE):
        return True
    return not text.isascii() and any(c in text for c in _NON_ASCII_WHITESPACE)


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

    A text with fewer than ``size`` words gives a single shingle made of all its words; an empty
    (or all-whitespace) text gives an empty array.

    >>> h = shingle_hashes("one two three four five six")
    >>> h.dtype, h.size
    (dtype('uint64'), 2)
    >>> shingle_hashes("just three words").size
    1
    >>> shingle_hashes("").size
    0
    >>> shingle_hashes("东京都渋谷区").size  # character 5-grams
    2
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str (decode bytes first), got {type(text).__name__}")
    _check_size(size)
    # bytes.split() (fast) splits on ASCII whitespace only. A normalized text has plain spaces
    # only; for any other text fall back to the str.split() words so tokens == text.split().
    if has_unspaced(text):
        tokens = [w.encode("utf-8", "surrogatepass") for w in text_tokens(text)]
    elif _needs_str_split(text):
        tokens = [w.encode("utf-8", "surrogatepass") for w in text.split()]
    else:
        tokens = text.encode("utf-8", "surrogatepass").split()
    words = np.fromiter(map(zlib.crc32, tokens), dtype=np.uint64, count=len(tokens))
    n_words = words.size
    if n_words == 0:
        return np.empty(0, dtype=np.uint64)
    n = min(int(size), n_words)
    m = n_words - n + 1
    acc = np.full(m, _INIT, dtype=np.uint64)
    for j in range(n):
        acc *= _MULT
        acc += words[j : j + m]
    fmix64(acc)
    if m > 1:
        acc.sort()
        keep = np.empty(m, dtype=bool)
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
