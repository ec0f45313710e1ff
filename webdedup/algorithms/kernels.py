"""Compiled kernels (numba) for the per-byte hot loops: tokens, shingle hashes, MinHash.

They compute **bit for bit** what the reference definitions compute (the tests compare them
on real texts in many scripts): the tokens of :func:`~.text.tokens` (a maximal run of
non-whitespace characters, except that each character of a script written without spaces
is a token of its own), ``zlib.crc32`` of each token's UTF-8 bytes, the Horner combination
and MurmurHash3 finalizer of :mod:`.shingles`, and the ``(a * x + b) mod 2**32``
permutations of :class:`~.minhash.MinHasher`. Python's ``str.split`` whitespace and the
unspaced scripts' ranges are written out below; a test checks them against Python for
every code point.

The kernels read a text's UTF-8 bytes (``str.encode("utf-8", "surrogatepass")``) once,
with no Python object per word, which is what makes phase 1 fast (``benchmarks/speed/bench.py``).
They are compiled on first use and cached on disk by numba (``cache=True``), so a run pays
the compilation (a few seconds) once per machine and numba version.
"""

from __future__ import annotations

import sys

import numba as nb
import numpy as np

#: Numba's module that probes for a BLAS when imported.
_PROBING = "numba.np.arraymath"


def _no_blas() -> None:
    raise ImportError("webdedup's kernels use no BLAS")


def _numba_without_blas_probe() -> None:
    """Import numba's array-math module with its probe for a BLAS answered "none".

    Numba's first compiled call imports ``numba.np.arraymath``, which probes for a BLAS by
    calling ``numba.np.linalg.ensure_blas``, which imports ``scipy.linalg``: 0.35 of the
    1.55 CPU-s numba took to start here (``benchmarks/studies/start_costs.py``). No kernel
    here uses a BLAS. The module is imported
    with ``ensure_blas`` swapped for one that answers "none", then put back; no import of
    any other thread is touched. What the answer changes: numba's ``np.convolve`` and
    ``np.correlate`` (in any numba code of the process) sum in a loop of their own instead
    of SciPy's BLAS (a float result may differ in its last bits); ``np.dot`` and the rest of
    ``numba.np.linalg`` still import SciPy when first compiled. Nothing is done when numba's
    module is loaded already, or SciPy's BLAS (then the probe costs nothing).
    """
    if _PROBING in sys.modules or "scipy.linalg.cython_blas" in sys.modules:
        return
    import numba.np.linalg as linalg

    probe = getattr(linalg, "ensure_blas", None)
    if probe is None:  # another numba: its own start, as it is
        return
    linalg.ensure_blas = _no_blas  # the module binds it by name, and calls it once, now
    try:
        __import__(_PROBING)
    finally:
        linalg.ensure_blas = probe


_numba_without_blas_probe()  # before any kernel is called

__all__ = [
    "band_collisions",
    "coverage",
    "fold_tail",
    "length_parts",
    "digest_parts",
    "minhash_signature",
    "normalize_utf8",
    "shared_count",
    "shingle_hashes_utf8",
    "span_density",
    "text_bytes",
    "token_crc32",
    "token_values",
    "token_weights",
    "warm_up",
    "cache_indexes",
]

_U64 = np.uint64
_INIT = _U64(0x243F6A8885A308D3)  # the values of shingles.py (checked by the tests)
_MULT = _U64(0x9E3779B97F4A7C15)
_FMIX_C1 = _U64(0xFF51AFD7ED558CCD)
_FMIX_C2 = _U64(0xC4CEB9FE1A85EC53)
_S33 = _U64(33)
_S32 = _U64(32)
_LOW32 = _U64(0xFFFFFFFF)
_EMPTY = _U64((1 << 64) - 1)
#: A token that is one character of a script written without spaces carries this bit above
#: its CRC-32 (so its shingles are the shorter ones of :data:`UNSPACED_SHINGLE_SIZE`).
_UNSPACED_BIT = _U64(1 << 32)
#: Tokens in a shingle that starts at a character of an unspaced script (Chinese, Japanese,
#: Thai...): character trigrams, about a word and a half, where a word shingle has
#: ``shingle_size`` words (never more than it). Chosen by measurement on three generators
#: (README, "Quality").
UNSPACED_SHINGLE_SIZE = 3

def _crc_table() -> np.ndarray:
    """The reflected CRC-32 (IEEE 802.3, zlib's) tables for up to eight bytes at a step
    ("slicing-by-8"): ``table[0, i]`` is one round on byte ``i``, ``table[k, i]`` that round
    followed by ``k`` rounds on zero bytes."""
    table = np.empty((8, 256), dtype=np.int64)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table[0, i] = c
    for k in range(1, 8):
        for i in range(256):
            prev = table[k - 1, i]
            table[k, i] = (prev >> 8) ^ table[0, prev & 0xFF]
    return table


_TABLE = _crc_table()


def _crc_starts(table: np.ndarray) -> np.ndarray:
    """``starts[k]`` (``k`` < 8): the CRC register from which ``k`` rounds on zero bytes reach
    zlib's initial ``0xFFFFFFFF`` (a round on a zero byte is invertible: the top byte of
    ``table[0, i]`` differs for each ``i``). The CRC of a text is then that of the text
    after ``k`` zero bytes, begun from ``starts[k]``: :func:`_crc32_words` puts a token of
    fewer than eight bytes at the end of an eight-byte step so."""
    top = {int(table[0, i]) >> 24: i for i in range(256)}
    starts, register = [0xFFFFFFFF], 0xFFFFFFFF
    for _ in range(7):
        i = top[register >> 24]
        register = ((register ^ int(table[0, i])) << 8 | i) & 0xFFFFFFFF
        starts.append(register)
    return np.array(starts, dtype=np.int64)


_CRC_STARTS = _crc_starts(_TABLE)


@nb.njit(cache=True, nogil=True, inline="always")
def _is_space(cp: int) -> bool:
    """``chr(cp).isspace()`` (what ``str.split()`` splits on)."""
    if cp < 0x80:
        return (9 <= cp <= 13) or (28 <= cp <= 32)
    if cp < 0x1680:
        return cp == 0x85 or cp == 0xA0
    return (
        cp == 0x1680
        or (0x2000 <= cp <= 0x200A)
        or cp == 0x2028
        or cp == 0x2029
        or cp == 0x202F
        or cp == 0x205F
        or cp == 0x3000
    )


@nb.njit(cache=True, nogil=True, inline="always")
def _is_unspaced(cp: int) -> bool:
    """Whether ``cp`` matches :data:`~.text.UNSPACED` (CJK, Kana, Thai, Lao, Khmer...)."""
    if cp < 0x0E00:
        return False
    if cp <= 0x0EFF:
        return True
    if cp < 0x1000:
        return False
    return (
        cp <= 0x109F
        or (0x1780 <= cp <= 0x17FF)
        or (0x19E0 <= cp <= 0x19FF)
        or (0x3040 <= cp <= 0x30FF)
        or (0x31F0 <= cp <= 0x31FF)
        or (0x3400 <= cp <= 0x4DBF)
        or (0x4E00 <= cp <= 0x9FFF)
        or (0xF900 <= cp <= 0xFAFF)
        or (0xFF66 <= cp <= 0xFF9F)
        or (0x20000 <= cp <= 0x3134F)
    )


