"""The compiled kernels compute bit for bit what the plain Python/numpy definitions compute."""

from __future__ import annotations

import gzip
import json
import re
import sys
import unicodedata
import zlib

import numba
import numpy as np
import pytest
from conftest import SHARED_DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from webdedup.algorithms import kernels
from webdedup.algorithms.minhash import MinHasher, band_keys
from webdedup.algorithms.shingles import fmix64, shingle_hashes
from webdedup.algorithms.sketch import sketch_texts
from webdedup.algorithms.text import (
    _CJK,
    _SEA,
    _TOKEN,
    _TYPOGRAPHY,
    UNSPACED,
    char_table,
    normalize_text,
    word_length,
)
from webdedup.config import Config

_INIT = np.uint64(0x243F6A8885A308D3)
_MULT = np.uint64(0x9E3779B97F4A7C15)


def reference_tokens(text: str) -> list[str]:
    """text.tokens() by its definition: unspaced characters alone, other non-space runs."""
    return _TOKEN.findall(text)


def reference_values(text: str) -> list[int]:
    """What shingles combine: crc32 per token, plus 2**32 for a character of UNSPACED."""
    return [
        zlib.crc32(t.encode("utf-8", "surrogatepass")) + (1 << 32) * bool(UNSPACED.fullmatch(t))
        for t in reference_tokens(text)
    ]


def reference_shingles(text: str, size: int) -> np.ndarray:
    """The definition in shingles.py, in plain Python: each token starts a shingle of ``size``
    tokens (``min(size, 3)`` when it is a character of an unspaced script) that fits in the
    text, Horner, fmix64, unique; a text too short for any is one shingle of all its tokens."""
    words = reference_values(text)
    if not words:
        return np.empty(0, dtype=np.uint64)
    windows = []
    for i, w in enumerate(words):
        k = min(size, 3) if w >> 32 else size
        if i + k <= len(words):
            windows.append(words[i : i + k])
    if not windows:
        windows = [words]
    out = []
    for window in windows:
        acc = int(_INIT)
        for w in window:
            acc = (acc * int(_MULT) + w) % (1 << 64)
        out.append(acc)
    return np.unique(fmix64(np.array(out, dtype=np.uint64)))


def reference_normalize(text: str) -> str:
    """normalize_text as plain str steps (what it was before the compiled tail)."""
    if not text:
        return ""
    if text.isascii():
        out = " ".join(text.lower().split())
    else:
        for ch in "\u00ad\u200b\u2060\ufeff":
            text = text.replace(ch, "")
        out = unicodedata.normalize("NFKC", text).casefold()
        if not unicodedata.is_normalized("NFKC", out):
            out = unicodedata.normalize("NFKC", out).casefold()
        out = out.translate(_TYPOGRAPHY)
    out = re.sub("-{2,}", "-", out)
    return " ".join(out.split())


def reference_length_parts(norm: str) -> tuple[int, int, int]:
    cjk = len(_CJK.findall(norm))
    sea = len(_SEA.findall(norm))
    return len(_TOKEN.findall(norm)) - cjk - sea, cjk, sea


def _texts() -> list[str]:
    """Every real text of ../shared/data (many languages and scripts), raw and normalized."""
    with gzip.open(SHARED_DATA / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        raw = [json.loads(line)["text"] for line in fh]
    return raw[::2] + [normalize_text(t) for t in raw[1::7]]


TEXTS = _texts()


@numba.njit
def _typography_table(limit: int) -> np.ndarray:
    out = np.empty(limit, dtype=np.int64)
    for cp in range(limit):
        out[cp] = kernels._typography(cp)
    return out


def test_typography_table_is_text_typography() -> None:
    table = _typography_table(sys.maxunicode + 1)
    mapped = {int(cp): chr(int(table[cp])) for cp in np.flatnonzero(table >= 0)}
    assert mapped == _TYPOGRAPHY


def test_normalize_text_equals_the_str_steps_on_every_real_text() -> None:
    for text in TEXTS:
        assert normalize_text(text) == reference_normalize(text)


@numba.njit
def _classes(limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    space = np.zeros(limit, dtype=np.bool_)
    unspaced = np.zeros(limit, dtype=np.bool_)
    cjk = np.zeros(limit, dtype=np.bool_)
    for cp in range(limit):
        space[cp] = kernels._is_space(cp)
        unspaced[cp] = kernels._is_unspaced(cp)
        cjk[cp] = kernels._is_cjk(cp)
    return space, unspaced, cjk


def test_whitespace_and_unspaced_tables_match_python_for_every_code_point() -> None:
    space, unspaced, cjk = _classes(sys.maxunicode + 1)
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert np.flatnonzero(space).tolist() == [i for i, c in enumerate(every) if c.isspace()]
    assert np.flatnonzero(unspaced).tolist() == list(map(ord, UNSPACED.findall(every)))
    assert np.flatnonzero(cjk).tolist() == list(map(ord, _CJK.findall(every)))


def test_tokens_and_shingles_equal_the_definition_on_every_real_text() -> None:
    checked = 0
    for i, text in enumerate(TEXTS):
        expected = [zlib.crc32(t.encode("utf-8", "surrogatepass")) for t in reference_tokens(text)]
        assert kernels.token_crc32(text).tolist() == expected
        assert kernels.token_values(text).tolist() == reference_values(text)
        if i % 3 == 0:  # shingles: a third of them (the tokens above are what varies by script)
            size = (1, 3, 5)[i % 9 // 3]
            assert np.array_equal(shingle_hashes(text, size), reference_shingles(text, size))
        checked += 1
    assert checked > 2000


def test_word_length_equals_the_regex_definition_on_every_real_text() -> None:
    for text in TEXTS:
        norm = normalize_text(text)
        if norm and not norm.isascii():
            assert kernels.length_parts(norm) == reference_length_parts(norm)
    assert word_length("東京 is ไทย big") == 2 + 1 + 1  # 2 words, 2 CJK chars, 3 Thai chars


def test_signatures_equal_minhasher_on_real_texts() -> None:
    hasher = MinHasher(num_perm=128, seed=1)
    a, b = hasher.permutations
    for text in TEXTS[::15]:
        norm = normalize_text(text)
        expected = hasher.signature(reference_shingles(norm, 5))
        assert np.array_equal(kernels.minhash_signature(norm, 5, a, b), expected)


def test_sketch_texts_keys_are_those_of_the_numpy_path() -> None:
    spec = Config().near_spec()
    hasher = spec.hasher()
    texts = [normalize_text(t) for t in TEXTS[:200]] + ["", "one", "東京都渋谷区"]
    for text, (blob, keys) in zip(texts, sketch_texts(spec, texts), strict=True):
        sig = hasher.signature(reference_shingles(text, spec.shingle_size))
        # the sketch is the low 32 bits of each band key; the list tags them with their band
        low = [k & 0xFFFFFFFF for k in band_keys(sig, spec.bands, spec.rows)]
        assert blob == np.array(low, dtype="<u4").tobytes()
        assert keys == [band << 32 | k for band, k in enumerate(low)]


_ALPHABET = st.sampled_from(
    list("ab c\t\n\x0b\x0c\r\x1c\x1f\x85\xa0\u1680\u2000\u200a\u2028\u202f\u3000")
    + list("東京都ภาษาไทยកខ၀ÿé\U00020001\U0003134f\U00031350€")
    + ["\ud800", "\udfff"]  # lone surrogates (kept by surrogatepass)
)


_NORMALIZE_ALPHABET = st.sampled_from(
    list("aB -\t\u00a0\u3000\u2028\x1c\u00ad\u200b\ufeff\u2026\u2122\uff21\u00df\u0130")
    + list("\u2018\u2019\u201c\u201d\u00ab\u00bb\u2010\u2011\u2013\u2014\u2212\ufe58\u2039")
    + list("e\u0301\u1e9e\ufb01東ไ\ud800")
)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.lists(_NORMALIZE_ALPHABET, max_size=40).map("".join))
def test_normalize_text_equals_the_str_steps_on_generated_text(text: str) -> None:
    assert normalize_text(text) == reference_normalize(text)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(_ALPHABET, max_size=60).map("".join), st.integers(1, 6))
def test_tokens_and_shingles_equal_the_definition_on_generated_text(text: str, size: int) -> None:
    expected = [zlib.crc32(t.encode("utf-8", "surrogatepass")) for t in reference_tokens(text)]
    assert kernels.token_crc32(text).tolist() == expected
    assert kernels.token_values(text).tolist() == reference_values(text)
    assert np.array_equal(shingle_hashes(text, size), reference_shingles(text, size))


def test_kernel_can_fail_against_a_wrong_definition() -> None:
    """The comparison is sharp: a definition that splits CJK runs as words differs."""
    text = "東京都渋谷区 tokyo"
    wrong = [zlib.crc32(t.encode()) for t in re.findall(r"\S+", text)]
    assert kernels.token_crc32(text).tolist() != wrong


@pytest.mark.parametrize("text", ["", " ", "\u3000\u3000", "a", "東京", "a 東京", "a b 東"])
def test_edge_texts(text: str) -> None:
    assert np.array_equal(shingle_hashes(text, 5), reference_shingles(text, 5))


def test_unspaced_shingles_are_character_trigrams() -> None:
    """Pure Chinese text: one shingle per character trigram (not per 5-gram as for words)."""
    assert kernels.UNSPACED_SHINGLE_SIZE == 3
    assert shingle_hashes("东京都渋谷区", 5).size == 4  # 6 characters: 4 trigrams
    assert shingle_hashes("one two three four five six", 5).size == 2  # words: 5-grams


# -- the compiled normalizer (text.char_table + kernels.normalize_utf8) --------------------------
def _fast(text: str) -> str | None:
    out = kernels.normalize_utf8(text, *char_table())
    return None if out is None else out.tobytes().decode("utf-8")


def test_compiled_normalizer_equals_the_str_steps_on_every_code_point() -> None:
    """Each code point alone, and between two letters (whitespace and hyphens at the ends
    and between words behave differently); the ones the table leaves out take the str steps."""
    mapped = 0
    for cp in range(sys.maxunicode + 1):
        for text in (chr(cp), f"A{chr(cp)}b"):
            fast = _fast(text)
            if fast is not None:
                mapped += 1
                assert fast == reference_normalize(text), hex(cp)
    assert mapped > 2 * 190_000  # all but a few thousand code points below TABLE_LIMIT


def test_compiled_normalizer_covers_the_real_texts() -> None:
    """Nearly every real text takes the compiled path, and it gives what the str steps give."""
    fast = [_fast(t) for t in TEXTS]
    assert sum(f is not None for f in fast) >= 0.99 * len(TEXTS)
    for text, out in zip(TEXTS, fast, strict=True):
        if out is not None:
            assert out == reference_normalize(text)


_CONTEXT_ALPHABET = st.sampled_from(
    list("aAeE \u00a0-\u2014\u00bd\u00e9\u00c5\u212b\u1e9e\u0130\u03a3\u03c2\u1f88\ufdfa\u2126")
    + list("\u0301\u0308\u0327\u093c\u0928\u0929\u0bca\u0bbe\u0b47\u1100\u1161\u11a8\uac00")
    + list("\u3099\u304b\u309b\u0f73\u0f71\u0e33\u0eb3\uff76\uff9e\u2460\u3300\u00ad\u200b")
    + list("\U0001d400\U0001f600\U0002f800\U00030000\ud800")
)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(_CONTEXT_ALPHABET, max_size=30).map("".join))
def test_compiled_normalizer_where_neighbours_interact(text: str) -> None:
    """Combining marks, Hangul jamo, Indic vowel signs, voiced kana marks, compatibility
    characters and their neighbours: the compiled path gives the str steps' answer or leaves
    the text to them, and normalize_text always equals the reference."""
    fast = _fast(text)
    assert fast is None or fast == reference_normalize(text)
    assert normalize_text(text) == reference_normalize(text)