@nb.njit(cache=True, nogil=True, inline="always")
def _decode(buf: np.ndarray, i: int, n: int) -> tuple[int, int]:
    """The code point of the UTF-8 sequence at ``buf[i]`` and its width (in bytes)."""
    b = np.int64(buf[i])
    if b < 0x80:
        return b, 1
    if b < 0xE0:
        cp, width = b & 0x1F, 2
    elif b < 0xF0:
        cp, width = b & 0x0F, 3
    else:
        cp, width = b & 0x07, 4
    if i + width > n:  # a cut sequence (not from str.encode): its bytes end the text
        width = n - i
    for k in range(1, width):
        cp = (cp << 6) | (np.int64(buf[i + k]) & 0x3F)
    return cp, width


@nb.njit(cache=True, nogil=True, inline="always")
def _is_cjk(cp: int) -> bool:
    """Whether ``cp`` matches :data:`~.text._CJK` (Han, Hiragana, Katakana)."""
    return _is_unspaced(cp) and not (
        cp <= 0x0EFF or cp <= 0x109F or (0x1780 <= cp <= 0x17FF) or (0x19E0 <= cp <= 0x19FF)
    )


#: Eight ASCII bytes at a time, in one 64-bit word (:func:`_normalize`, :func:`_digest_parts`):
#: the high bit of each byte, and the sums that move a byte from 9, 14, 28 and 33 up into
#: its high bit (no carry out of an ASCII byte): bytes in 9-13 and 28-32 are whitespace;
#: 45 is a hyphen, 65-90 the upper-case letters.
_HIGH = _U64(0x8080808080808080)
_BYTES = _U64(0x0101010101010101)
_FROM_9, _FROM_14 = _U64(0x77 * 0x0101010101010101), _U64(0x72 * 0x0101010101010101)
_FROM_28, _FROM_33 = _U64(0x64 * 0x0101010101010101), _U64(0x5F * 0x0101010101010101)
_FROM_45, _FROM_46 = _U64(0x53 * 0x0101010101010101), _U64(0x52 * 0x0101010101010101)
_FROM_65, _FROM_91 = _U64(0x3F * 0x0101010101010101), _U64(0x25 * 0x0101010101010101)
_SPACES = _U64(0x20 * 0x0101010101010101)
_S7, _S8, _S56 = _U64(7), _U64(8), _U64(56)
#: The word steps read a byte's neighbour as the next lower byte of a word.
_LITTLE_ENDIAN = sys.byteorder == "little"