_ASCII_WORD_ALPHABET = st.sampled_from(
    # ASCII around what the word steps test (whitespace, hyphens, upper case), the other
    # whitespace bytes and a few code points that are not ASCII (the byte steps between)
    list("aZ@[`{-,.\x00\x08\x09\x0a\x0d\x0e\x1b\x1c\x1f \x21") + ["  ", "--", "Ab", "- -"]
    + list("\u00e9\u00c9\u2014\u00a0\u3000")
)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(_ASCII_WORD_ALPHABET, max_size=40).map("".join))
def test_compiled_normalizer_across_ascii_words(text: str) -> None:
    """Runs of ASCII met eight bytes at a time, at every offset: whitespace and hyphen runs
    that start, end or cross a word, upper case next to the letters around it, leading and
    trailing whitespace; with the table and without (fold_tail)."""
    assert _fast(text) == reference_normalize(text)
    shifted = "Q" * (len(text) % 8) + text  # the same text at another offset of the words
    assert _fast(shifted) == reference_normalize(shifted)
    folded = text.lower()  # fold_tail's input: NFKC, case-folded (these characters are)
    assert kernels.fold_tail(folded) == reference_normalize(folded)


def test_compiled_normalizer_leaves_neighbour_dependent_text_to_the_str_steps() -> None:
    assert _fast("cafe\u0301") is None  # a combining mark that composes
    assert _fast("\u1100\u1161") is None  # Hangul L + V compose
    assert _fast("\U00030000") is None  # above the table
    assert normalize_text("cafe\u0301") == "caf\u00e9"


def test_compiled_normalizer_takes_the_marks_that_compose_with_nothing() -> None:
    """Viramas and Arabic vowel signs compose with nothing: texts of Hindi, Tamil, Bengali,
    Arabic take the compiled path (each character alone), unless a mark would move back in
    canonical order (then the str steps)."""
    for text in ("\u0915\u094d\u0937 \u0ba4\u0bcd \u09b8\u09cd\u0995",
                 "\u0628\u0650\u0633\u0652\u0645\u0650"):
        assert _fast(text) is not None, text
        assert _fast(text) == reference_normalize(text)
    table = char_table()[0]
    free = [cp for cp in range(0x300, 0x2000)  # combining marks the table maps alone
            if unicodedata.combining(chr(cp)) and table[0, cp] >= 0]
    assert len(free) > 100
    low = min(free, key=lambda cp: unicodedata.combining(chr(cp)))
    high = max(free, key=lambda cp: unicodedata.combining(chr(cp)))
    moved = f"a{chr(high)}{chr(low)}"  # canonical order puts the low class first
    assert reference_normalize(moved) != moved
    assert _fast(moved) is None
    assert _fast(f"a{chr(low)}{chr(high)}") == reference_normalize(f"a{chr(low)}{chr(high)}")


# starters (some that marks compose with), precomposed letters, combining marks of many
# classes (some compose, most not), spaces, hyphens and invisible characters between them
_MARKS_ALPHABET = st.sampled_from(
    list("ae\u0915\u0928\u0627\u064a\u05d9\u0e01\u00e9\u01d8\u1e69 -\u200b\u00ad\u3000")
    + list("\u0301\u0308\u0316\u0323\u093c\u094d\u0bcd\u0bbe\u064b\u0650\u0652\u0654")
    + list("\u0670\u05b0\u05b4\u05bc\u0e38\u0e48\u0345\u0346\u0360\u1dc0\u20d0")
)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.lists(_MARKS_ALPHABET, max_size=12).map("".join))
def test_compiled_normalizer_equals_the_str_steps_around_combining_marks(text: str) -> None:
    fast = _fast(text)
    if fast is not None:
        assert fast == reference_normalize(text)


def test_combining_marks_texts_mostly_take_the_compiled_path() -> None:
    """(What the test above compares is not only the str steps' texts.)"""
    import random

    rng = random.Random(7)
    letters = "ae\u0915\u0928\u0627\u064a \u094d\u0650\u0652\u064b\u05b0"
    texts = ["".join(rng.choice(letters) for _ in range(10)) for _ in range(500)]
    fast = [t for t in texts if _fast(t) is not None]
    assert len(fast) > 100
    assert all(_fast(t) == reference_normalize(t) for t in fast)