@nb.njit(cache=True, nogil=True)
def _digest_parts(buf: np.ndarray, cap: int) -> tuple[int, int, int, int, int]:
    """(characters, other tokens, CJK characters, South-East Asian characters, the byte
    offset of character ``cap``, or the size when there are fewer) of UTF-8 ``buf``.

    Eight ASCII bytes at a time where they are (most of the bytes of most texts, Latin
    accents and all: three times faster on real texts than a byte at a time): a byte is
    whitespace when it lies in 9-13 or 28-32, a token starts at a byte that is not after
    one that is, both found for the eight bytes at once in one 64-bit word."""
    n = buf.size
    chars = other = cjk = sea = 0
    cut = n
    in_run = False
    words = buf[: n - n % 8].view(np.uint64)
    i = 0
    while i < n:
        if _LITTLE_ENDIAN and i % 8 == 0 and i + 8 <= n:
            w = words[i // 8]
            if (w & _HIGH) == 0:  # eight ASCII bytes
                if cut == n and chars + 8 > cap:
                    cut = i + cap - chars
                space = (((w + _FROM_9) & ~(w + _FROM_14)) | ((w + _FROM_28) & ~(w + _FROM_33)))
                space &= _HIGH
                after_space = (space << _S8) | (_U64(0) if in_run else _U64(0x80))
                starts = ~space & _HIGH & after_space
                other += np.int64(((starts >> _S7) * _BYTES) >> _S56)
                in_run = (space >> _S56) == 0
                chars += 8
                i += 8
                continue
        if chars == cap and cut == n:
            cut = i
        chars += 1
        b = buf[i]
        if b < 0x80:  # ASCII
            if (9 <= b <= 13) or (28 <= b <= 32):
                in_run = False
            elif not in_run:
                in_run = True
                other += 1
            i += 1
            continue
        cp, width = _decode(buf, i, n)
        if _is_space(cp):
            in_run = False
        elif _is_unspaced(cp):
            in_run = False
            if _is_cjk(cp):
                cjk += 1
            else:
                sea += 1
        elif not in_run:
            in_run = True
            other += 1
        i += width
    return chars, other, cjk, sea, cut


@nb.njit(cache=True, nogil=True, inline="always")
def _typography(cp: int) -> int:
    """The ASCII twin of a typographic quote, apostrophe, dash or minus (text._TYPOGRAPHY)."""
    if cp < 0xAB:
        return -1
    if cp == 0xAB or cp == 0xBB or (0x201C <= cp <= 0x201F):
        return 0x22  # "
    if (0x2018 <= cp <= 0x201B) or cp == 0x2039 or cp == 0x203A:
        return 0x27  # '
    if (0x2010 <= cp <= 0x2015) or cp == 0x2212 or cp == 0xFE58:
        return 0x2D  # -
    return -1


@nb.njit(cache=True, nogil=True, inline="always")
def _put_utf8(out: np.ndarray, size: int, cp: int) -> int:
    """Write ``cp`` as UTF-8 at ``out[size]``; returns the new size."""
    if cp < 0x80:
        out[size] = cp
        return size + 1
    if cp < 0x800:
        out[size] = 0xC0 | (cp >> 6)
        out[size + 1] = 0x80 | (cp & 0x3F)
        return size + 2
    if cp < 0x10000:
        out[size] = 0xE0 | (cp >> 12)
        out[size + 1] = 0x80 | ((cp >> 6) & 0x3F)
        out[size + 2] = 0x80 | (cp & 0x3F)
        return size + 3
    out[size] = 0xF0 | (cp >> 18)
    out[size + 1] = 0x80 | ((cp >> 12) & 0x3F)
    out[size + 2] = 0x80 | ((cp >> 6) & 0x3F)
    out[size + 3] = 0x80 | (cp & 0x3F)
    return size + 4


@nb.njit(cache=True, nogil=True, inline="always")
def _well_formed(buf: np.ndarray, i: int, n: int) -> int:
    """The width of the UTF-8 sequence at ``buf[i]`` (not ASCII) when Python's strict
    decoder reads it (no overlong form, no surrogate, nothing above U+10FFFF, not cut), else 0.
    """
    b = buf[i]
    if 0xC2 <= b <= 0xDF:
        width, lo, hi = 2, 0x80, 0xBF
    elif 0xE0 <= b <= 0xEF:  # E0: no overlong form; ED: no surrogate
        width = 3
        lo = 0xA0 if b == 0xE0 else 0x80
        hi = 0x9F if b == 0xED else 0xBF
    elif 0xF0 <= b <= 0xF4:  # F0: no overlong form; F4: nothing above U+10FFFF
        width = 4
        lo = 0x90 if b == 0xF0 else 0x80
        hi = 0x8F if b == 0xF4 else 0xBF
    else:
        return 0
    if i + width > n or not (lo <= buf[i + 1] <= hi):
        return 0
    for k in range(i + 2, i + width):
        if not (0x80 <= buf[k] <= 0xBF):
            return 0
    return width


@nb.njit(cache=True, nogil=True)
def _normalized_room(buf: np.ndarray, table: np.ndarray) -> int:
    """Bytes that :func:`_normalize` may write for ``buf``, or -1 when ``buf`` is not
    well-formed UTF-8 or a code point of it is not in ``table`` (one light pass: the output
    is then allocated once)."""
    n = buf.size
    limit = table.shape[1]
    room = n + 16
    words = buf[: n - n % 8].view(np.uint64)
    i = 0
    while limit > 0 and i < n:
        if i % 8 == 0 and i + 8 <= n and (words[i // 8] & _HIGH) == 0:
            i += 8  # eight ASCII bytes
            continue
        if buf[i] < 0x80:
            i += 1
            continue
        if _well_formed(buf, i, n) == 0:
            return -1
        cp, width = _decode(buf, i, n)
        i += width
        if cp >= limit or table[0, cp] < 0:
            return -1
        room += max(0, 4 * (table[1, cp] - table[0, cp]) - width)
    return room


@nb.njit(cache=True, nogil=True, inline="always")
def _put8(words: np.ndarray, at: int, w: np.uint64) -> None:
    """Write the eight bytes of ``w`` (the first in its lowest byte) at byte ``at`` of the
    bytes of ``words`` (little-endian), keeping the bytes before it; the bytes after it
    in the next word are not kept (they are written next)."""
    q, r = at >> 3, _U64((at & 7) * 8)
    keep = (_U64(1) << r) - _U64(1)
    words[q] = (words[q] & keep) | (w << r)
    words[q + 1] = (w >> (_U64(56) - r)) >> _S8


@nb.njit(cache=True, nogil=True)
def _normalize(buf: np.ndarray, table: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, bool]:
    """The whole of :func:`~.text.normalize_text` on UTF-8 bytes, with each non-ASCII code
    point mapped through ``table``/``points`` (:func:`~.text.char_table`) and the steps of
    :func:`fold_tail` on what comes out. ``(empty, False)`` when a code point is not in
    the table (the caller then takes the ``str`` steps). An empty table maps every code
    point to itself: the tail steps alone (:func:`fold_tail`)."""
    room = _normalized_room(buf, table)
    if room < 0:
        return np.empty(0, dtype=np.uint8), False
    n = buf.size
    limit = table.shape[1]
    # an ASCII byte writes at most itself, a space at most one the whitespace before it did
    # not write, a code point <= 4 bytes for each code point of its mapping; whole words, so
    # that eight plain ASCII bytes go out in one or two word stores (:func:`_put8`)
    out_words = np.empty(room // 8 + 2, dtype=np.uint64)
    out = out_words.view(np.uint8)
    size = 0
    pending_space = False
    prev_hyphen = False
    prev_class = 0  # the canonical combining class of the last code point (0: a starter)
    words = buf[: n - n % 8].view(np.uint64)
    i = 0
    while i < n:
        if _LITTLE_ENDIAN and i % 8 == 0 and i + 8 <= n and (words[i // 8] & _HIGH) == 0:
            w = words[i // 8]  # eight ASCII bytes: written at once when they are plain
            space = (((w + _FROM_9) & ~(w + _FROM_14)) | ((w + _FROM_28) & ~(w + _FROM_33)))
            space &= _HIGH
            hyphen = (w + _FROM_45) & ~(w + _FROM_46) & _HIGH
            # plain: no whitespace or hyphen next to another, a first byte that is
            # whitespace only right after a written character, a hyphen not after one
            plain = (space & (space << _S8)) == 0 and (hyphen & (hyphen << _S8)) == 0
            if space & _U64(0x80):
                plain = plain and size > 0 and not pending_space
            if hyphen & _U64(0x80):
                plain = plain and not prev_hyphen
            if plain:
                upper = (w + _FROM_65) & ~(w + _FROM_91) & _HIGH
                w |= upper >> _U64(2)  # lower case: + 0x20
                whole = (space >> _S7) * _U64(0xFF)  # each whitespace byte, as a space
                w = (w & ~whole) | (_SPACES & whole)
                if pending_space:  # (the first byte is not whitespace then)
                    out[size] = 0x20
                    size += 1
                _put8(out_words, size, w)
                if space >> _S56:  # the last byte is whitespace: a pending space
                    size += 7
                    pending_space, prev_hyphen = True, False
                else:
                    size += 8
                    pending_space, prev_hyphen = False, (hyphen >> _S56) != 0
                prev_class = 0
                i += 8
                continue
        b = np.int64(buf[i])
        if b < 0x80:  # ASCII: lower case, whitespace runs, hyphen runs
            prev_class = 0
            if (9 <= b <= 13) or (28 <= b <= 32):
                pending_space = size > 0
                prev_hyphen = False
            elif not (b == 0x2D and prev_hyphen):
                if pending_space:
                    out[size] = 0x20
                    size += 1
                    pending_space = False
                out[size] = b + 32 if 0x41 <= b <= 0x5A else b
                size += 1
                prev_hyphen = b == 0x2D
            i += 1
            continue
        cp, width = _decode(buf, i, n)
        i += width
        lo, hi = (table[0, cp], table[1, cp]) if limit > 0 else (-1, 0)
        for k in range(lo, hi):
            c = points[k] if k >= 0 else cp
            mark = c >> 32  # a combining mark's class (the table's points carry it)
            c &= 0xFFFFFFFF
            if mark and mark < prev_class:  # canonical order would move it back: the str steps
                return np.empty(0, dtype=np.uint8), False
            prev_class = mark
            if _is_space(c):
                pending_space = size > 0
                prev_hyphen = False
                continue
            ascii_form = _typography(c)
            if ascii_form >= 0:
                c = ascii_form
            hyphen = c == 0x2D
            if not (hyphen and prev_hyphen):
                if pending_space:
                    out[size] = 0x20
                    size += 1
                    pending_space = False
                size = _put_utf8(out, size, c)
            prev_hyphen = hyphen
    return out[:size], True


@nb.njit(cache=True, nogil=True)
def _words_bytewise(buf: np.ndarray, words: np.ndarray) -> None:
    """:func:`_text_words`' whole words from ``buf`` a byte at a time, the first byte lowest
    (what a big-endian machine takes; the tests compare it on a little-endian one)."""
    for j in range(buf.size // 8):
        w = _U64(0)
        for k in range(8):
            w |= _U64(buf[8 * j + k]) << _U64(8 * k)
        words[j + 1] = w


@nb.njit(cache=True, nogil=True)
def _text_words(buf: np.ndarray) -> np.ndarray:
    """The bytes of ``buf`` as little-endian 64-bit words (on any machine) after one word of
    zeros, the last one padded with zeros, then one more of zeros (room for :func:`_last8`'s
    two words)."""
    n = buf.size
    whole = n // 8
    words = np.empty(whole + 3, dtype=np.uint64)
    words[0] = 0
    if _LITTLE_ENDIAN:
        src = buf[: n - n % 8].view(np.uint64)
        for j in range(whole):
            words[j + 1] = src[j]
    else:  # (the machine's words hold their bytes the other way round)
        _words_bytewise(buf, words)
    tail = _U64(0)
    for k in range(n - n % 8, n):
        tail |= _U64(buf[k]) << _U64(8 * (k - (n - n % 8)))
    words[whole + 1] = tail
    words[whole + 2] = 0
    return words


@nb.njit(cache=True, nogil=True, inline="always")
def _last8(words: np.ndarray, end: int) -> np.int64:
    """Bytes ``end - 8`` to ``end`` of the text of :func:`_text_words` (zeros before its
    start), the first in the lowest byte."""
    at = end  # (the words begin 8 bytes before the text)
    shift = _U64((at & 7) * 8)
    return np.int64(
        (words[at >> 3] >> shift) | ((words[(at >> 3) + 1] << (_U64(56) - shift)) << _S8)
    )


@nb.njit(cache=True, nogil=True, inline="always")
def _crc32_words(words: np.ndarray, start: int, end: int, table: np.ndarray) -> int:
    """``zlib.crc32`` of the text's bytes ``start`` to ``end`` (not empty), eight bytes a
    step: the first step takes the ``(length - 1) % 8 + 1`` first bytes at its end, after
    zero bytes begun from :data:`_CRC_STARTS` (no branch on a token's length, most tokens
    being one step)."""
    first = (end - start - 1) % 8 + 1
    block = _last8(words, start + first) & ~((np.int64(1) << np.int64(8 * (8 - first))) - 1)
    crc = _CRC_STARTS[8 - first]
    at = start + first
    while True:
        low = (block & 0xFFFFFFFF) ^ crc
        high = (block >> 32) & 0xFFFFFFFF
        crc = (
            table[7, low & 0xFF] ^ table[6, (low >> 8) & 0xFF]
            ^ table[5, (low >> 16) & 0xFF] ^ table[4, low >> 24]
            ^ table[3, high & 0xFF] ^ table[2, (high >> 8) & 0xFF]
            ^ table[1, (high >> 16) & 0xFF] ^ table[0, high >> 24]
        )
        if at >= end:
            return crc ^ 0xFFFFFFFF
        at += 8
        block = _last8(words, at)


#: :func:`_token_crc32`'s separators, one int64 each: where it lies, its width in bytes
#: (from bit 40 up) and whether it is a token itself (a character of an unspaced script).
_SEP_WIDTH = 40
_SEP_ONE = np.int64(1) << np.int64(_SEP_WIDTH)
_SEP_TOKEN = np.int64(1) << np.int64(39)
_SEP_AT = _SEP_TOKEN - 1


@nb.njit(cache=True, nogil=True, inline="always")
def _lowest_byte(high_bits: np.uint64) -> np.int64:
    """The byte of the lowest high bit set in ``high_bits`` (only high bits of bytes)."""
    below = (high_bits ^ (high_bits - _U64(1))) & _HIGH
    return np.int64(((below >> _S7) * _BYTES) >> _S56) - 1


@nb.njit(cache=True, nogil=True)
def _separators(buf: np.ndarray, words: np.ndarray, weighted: bool
                ) -> tuple[np.ndarray, np.ndarray, int]:
    """The separators of the tokens of UTF-8 ``buf`` (``words``: its :func:`_text_words`), in
    order (see :data:`_SEP_WIDTH`), eight ASCII bytes at a time where they are: their
    whitespace found at once and written without a branch on how many there are (most
    words of a text hold one or two). With ``weighted``, also the continuation bytes of the
    multi-byte characters of tokens before each separator (what :func:`_weighted_tokens`
    subtracts to count characters). Returns (separators, continuation bytes, count)."""
    n = buf.size
    aligned = words[1 : 1 + n // 8]
    seps = np.empty(n + 2, dtype=np.int64)  # (two written past the last, unused)
    conts = np.empty(n + 2 if weighted else 0, dtype=np.int64)
    continuation = 0
    count = 0
    i = 0
    while i < n:
        if _LITTLE_ENDIAN and i % 8 == 0 and i + 8 <= n:
            w = aligned[i // 8]
            if (w & _HIGH) == 0:  # eight ASCII bytes: their whitespace bytes
                space = ((w + _FROM_9) & ~(w + _FROM_14)) | ((w + _FROM_28) & ~(w + _FROM_33))
                space &= _HIGH
                found = np.int64(((space >> _S7) * _BYTES) >> _S56)
                second = space & (space - _U64(1))
                seps[count] = i + _lowest_byte(space) + _SEP_ONE
                seps[count + 1] = i + _lowest_byte(second) + _SEP_ONE
                if weighted:
                    conts[count] = conts[count + 1] = continuation
                if found > 2:
                    rest = second & (second - _U64(1))
                    at = count + 2
                    while rest:
                        seps[at] = i + _lowest_byte(rest) + _SEP_ONE
                        if weighted:
                            conts[at] = continuation
                        at += 1
                        rest &= rest - _U64(1)
                count += found
                i += 8
                continue
        b = buf[i]
        if b < 0x80:
            if (9 <= b <= 13) or (28 <= b <= 32):
                seps[count] = i + _SEP_ONE
                if weighted:
                    conts[count] = continuation
                count += 1
            i += 1
            continue
        cp, width = _decode(buf, i, n)
        if _is_space(cp) or _is_unspaced(cp):
            seps[count] = i + (np.int64(width) << _SEP_WIDTH)
            if not _is_space(cp):
                seps[count] += _SEP_TOKEN
            if weighted:
                conts[count] = continuation
            count += 1
        else:
            continuation += width - 1
        i += width
    if weighted:
        conts[count] = continuation  # (the last token's)
    return seps, conts, count


@nb.njit(cache=True, nogil=True)
def _token_crc32(buf: np.ndarray, table: np.ndarray) -> np.ndarray:
    """The tokens' CRC-32s (:func:`token_values`) in two passes: :func:`_separators`, then
    the bytes between two separators, a token when there are any, and each separator that
    is a character of an unspaced script (a token alone). Faster than one pass that found
    and hashed each token as it went (``benchmarks/studies/kernel_ab.py``:
    docs/benchmarks.md)."""
    n = buf.size
    words = _text_words(buf)
    seps, _, count = _separators(buf, words, False)
    out = np.empty(2 * count + 1, dtype=np.uint64)
    tokens = 0
    start = 0  # the first byte after the last separator
    for k in range(count):
        sep = seps[k]
        at = sep & _SEP_AT
        after = at + (sep >> _SEP_WIDTH)
        if at > start:
            out[tokens] = _crc32_words(words, start, at, table)
            tokens += 1
        if sep & _SEP_TOKEN:
            out[tokens] = np.uint64(_crc32_words(words, at, after, table)) | _UNSPACED_BIT
            tokens += 1
        start = after
    if n > start:
        out[tokens] = _crc32_words(words, start, n, table)
        tokens += 1
    return out[:tokens]


@nb.njit(cache=True, nogil=True)
def _weighted_tokens(buf: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_token_crc32` and, in the same order, the characters each token stands for:
    its code points, plus one for the space after a token of a spaced script (what the
    Levenshtein ratio counts of it)."""
    n = buf.size
    words = _text_words(buf)
    seps, conts, count = _separators(buf, words, True)
    out = np.empty(2 * count + 1, dtype=np.uint64)
    weights = np.empty(2 * count + 1, dtype=np.int64)
    tokens = 0
    start = 0
    before = 0  # continuation bytes before ``start``
    for k in range(count):
        sep = seps[k]
        at = sep & _SEP_AT
        after = at + (sep >> _SEP_WIDTH)
        alone = (sep & _SEP_TOKEN) != 0
        if at > start:
            out[tokens] = _crc32_words(words, start, at, table)
            weights[tokens] = at - start - (conts[k] - before) + (0 if alone else 1)
            tokens += 1
        if alone:
            out[tokens] = np.uint64(_crc32_words(words, at, after, table)) | _UNSPACED_BIT
            weights[tokens] = 1
            tokens += 1
        start, before = after, conts[k]
    if n > start:
        out[tokens] = _crc32_words(words, start, n, table)
        weights[tokens] = n - start - (conts[count] - before)
        tokens += 1
    return out[:tokens], weights[:tokens]


@nb.njit(cache=True, nogil=True)
def _placed_shingles(words: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shingles of :func:`_shingles` in text order with where they lie: (hashes, first
    token, tokens)."""
    n = words.size
    short = min(size, UNSPACED_SHINGLE_SIZE)
    hashes = np.empty(max(n, 1), dtype=np.uint64)
    starts = np.empty(max(n, 1), dtype=np.int64)
    lengths = np.empty(max(n, 1), dtype=np.int64)
    m = 0
    for i in range(n):
        k = short if words[i] >= _UNSPACED_BIT else size
        if i + k > n:
            continue
        hashes[m], starts[m], lengths[m] = _shingle_hash(words, i, k), i, k
        m += 1
    if m == 0 and n > 0:  # shorter than every shingle: one shingle of all the tokens
        acc = _INIT
        for j in range(n):
            acc = acc * _MULT + words[j]
        acc ^= acc >> _S33
        acc *= _FMIX_C1
        acc ^= acc >> _S33
        acc *= _FMIX_C2
        acc ^= acc >> _S33
        hashes[0], starts[0], lengths[0] = acc, 0, n
        m = 1
    return hashes[:m], starts[:m], lengths[:m]


#: Islands of covered tokens at each end of a text among which :func:`_covered_span` looks for
#: the first and the last of the stretch (bounds its work on texts matched in many pieces).
STRETCH_EDGE = 16


#: Probes of :func:`_matched_by_table` a shingle may take on average before it gives way to
#: :func:`_matched_by_sorting` (shingle hashes that crowd a few slots of the table: texts made
#: to collide there; real texts probe about once a shingle).
TABLE_PROBES = 8


@nb.njit(cache=True, nogil=True)
def _covered(
    hashes: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    weights: np.ndarray,
    other: np.ndarray,
) -> tuple[int, int, int]:
    """(covered, total, span) weights of a text whose placed shingles are matched, in text
    order, against the other text's shingle hashes ``other`` **as a multiset** (a shingle
    found k times there covers at most its first k occurrences here): a token is covered
    when one of its shingles is matched; span: the stretch that holds them
    (:func:`_covered_span`)."""
    n = weights.size
    total = 0
    for i in range(n):
        total += weights[i]
    if n == 0 or other.size == 0:
        return 0, total, 0
    depth = np.zeros(n + 1, dtype=np.int64)
    if not _matched_by_table(hashes, starts, lengths, other, depth):
        depth[:] = 0
        _matched_by_sorting(hashes, starts, lengths, other, depth)
    covered, span = _covered_span(depth, weights, n)
    return covered, total, span


@nb.njit(cache=True, nogil=True)
def _matched_by_table(
    hashes: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    other: np.ndarray,
    depth: np.ndarray,
) -> bool:
    """:func:`_covered`'s multiset matching with a hash table of ``other`` (open addressing,
    the hashes' low bits: they are mixed already): each shingle marks the tokens it covers in
    ``depth`` (+1 at its first, -1 after its last). Linear in the shingles, where sorting and
    binary search took three times as long on real candidate pairs. Returns False, with
    ``depth`` part done, when the probes exceed :data:`TABLE_PROBES` a shingle."""
    cap = 16
    while cap < 2 * other.size:
        cap *= 2
    mask = cap - 1
    keys = np.empty(cap, dtype=np.uint64)
    left = np.full(cap, -1, dtype=np.int64)  # occurrences of the slot's key left; -1: empty
    budget = TABLE_PROBES * (other.size + hashes.size)
    for m in range(other.size):
        h = other[m]
        at = np.int64(h & np.uint64(mask))
        while left[at] >= 0 and keys[at] != h:
            at = (at + 1) & mask
            budget -= 1
        if left[at] < 0:
            keys[at] = h
            left[at] = 1
        else:
            left[at] += 1
        if budget < 0:
            return False
    for m in range(hashes.size):
        h = hashes[m]
        at = np.int64(h & np.uint64(mask))
        while left[at] >= 0:
            if keys[at] == h:
                if left[at] > 0:
                    left[at] -= 1
                    depth[starts[m]] += 1
                    depth[starts[m] + lengths[m]] -= 1
                break
            at = (at + 1) & mask
            budget -= 1
        if budget < 0:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _matched_by_sorting(
    hashes: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    other: np.ndarray,
    depth: np.ndarray,
) -> None:
    """:func:`_matched_by_table`'s matching by sorting ``other`` and searching it (n log n
    whatever the hashes)."""
    pool = np.sort(other)
    # values and how many of each are left to match
    values = np.empty(pool.size, dtype=np.uint64)
    left = np.empty(pool.size, dtype=np.int64)
    u = 0
    for i in range(pool.size):
        if u > 0 and values[u - 1] == pool[i]:
            left[u - 1] += 1
        else:
            values[u] = pool[i]
            left[u] = 1
            u += 1
    values, left = values[:u], left[:u]
    for m in range(hashes.size):
        at = np.searchsorted(values, hashes[m])
        if at < u and values[at] == hashes[m] and left[at] > 0:
            left[at] -= 1
            depth[starts[m]] += 1
            depth[starts[m] + lengths[m]] -= 1


@nb.njit(cache=True, nogil=True)
def _covered_span(depth: np.ndarray, weights: np.ndarray, n: int) -> tuple[int, int]:
    """(covered, span) characters from the running sum of ``depth`` over ``n`` tokens: the
    weights of the tokens some found shingle covers, and the span of the stretch that holds
    them (0, 0 when none is covered).

    The covered tokens lie in runs (islands). The stretch is, of the windows from an island
    among the first :data:`STRETCH_EDGE` to one among the last, the one whose density (its
    covered characters over its characters) and share (its covered characters over all
    covered) are highest, the lower of the two: a few stray matches far outside the text's
    body (a line of ``| | |`` cells of a table in other chrome, a common phrase) do not
    stretch it over the chrome between them. The span returned is ``covered`` over that
    lower value (rounded up), so ``covered / span`` is the stretch's score; with no stray
    island it is the characters from the first covered token to the last, as before."""
    first = np.empty(n, dtype=np.int64)  # each island's first character
    end = np.empty(n, dtype=np.int64)  # and the end of its last
    held = np.zeros(n + 1, dtype=np.int64)  # covered characters of the islands before it
    covered = 0
    islands = 0
    running = 0
    at = 0
    inside = False
    for i in range(n):
        running += depth[i]
        if running > 0:
            if not inside:
                first[islands] = at
                held[islands + 1] = held[islands]
                islands += 1
                inside = True
            held[islands] += weights[i]
            covered += weights[i]
            end[islands - 1] = at + weights[i]
        else:
            inside = False
        at += weights[i]
    if covered == 0:
        return 0, 0
    best = 0.0
    for i in range(min(islands, STRETCH_EDGE)):
        for j in range(max(i, islands - STRETCH_EDGE), islands):
            inside_covered = held[j + 1] - held[i]
            density = inside_covered / max(end[j] - first[i], 1)
            score = min(density, inside_covered / covered)
            if score > best:
                best = score
    return covered, int(np.ceil(covered / best - 1e-9))


@nb.njit(cache=True, nogil=True)
def _span_density(
    buf: np.ndarray, other: np.ndarray, size: int, table: np.ndarray
) -> tuple[int, int]:
    """(covered, span) characters of a text by its shingles found in ``other`` (sorted
    unique hashes, as a set): covered and span as in :func:`_covered`."""
    words, weights = _weighted_tokens(buf, table)
    hashes, starts, lengths = _placed_shingles(words, size)
    n = words.size
    depth = np.zeros(n + 1, dtype=np.int64)
    for m in range(hashes.size):
        at = np.searchsorted(other, hashes[m])
        if at < other.size and other[at] == hashes[m]:
            depth[starts[m]] += 1
            depth[starts[m] + lengths[m]] -= 1
    return _covered_span(depth, weights, n)


@nb.njit(cache=True, nogil=True)
def _coverage(
    buf_a: np.ndarray, buf_b: np.ndarray, size: int, table: np.ndarray
) -> tuple[int, int, int, int, int, int]:
    words_a, weights_a = _weighted_tokens(buf_a, table)
    words_b, weights_b = _weighted_tokens(buf_b, table)
    ha, sa, la = _placed_shingles(words_a, size)
    hb, sb, lb = _placed_shingles(words_b, size)
    ca, ta, pa = _covered(ha, sa, la, weights_a, hb)
    cb, tb, pb = _covered(hb, sb, lb, weights_b, ha)
    return ca, ta, pa, cb, tb, pb


@nb.njit(cache=True, nogil=True, inline="always")
def _shingle_hash(words: np.ndarray, i: int, k: int) -> np.uint64:
    """The hash of the ``k`` tokens from ``i``: the Horner combination and MurmurHash3
    finalizer of :mod:`.shingles`."""
    acc = _INIT
    for j in range(k):
        acc = acc * _MULT + words[i + j]
    acc ^= acc >> _S33
    acc *= _FMIX_C1
    acc ^= acc >> _S33
    acc *= _FMIX_C2
    acc ^= acc >> _S33
    return acc


@nb.njit(cache=True, nogil=True)
def _shingles(words: np.ndarray, size: int) -> np.ndarray:
    """Unsorted shingle hashes (repeats kept) of the token hashes ``words``.

    The shingle starting at a token spans ``size`` tokens, or ``min(size,
    UNSPACED_SHINGLE_SIZE)`` when that token is a character of an unspaced script; only
    shingles that fit in the text count, and a text too short for any is one shingle of
    all its tokens.
    """
    n_words = words.size
    if n_words == 0:
        return np.empty(0, dtype=np.uint64)
    short = min(size, UNSPACED_SHINGLE_SIZE)
    out = np.empty(n_words, dtype=np.uint64)
    m = 0
    for i in range(n_words):
        k = short if words[i] >= _UNSPACED_BIT else size
        if i + k > n_words:
            continue
        out[m] = _shingle_hash(words, i, k)
        m += 1
    if m == 0:  # shorter than every shingle: one shingle of all the tokens
        acc = _INIT
        for j in range(n_words):
            acc = acc * _MULT + words[j]
        acc ^= acc >> _S33
        acc *= _FMIX_C1
        acc ^= acc >> _S33
        acc *= _FMIX_C2
        acc ^= acc >> _S33
        out[0] = acc
        m = 1
    return out[:m]


@nb.njit(cache=True, nogil=True, inline="always")
def _folded(h: np.uint64) -> np.uint32:
    """The 32 bits of a shingle hash the permutations take."""
    return np.uint32((h ^ (h >> _S32)) & _LOW32)


@nb.njit(cache=True, nogil=True)
def _signature(hashes: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """uint32 ``a``, ``b``: uint32 arithmetic wraps mod 2**32 and vectorizes (8 lanes).

    Four shingles a pass over the permutations: each permutation's ``a``, ``b`` and running
    minimum are loaded and stored once for four shingles, not once a shingle (faster in a
    microbenchmark that was not kept; eight a pass ran out of registers). The outputs are
    those of one shingle at a time (the minimum does not depend on the order).
    """
    num_perm = a.size
    sig = np.full(num_perm, _EMPTY, dtype=np.uint64)
    if hashes.size == 0:
        return sig
    low = np.full(num_perm, np.uint32(0xFFFFFFFF), dtype=np.uint32)
    n = hashes.size
    i = 0
    while i + 3 < n:
        x0, x1 = _folded(hashes[i]), _folded(hashes[i + 1])
        x2, x3 = _folded(hashes[i + 2]), _folded(hashes[i + 3])
        for p in range(num_perm):
            ap, bp = a[p], b[p]
            pair0 = min(np.uint32(ap * x0 + bp), np.uint32(ap * x1 + bp))
            pair1 = min(np.uint32(ap * x2 + bp), np.uint32(ap * x3 + bp))
            low[p] = min(low[p], min(pair0, pair1))
        i += 4
    while i < n:
        x = _folded(hashes[i])
        for p in range(num_perm):
            low[p] = min(low[p], np.uint32(a[p] * x + b[p]))
        i += 1
    for p in range(num_perm):
        sig[p] = low[p]
    return sig


@nb.njit(cache=True, nogil=True)
def _text_signature(
    buf: np.ndarray, size: int, a: np.ndarray, b: np.ndarray, table: np.ndarray
) -> np.ndarray:
    return _signature(_shingles(_token_crc32(buf, table), size), a, b)


def text_bytes(text: str | bytes) -> np.ndarray:
    """The UTF-8 bytes of ``text`` as a uint8 array (lone surrogates kept, as elsewhere);
    ``bytes`` are taken as the UTF-8 of a text already."""
    if isinstance(text, bytes):
        return np.frombuffer(text, dtype=np.uint8)
    return np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)


_NO_TABLE = np.empty((2, 0), dtype=np.int64)
_NO_POINTS = np.empty(0, dtype=np.int64)


def fold_tail(text: str) -> str:
    """The last steps of :func:`~.text.normalize_text` on NFKC, case-folded text (ASCII in
    lower case already: the steps lower it again, a no-op there): typographic
    quotes, apostrophes, dashes and minus signs to ASCII, each run of hyphens to one hyphen,
    each run of whitespace to one space, none at either end.

    >>> print(fold_tail(" \u201cit\u2019s\u201d \u2014\u2014 fine\u00a0 "))
    "it's" - fine
    """
    out, _ = _normalize(text_bytes(text), _NO_TABLE, _NO_POINTS)
    return out.tobytes().decode("utf-8", "surrogatepass")


def normalize_utf8(
    text: str | bytes, table: np.ndarray, points: np.ndarray
) -> np.ndarray | None:
    """The UTF-8 bytes of :func:`~.text.normalize_text` of ``text`` (a uint8 array), or
    ``None`` when ``text`` has a code point whose normalization may depend on its neighbours
    (a combining mark, a Hangul vowel...) or a lone surrogate, or when ``bytes`` are not
    well-formed UTF-8. ``table`` and ``points``: the code points' mappings
    (:func:`~.text.char_table`).

    >>> from webdedup.algorithms.text import char_table
    >>> table = char_table()
    >>> bytes(normalize_utf8("\uff21 \u201cCaf\u00e9\u201d\u00a0\u2014\u2014 \ufb01n", *table))
    b'a "caf\\xc3\\xa9" - fin'
    >>> normalize_utf8("e\u0301", *table) is None
    True
    """
    out, ok = _normalize(text_bytes(text), table, points)
    return out if ok else None


def digest_parts(utf8: bytes, cap: int) -> tuple[int, tuple[int, int, int], int]:
    """(characters, :func:`length_parts`, the length in bytes of the first ``cap``
    characters) of the UTF-8 text ``utf8``.

    >>> digest_parts("東京 is big".encode(), 4)
    (9, (2, 2, 0), 8)
    """
    chars, other, cjk, sea, cut = _digest_parts(text_bytes(utf8), cap)
    return int(chars), (int(other), int(cjk), int(sea)), int(cut)


def length_parts(text: str) -> tuple[int, int, int]:
    """(other tokens, CJK characters, South-East Asian characters) of ``text``.

    >>> length_parts("東京 is ไทย big")
    (2, 2, 3)
    """
    _, other, cjk, sea, _ = _digest_parts(text_bytes(text), 0)
    return int(other), int(cjk), int(sea)


def token_crc32(text: str) -> np.ndarray:
    """``zlib.crc32`` of each token of ``text`` (uint64 values below ``2**32``).

    >>> import zlib
    >>> token_crc32("ab 東京").tolist() == [zlib.crc32(t.encode()) for t in ("ab", "東", "京")]
    True
    """
    return _token_crc32(text_bytes(text), _TABLE) & _LOW32


def token_values(text: str) -> np.ndarray:
    """What the shingles combine: :func:`token_crc32`, plus ``2**32`` for each token that
    is a character of an unspaced script.

    >>> token_values("ab 東").tolist()[1] == token_crc32("東").tolist()[0] + 2**32
    True
    """
    return _token_crc32(text_bytes(text), _TABLE)


def shingle_hashes_utf8(text: str | bytes, size: int) -> np.ndarray:
    """The unsorted shingle hashes of ``text``, repeats kept (see :mod:`.shingles`)."""
    return _shingles(_token_crc32(text_bytes(text), _TABLE), size)


def token_weights(text: str | bytes) -> np.ndarray:
    """The characters each token of ``text`` stands for (:func:`token_values`' order): its
    code points, plus one for the space after a token of a spaced script.

    >>> token_weights("ab  cd 東京").tolist()
    [3, 3, 1, 1]
    """
    return _weighted_tokens(text_bytes(text), _TABLE)[1]


def coverage(
    a: str | bytes, b: str | bytes, size: int
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """How much of each of two texts their shared ``size``-shingles cover, in characters
    (:func:`token_weights`): for ``a`` then ``b``, (covered, total, span). A token is
    covered when one of its shingles is matched in the other text, the shingles of the two
    texts matched as multisets in text order (a shingle that the other text holds twice
    covers two of its occurrences, not three); span: the stretch that holds the covered
    tokens, from the first to the last, less stray matches outside the text's body
    (:func:`_covered_span`).

    >>> coverage("x y a b c d e f z", "a b c d e f", 5)
    ((12, 17, 12), (11, 11, 11))
    """
    out = _coverage(text_bytes(a), text_bytes(b), size, _TABLE)
    return (int(out[0]), int(out[1]), int(out[2])), (int(out[3]), int(out[4]), int(out[5]))


def span_density(text: str | bytes, other: np.ndarray, size: int) -> tuple[int, int]:
    """(covered, span): the characters of ``text`` that its ``size``-shingles found in
    ``other`` (sorted unique shingle hashes, a set) cover, and those of the stretch that
    holds them (:func:`coverage`, :func:`token_weights`).

    >>> from webdedup.algorithms.shingles import shingle_hashes
    >>> span_density("x y a b c d e f z", shingle_hashes("a b c d e f", 5), 5)
    (12, 12)
    """
    covered, span = _span_density(text_bytes(text), other, size, _TABLE)
    return int(covered), int(span)


def minhash_signature(text: str | bytes, size: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The MinHash signature of the ``size``-shingles of ``text`` (uint32 ``a``, ``b``).

    Equals ``MinHasher.signature(shingle_hashes(text, size))`` for the hasher whose
    permutations are ``a``, ``b``.
    """
    return _text_signature(text_bytes(text), size, a, b, _TABLE)


@nb.njit(cache=True, nogil=True)
def _shared(a: np.ndarray, b: np.ndarray) -> int:
    i = j = count = 0
    while i < a.size and j < b.size:
        if a[i] == b[j]:
            count += 1
            i += 1
            j += 1
        elif a[i] < b[j]:
            i += 1
        else:
            j += 1
    return count


def shared_count(a: np.ndarray, b: np.ndarray) -> int:
    """How many values two **sorted, unique** arrays share (a merge: no sort, no copy).

    >>> shared_count(np.array([1, 3, 5, 9], dtype=np.uint64), np.array([3, 4, 9], dtype=np.uint64))
    2
    """
    return int(_shared(a, b))


@nb.njit(cache=True, nogil=True, inline="always")
def _passes(key: int, multipliers: np.ndarray, j: int, member: np.ndarray, shift: int) -> bool:
    for k in range(multipliers.shape[0]):  # every one of the key's bits must be set
        bit = ((_U64(key) * _U64(multipliers[k, j])) & _LOW32) >> _U64(shift)
        if ((member[bit >> _U64(3)] >> (bit & _U64(7))) & 1) == 0:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _band_collisions(
    folded: np.ndarray,
    keys: np.ndarray,
    multipliers: np.ndarray,
    member: np.ndarray,
    shift: int,
    ordered: np.ndarray,
    order: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    rows, columns = keys.shape
    width = ordered.shape[1]
    # 1. the keys that pass the filter (few do), as row * columns + column, in one pass over
    # the matrix as stored: into room for all of them (4 bytes a key, 15 MB for a chunk of
    # 100,000 rows of 37 keys, most of it never touched; two passes, one to count and one to
    # fill, took twice the time: the filter's lookups are most of it)
    hits = np.empty(rows * columns, dtype=np.int32)
    n = 0
    for m in range(rows):
        for j in range(columns):
            if _passes(folded[m, j], multipliers, j, member, shift):
                hits[n] = m * columns + j
                n += 1
    # 2. each passing key's run of equal keys among its column's sorted new keys
    left = np.empty(n, dtype=np.int64)
    right = np.empty(n, dtype=np.int64)
    total = 0
    for h in range(n):
        m, j = divmod(hits[h], columns)
        column = ordered[j]
        key = keys[m, j]
        lo, hi = 0, width
        while lo < hi:  # the first new key >= key
            mid = (lo + hi) >> 1
            if column[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        end = lo
        while end < width and column[end] == key:
            end += 1
        left[h], right[h] = lo, end
        total += end - lo
    out_i = np.empty(total, dtype=np.int64)
    out_m = np.empty(total, dtype=np.int64)
    k = 0
    for h in range(n):
        m, j = divmod(hits[h], columns)
        for pos in range(left[h], right[h]):
            out_i[k] = order[j, pos]
            out_m[k] = m
            k += 1
    return out_i, out_m


def band_collisions(
    folded: np.ndarray,
    keys: np.ndarray,
    multipliers: np.ndarray,
    member: np.ndarray,
    shift: int,
    ordered: np.ndarray,
    order: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(i, m)``: stored row ``m`` has new row ``i``'s key in some column.

    ``keys``: the stored rows' keys (rows, columns), ``folded`` the same as uint32 for the
    filter; a key passes when, for each ``k``, bit ``(key * multipliers[k, column]) mod
    2**32 >> shift`` of ``member`` is set (bit ``b`` at byte ``b >> 3``, ``1 << (b & 7)``),
    and only then is it searched among the new keys: ``ordered[column]`` sorted,
    ``order[column]`` their rows.
    Pairs come stored row by stored row (ascending), a row's columns in order, then in
    ``ordered``'s order; a pair comes once for each column it collides in
    (:meth:`~.bands.NewKeys.collisions`, which the tests check against brute force).

    >>> member = np.full(1, 0xFF, dtype=np.uint8)  # every bit of 0..7 set: all pass
    >>> new = np.array([[5, 7]], np.uint32)
    >>> stored = np.array([[5, 1], [2, 7]], np.uint32)
    >>> i, m = band_collisions(stored, stored, np.ones((1, 2), np.uint32), member, 32,
    ...                        np.ascontiguousarray(new.T), np.zeros((2, 1), np.int64))
    >>> list(zip(i.tolist(), m.tolist()))
    [(0, 0), (0, 1)]
    """
    keys = np.ascontiguousarray(keys)
    folded = np.ascontiguousarray(folded, dtype=np.uint32)
    columns = keys.shape[1] if keys.ndim == 2 else -1
    # the compiled loop does not check its indexes: a wrong shape would read past an array
    if not (
        folded.shape == keys.shape
        and multipliers.ndim == 2
        and multipliers.shape[1] == columns
        and ordered.ndim == order.ndim == 2
        and ordered.shape == order.shape
        and ordered.shape[0] == columns
        and ordered.dtype == keys.dtype
        and 0 <= shift <= 32
        and member.size * 8 >= 1 << (32 - shift)
        and keys.size < 2**31  # (a key's place is kept in 32 bits)
    ):
        raise ValueError("band_collisions: arrays of mismatched shapes or types")
    return _band_collisions(folded, keys, multipliers, member, shift, ordered, order)


def cache_indexes() -> list[str] | None:
    """The index files numba's on-disk cache keeps for the kernels of phase 1 and for
    :func:`band_collisions` (``pipeline.run`` compiles them all when one is missing): where
    they are missing, the next call compiles them (about 20 s on a 2-core machine, once per
    machine and numba version). None when this numba keeps them elsewhere (don't guess)."""
    out = []
    for kernel in (_normalize, _digest_parts, _text_signature, _shingles, _shared,
                   _band_collisions):
        try:
            out.append(str(getattr(kernel, "_cache")._cache_file._index_path))  # noqa: B009
        except AttributeError:
            return None
    return out


def warm_up() -> None:
    """Load (or compile) the kernels of phase 1 and verification now: a process pool forked
    after this inherits them (:func:`band_collisions`, which only a nightly run's parent
    process calls, loads on its first call).

    >>> warm_up()
    """
    a = np.ones(2, dtype=np.uint32)
    minhash_signature("warm up", 2, a, a)
    shingle_hashes_utf8("warm up", 2)
    length_parts("warm up")
    fold_tail("warm up")
    table = np.full((2, 0x100), -1, dtype=np.int64)
    normalize_utf8("warm up \u00e9", table, np.zeros(1, dtype=np.int64))
    digest_parts(b"warm up", 2)
    shared_count(np.ones(1, dtype=np.uint64), np.ones(1, dtype=np.uint64))
    coverage("warm up", "warm up", 2)
    span_density("warm up", np.ones(1, dtype=np.uint64), 2)