def test_compiled_normalizer_can_fail_against_a_wrong_table() -> None:
    """The table's neighbour rule matters: mapping a combining mark alone breaks composition."""
    table, points = char_table()
    wrong = table.copy()
    wrong[0, 0x301], wrong[1, 0x301] = 0, 0  # U+0301 as if it were invisible
    out, ok = kernels._normalize(kernels.text_bytes("cafe\u0301"), wrong, points)
    assert ok and out.tobytes().decode() != reference_normalize("cafe\u0301")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.sets(st.integers(0, 2**64 - 1), max_size=60),
    st.sets(st.integers(0, 2**64 - 1), max_size=60),
    st.sets(st.integers(0, 2**64 - 1), max_size=20),
)
def test_shared_count_is_the_intersection_size(a: set[int], b: set[int], both: set[int]) -> None:
    x = np.array(sorted(a | both), dtype=np.uint64)
    y = np.array(sorted(b | both), dtype=np.uint64)
    assert kernels.shared_count(x, y) == np.intersect1d(x, y).size


def test_sketch_utf8_is_the_digest_sketch() -> None:
    from webdedup.algorithms.text import SKETCH_CHARS, digest_text, sketch_utf8

    long = "Ünïcode wörds and 東京 " * (SKETCH_CHARS // 10)  # beyond the sketch's cap
    for text in [*TEXTS[:300], long, "", "   ", "e\u0301 x"]:
        assert sketch_utf8(text) == digest_text(text).utf8


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _well_formed(data: bytes) -> bool:
    """Whether the compiled normalizer reads ``data`` (bytes): only when Python's strict
    decoder does, and every code point is in the table."""
    return kernels.normalize_utf8(data, *char_table()) is not None


@numba.njit
def _strictly_valid(buf: np.ndarray) -> bool:
    i = 0
    while i < buf.size:
        width = 1 if buf[i] < 0x80 else kernels._well_formed(buf, i, buf.size)
        if width == 0:
            return False
        i += width
    return True


def _expected(data: bytes) -> bool:
    table = char_table()[0]
    covered = lambda text: all(  # noqa: E731
        ord(ch) < table.shape[1] and table[0, ord(ch)] >= 0 for ch in text
    )
    return _decodes(data) and covered(data.decode("utf-8"))


# the lead and continuation bytes around every boundary of UTF-8's well-formed table
_UTF8_EDGES = st.sampled_from(
    [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1]
    + [0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFE, 0xFF]
)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.one_of(st.binary(max_size=12), st.lists(_UTF8_EDGES, max_size=8).map(bytes)))
def test_bytes_are_read_only_when_pythons_strict_decoder_reads_them(data: bytes) -> None:
    assert _well_formed(data) == _expected(data)


def test_bytes_read_on_every_short_sequence_of_edge_bytes() -> None:
    import itertools

    edges = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF]
    edges += [0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFF]
    tails = [0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0]
    cases = [bytes(c) for n in (1, 2, 3) for c in itertools.product(edges, repeat=n)]
    cases += [bytes((lead, *c)) for lead in edges[19:] for c in itertools.product(tails, repeat=3)]
    wrong = [c for c in cases if _well_formed(c) != _expected(c)]
    assert not wrong, wrong[:5]
    # the check alone (the table also turns away surrogates and code points beyond it)
    wrong = [c for c in cases if _strictly_valid(np.frombuffer(c, np.uint8)) != _decodes(c)]
    assert not wrong, wrong[:5]
    # a sequence cut by the end of an array that goes on in memory (no NUL after it)
    for whole in ("\u00e9", "\u20ac", "\U0001f600"):
        data = np.frombuffer(whole.encode() * 2, np.uint8)
        assert not _strictly_valid(data[: len(whole.encode()) - 1])


def test_bytes_read_on_every_code_point_and_its_cut_forms() -> None:
    for cp in range(0x80, 0x110000):
        encoded = chr(cp).encode("utf-8", "surrogatepass")
        assert _well_formed(encoded) == _expected(encoded), hex(cp)
        if cp % 97 == 0:
            assert not _well_formed(encoded[:-1]), hex(cp)
            assert not _well_formed(encoded[1:]), hex(cp)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.one_of(st.binary(max_size=40), st.lists(_UTF8_EDGES, max_size=30).map(bytes)))
def test_bytes_normalize_as_their_lenient_decoding(data: bytes) -> None:
    from webdedup.algorithms.text import digest_text, normalized_utf8, sketch_utf8

    text = data.decode("utf-8", "replace")  # what store.pages.as_text reads
    assert normalized_utf8(data) == normalized_utf8(text)
    assert digest_text(data) == digest_text(text)
    assert sketch_utf8(data) == sketch_utf8(text)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(
    st.one_of(
        st.binary(max_size=40),
        st.text(alphabet="ab \u00e9\u6771\n\u00a0-\u200b", max_size=30).map(str.encode),
    ),
    st.integers(1, 12),
)
def test_bytes_beyond_the_piece_size_digest_as_their_decoding(data: bytes, piece: int) -> None:
    from webdedup.algorithms.text import digest_text

    text = data.decode("utf-8", "replace")
    assert digest_text(data, piece_chars=piece) == digest_text(text, piece_chars=piece)


def test_bytes_normalize_as_text_on_every_real_text() -> None:
    from webdedup.algorithms.text import digest_text, sketch_utf8

    for text in TEXTS:
        data = text.encode("utf-8", "surrogatepass")
        assert digest_text(data) == digest_text(text)
        assert sketch_utf8(data) == sketch_utf8(text)
        broken = data[:-1] if data and data[-1] >= 0x80 else data + b"\xe2\x80"  # a cut tail
        assert digest_text(broken) == digest_text(broken.decode("utf-8", "replace"))


def test_stray_matches_far_outside_a_texts_body_do_not_stretch_its_span():
    # the shorter's last words also stand at the head of the longer's other text (a line of
    # chrome), far from the body: the stretch that holds the shorter is the body
    body = " ".join(f"w{i}" for i in range(200))
    short = body + " end zz yy xx"
    longer = "zz yy xx " + " ".join(f"c{i}" for i in range(100)) + " " + body
    _, (covered, _total, span) = kernels.coverage(short, longer, 3)
    assert covered / span > 0.98  # from its first match to its last: 0.70


def test_a_text_found_in_two_halves_far_apart_is_not_dense():
    first = " ".join(f"a{i}" for i in range(100))
    second = " ".join(f"b{i}" for i in range(100))
    filler = " ".join(f"c{i}" for i in range(400))
    _, (covered, _total, span) = kernels.coverage(
        first + " " + second, first + " " + filler + " " + second, 3
    )
    assert covered / span < 0.55  # either half alone holds only half of what was found


def _fresh(code: str) -> str:
    """The output of ``code`` run in a fresh interpreter (numba not started yet)."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_numba_starts_without_importing_scipy_linalg():
    # the kernels work, scipy.linalg was never imported, numba's probe is put back
    out = _fresh(
        "import sys\n"
        "import numba.np.linalg as linalg\n"
        "probe = linalg.ensure_blas\n"
        "from webdedup.algorithms.text import compiled\n"
        "compiled().warm_up()\n"
        "print(compiled().fold_tail(' A\\u2014\\u2014b '), 'scipy.linalg' in sys.modules,\n"
        "      linalg.ensure_blas is probe)\n"
    )
    assert out == "a-b False True"


def test_another_threads_import_of_scipy_is_left_alone():
    # numba's probe answered "none" without touching the imports: a thread importing
    # scipy.linalg meanwhile gets it
    out = _fresh(
        "import threading\n"
        "errors = []\n"
        "def load():\n"
        "    try:\n"
        "        import scipy.linalg.cython_blas\n"
        "    except Exception as exc:\n"
        "        errors.append(repr(exc))\n"
        "thread = threading.Thread(target=load)\n"
        "thread.start()\n"
        "from webdedup.algorithms.text import compiled\n"
        "compiled().warm_up()\n"
        "thread.join()\n"
        "print(errors)\n"
    )
    assert out == "[]"


def test_a_process_that_loaded_scipys_blas_first_keeps_numbas_blas():
    out = _fresh(
        "import scipy.linalg.cython_blas\n"
        "from webdedup.algorithms.text import compiled\n"
        "compiled().warm_up()\n"
        "import numba.np.arraymath\n"
        "print(numba.np.arraymath._HAVE_BLAS)\n"
    )
    assert out == "True"


def test_numbas_own_linear_algebra_still_loads_scipy_when_used():
    out = _fresh(
        "import numba, numpy as np\n"
        "from webdedup.algorithms.text import compiled\n"
        "compiled().warm_up()\n"
        "dot = numba.njit(lambda a, b: np.dot(a, b))\n"
        "print(dot(np.ones(3), np.ones(3)))\n"
    )
    assert out == "3.0"


def reference_digest_parts(text: str, cap: int) -> tuple[int, tuple[int, int, int], int]:
    """:func:`kernels.digest_parts` by its definition: characters, length parts, the UTF-8
    length of the first ``cap`` characters."""
    cut = len(text[:cap].encode("utf-8", "surrogatepass"))
    return len(text), reference_length_parts(text), cut


def test_digest_parts_equal_the_definition_on_every_real_text() -> None:
    # ASCII texts too: the word steps take eight ASCII bytes at a time
    for i, text in enumerate(TEXTS):
        cap = (0, 7, 8, 9, 1000, 10**9)[i % 6]
        data = text.encode("utf-8", "surrogatepass")
        assert kernels.digest_parts(data, cap) == reference_digest_parts(text, cap)


_WORD_ALPHABET = st.sampled_from(
    # the bytes around the whitespace ones, then a few that are not ASCII
    list("ab!~\x7f\x00\x08\x09\x0a\x0b\x0c\x0d\x0e\x1b\x1c\x1d\x1e\x1f\x20\x21")
    + list("é東ไ\u3000\u00a0\x85")
)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(st.text(alphabet=_WORD_ALPHABET, max_size=60), st.integers(0, 70))
def test_digest_parts_equal_the_definition_across_word_edges(text: str, cap: int) -> None:
    # runs of ASCII that start, end and break a token at every offset of an 8-byte word
    assert kernels.digest_parts(text.encode(), cap) == reference_digest_parts(text, cap)


def test_text_words_are_the_same_built_a_byte_at_a_time() -> None:
    """What a big-endian machine takes (bytes into words, the first lowest) gives the words
    this one makes of a view of the bytes."""
    for text in ["", "a", "seven b", "eight by", "nine byte", *TEXTS[:50]]:
        buf = kernels.text_bytes(text)
        words = kernels._text_words(buf)
        again = words.copy()
        again[1 : buf.size // 8 + 1] = 0
        kernels._words_bytewise(buf, again)
        assert np.array_equal(words, again)
        assert words[1 : buf.size // 8 + 2].view(np.uint8)[: buf.size].tobytes() == buf.tobytes()


def reference_weights(text: str) -> list[int]:
    """token_weights by its definition: a token's code points, plus one when a space (not
    the end of the text nor a character of an unspaced script) follows a spaced token."""
    weights = []
    for m in _TOKEN.finditer(text):
        token, after = m.group(), text[m.end() : m.end() + 1]
        spaced = not UNSPACED.fullmatch(token)
        weights.append(len(token) + (1 if spaced and after.isspace() else 0))
    return weights


def test_token_weights_equal_the_definition_on_every_real_text() -> None:
    for text in TEXTS:
        assert kernels.token_weights(text).tolist() == reference_weights(text)


# tokens of every length around the eight-byte steps of the tokenizer (1 to 26 bytes), ASCII
# and not, between runs of the separators it finds eight ASCII bytes at a time and one by one
_LONG_TOKEN = st.builds(
    lambda chars, length: (chars * 26)[:length],
    st.text(alphabet=st.sampled_from(list("ab!~\x7f\x00é東ไ\U00020001")), min_size=1,
            max_size=4),
    st.integers(1, 26),
)
_SEPARATOR = st.text(
    alphabet=st.sampled_from(list("\t\n\x0b\x0c\r\x1c\x1f \x85\xa0\u3000")), min_size=1,
    max_size=9,
)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_LONG_TOKEN, _SEPARATOR), max_size=8), st.booleans(),
       st.integers(0, 7))
def test_tokens_and_weights_equal_the_definition_across_word_edges(
    parts: list[tuple[str, str]], trailing: bool, lead: int
) -> None:
    text = " " * lead + "".join(t + s for t, s in parts)
    if not trailing and parts:
        text = text[: len(text) - len(parts[-1][1])]  # the text ends inside a token
    expected = [zlib.crc32(t.encode("utf-8", "surrogatepass")) for t in reference_tokens(text)]
    assert kernels.token_crc32(text).tolist() == expected
    assert kernels.token_values(text).tolist() == reference_values(text)
    assert kernels.token_weights(text).tolist() == reference_weights(text)
    for size in (1, 5):
        assert np.array_equal(shingle_hashes(text, size), reference_shingles(text, size))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.text(alphabet=_WORD_ALPHABET, max_size=60))
def test_token_weights_equal_the_definition_on_generated_text(text: str) -> None:
    assert kernels.token_values(text).tolist() == reference_values(text)
    assert kernels.token_weights(text).tolist() == reference_weights(text)


def _placed(text: str, size: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    words, weights = kernels._weighted_tokens(kernels.text_bytes(text), kernels._TABLE)
    return (*kernels._placed_shingles(words, size), weights)


def _depths(text: str, other: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray]:
    hashes, starts, lengths, weights = _placed(text)
    by_table = np.zeros(weights.size + 1, dtype=np.int64)
    ok = kernels._matched_by_table(hashes, starts, lengths, other, by_table)
    by_sorting = np.zeros(weights.size + 1, dtype=np.int64)
    kernels._matched_by_sorting(hashes, starts, lengths, other, by_sorting)
    return ok, by_table, by_sorting


def test_coverage_by_table_matches_as_sorting_does_on_real_texts() -> None:
    # pairs of real texts that share lines (a text and a reordered, trimmed, doubled copy)
    checked = 0
    for i, text in enumerate(TEXTS[:600:3]):
        lines = text.split("\n")
        copy = "\n".join(lines[1:] + lines[: i % 4] + lines[:2])  # moved, repeated lines
        other = _placed(copy)[0]
        ok, by_table, by_sorting = _depths(text, other)
        assert ok
        assert np.array_equal(by_table, by_sorting)
        checked += int(by_sorting.any())
    assert checked > 100


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from("a b c d e".split()), max_size=40),
       st.lists(st.sampled_from("a b c d e".split()), max_size=40))
def test_coverage_by_table_counts_repeats_as_a_multiset(a: list[str], b: list[str]) -> None:
    ok, by_table, by_sorting = _depths(" ".join(a), _placed(" ".join(b))[0])
    assert ok
    assert np.array_equal(by_table, by_sorting)


def test_shingles_crowding_the_table_give_way_to_sorting() -> None:
    # hashes whose low bits are all equal fall in one slot: the table gives up, and the
    # coverage is still that of sorting
    text = " ".join(f"w{i}" for i in range(3000))
    hashes, starts, lengths, weights = _placed(text)
    crowded = (np.arange(hashes.size, dtype=np.uint64) + np.uint64(1)) << np.uint64(40)
    mine = crowded.copy()
    mine[::2] = hashes[::2]  # half of its shingles found in the other text
    other = np.concatenate([crowded[1::2], hashes[::2]])
    depth = np.zeros(weights.size + 1, dtype=np.int64)
    assert not kernels._matched_by_table(mine, starts, lengths, other, depth)
    expected = np.zeros(weights.size + 1, dtype=np.int64)
    kernels._matched_by_sorting(mine, starts, lengths, other, expected)
    assert expected.any()
    covered, span = kernels._covered_span(expected, weights, weights.size)
    total = int(weights.sum())
    assert kernels._covered(mine, starts, lengths, weights, other) == (covered, total, span)
