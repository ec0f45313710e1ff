"""Text normalization and content hashing.

``normalize_text`` applies Unicode NFKC, case folding, typographic folding and whitespace
collapsing. It never deletes characters of any script: only their form and case change, and
the invisible format characters a CMS inserts (soft hyphen, zero-width space, word joiner,
byte-order mark) are dropped. Typographic folding maps curly quotes and apostrophes to ``'``
and ``"``, every dash and the minus sign to ``-`` (a run of hyphens to one), so a page and its
copy through a CMS's typography filter hash alike (``…`` becomes ``...`` through NFKC, and
full-width forms become their ASCII twins). ``digest_text`` does the same in bounded pieces
for very large pages and returns the SHA-1 of the normalized text with its length, its length
in words (:func:`word_length`) and a capped prefix for sketching.

Scripts written without spaces between words (Han, Hiragana, Katakana, Thai, Lao, Khmer,
Myanmar: :data:`UNSPACED`) are tokenized per character: each such character is a token of its
own, every other run of non-space characters is one token (:func:`tokens`); their shingles
are character trigrams (:mod:`.shingles`).

Example::

    >>> normalize_text("  Ｈｅｌｌｏ\\u00a0WORLD\\n\\tСлава  ")
    'hello world слава'
    >>> print(normalize_text("It\u2019s \u201cfine\u201d \u2014 really\u2026"))
    it's "fine" - really...
    >>> tokens("東京 is big")
    ['東', '京', 'is', 'big']
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from types import CodeType, ModuleType

import numpy as np

#: Texts longer than this (in characters) are normalized piece by piece.
PIECE_CHARS = 1 << 20
#: The normalized text kept for near-duplicate sketches is capped at this many characters.
SKETCH_CHARS = 200_000
#: Version of what normalization and tokenization produce (part of the config fingerprint:
#: stored hashes and signatures of another version are rebuilt once).
NORMALIZATION_VERSION = 3  # 3: character-trigram shingles for unspaced scripts

#: Invisible format characters dropped before NFKC (never a character of a script).
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff"))
#: Typographic variants folded after NFKC: quotes, apostrophes, dashes, minus sign.
_TYPOGRAPHY = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2039\u203a", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58", "-"),
    }
)
_INVISIBLE_CHARS = tuple(map(chr, _INVISIBLE))

#: Scripts written without spaces between words: a character of them is a token of its own.
#: Han (with its extensions and compatibility ideographs), Hiragana, Katakana; and the
#: Brahmic scripts of South-East Asia (Thai, Lao, Myanmar, Khmer).
_CJK_RANGES = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
_SEA_RANGES = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff"
UNSPACED = re.compile(f"[{_CJK_RANGES}{_SEA_RANGES}]")
_CJK = re.compile(f"[{_CJK_RANGES}]")
_SEA = re.compile(f"[{_SEA_RANGES}]")
_TOKEN = re.compile(f"[{_CJK_RANGES}{_SEA_RANGES}]|[^\\s{_CJK_RANGES}{_SEA_RANGES}]+")
#: Characters that count as one word in :func:`word_length` (a Chinese or Japanese word is
#: about two characters; a Thai, Lao, Khmer or Burmese one about five code points).
CJK_CHARS_PER_WORD = 2
SEA_CHARS_PER_WORD = 5


@functools.cache
def compiled() -> ModuleType:
    """:mod:`.kernels` (numba loads on first use, not with every command; a cached call, not
    an ``import`` statement in each hot function)."""
    from . import kernels

    return kernels


def _collapse_hyphens(text: str) -> str:
    """Every run of hyphens as one hyphen (``str.replace`` passes: far faster than a regex).

    >>> _collapse_hyphens("a -- b --- c - d")
    'a - b - c - d'
    """
    while "--" in text:
        text = text.replace("--", "-")
    return text


def normalize_text(text: str) -> str:
    """NFKC + case fold + typographic folding + collapse every run of whitespace to one space.

    >>> normalize_text("co\u00adop\u200bera\ufefftion -- en\u2013dash")
    'cooperation - en-dash'
    """
    if not text:
        return ""
    if text.isascii():
        out = " ".join(text.lower().split())
        return _collapse_hyphens(out)
    kernels = compiled()
    fast = kernels.normalize_utf8(text, *char_table())
    if fast is not None:
        return fast.tobytes().decode("utf-8")
    return _normalize_str(text)


def _normalize_str(text: str) -> str:
    """:func:`normalize_text` by the ``str`` and ``unicodedata`` steps (every text; the
    compiled table of :func:`char_table` does the same for the texts it covers)."""
    if text.isascii():
        out = " ".join(text.lower().split())
        return _collapse_hyphens(out)
    for ch in _INVISIBLE_CHARS:  # str.replace per present character: far faster than translate
        if ch in text:
            text = text.replace(ch, "")
    folded = unicodedata.normalize("NFKC", text).casefold()
    # Case folding can leave a few characters outside NFKC; a second pass makes the
    # function idempotent (normalize_text(normalize_text(x)) == normalize_text(x)).
    if not unicodedata.is_normalized("NFKC", folded):
        folded = unicodedata.normalize("NFKC", folded).casefold()
    kernels = compiled()
    # typography, hyphen runs, whitespace: one compiled pass (== the three str steps of the
    # ASCII branch above with _TYPOGRAPHY first; tests/algorithms/test_kernels.py compares them)
    return kernels.fold_tail(folded)


#: The compiled normalizer's table covers the code points below this (the BMP and planes 1
#: and 2: every script, symbol and emoji; a text with a code point above it takes the
#: ``str`` steps).
TABLE_LIMIT = 0x30000


#: The table :func:`char_table` returns, once made or given (:func:`use_char_table`).
_CHAR_TABLE: list[tuple[np.ndarray, np.ndarray]] = []


def char_table() -> tuple[np.ndarray, np.ndarray]:
    """The normalizer's table (:func:`build_char_table`), made once a process, or the copy
    given to :func:`use_char_table` (a run loads a copy from disk: ``pipeline.char_cache``).
    """
    if not _CHAR_TABLE:
        _CHAR_TABLE.append(build_char_table())
    return _CHAR_TABLE[0]


def use_char_table(table: np.ndarray, points: np.ndarray) -> None:
    """Make ``(table, points)`` the normalizer's table of this process: a copy of what
    :func:`build_char_table` made from the same :func:`char_table_key` (the caller checks)."""
    _CHAR_TABLE[:] = [(table, points)]


def char_table_key() -> str:
    """What :func:`build_char_table` makes its table from, as a short hex digest: this
    Python's Unicode database, :data:`TABLE_LIMIT`, the invisible characters and the
    builder's own code (any edit of it gives another key). A stored table is only good for
    the same key.

    >>> len(char_table_key()), char_table_key() == char_table_key()
    (16, True)
    """
    made_of = [
        sys.version.encode(),  # (a patch release may change unicodedata's behaviour)
        unicodedata.unidata_version.encode(),
        str(TABLE_LIMIT).encode(),
        ",".join(map(str, sorted(_INVISIBLE))).encode(),
        _code_digest(build_char_table.__code__),
    ]
    return hashlib.sha1(b"\0".join(made_of)).hexdigest()[:16]


def _code_digest(code: CodeType) -> bytes:
    """A digest of what a function's code does: its bytecode, names and constants, nested
    functions' code included; not its file name or line numbers (an edit elsewhere in the
    file, or another checkout, keeps the key). Not ``marshal.dumps``: its bytes depend on
    reference counts."""
    digest = hashlib.sha1(code.co_code)
    digest.update(repr((code.co_names, code.co_varnames, code.co_freevars)).encode())
    for const in code.co_consts:
        digest.update(_code_digest(const) if isinstance(const, CodeType) else _stable(const))
    return digest.digest()


def _stable(const: object) -> bytes:
    """A constant's bytes the same in every process (a frozenset of strings iterates in an
    order that string hashing, randomized by process, decides: sorted here)."""
    if isinstance(const, frozenset):
        return repr(sorted(repr(x) for x in const)).encode()
    return repr(const).encode()


def build_char_table() -> tuple[np.ndarray, np.ndarray]:
    """What :func:`normalize_text`'s Unicode steps make of each code point below
    :data:`TABLE_LIMIT`, for the compiled normalizer (:func:`.kernels.normalize_utf8`).

    ``(table, points)``: the steps (drop the invisible characters, NFKC, case folding,
    NFKC and case folding again if needed) turn code point ``c`` into ``points[table[0, c]:
    table[1, c]]`` **when that does not depend on its neighbours**; ``table[0, c] == -1``
    marks the code points where it may (then the whole text takes the ``str`` steps). Each
    point carries its canonical combining class from bit 32 up (0: a starter).

    Normalization composes a character with the one before it only when the second one is
    the second half of a canonical pair: a combining mark (Latin accents, the Devanagari
    nukta...) or a starter (Hangul vowels and final consonants, some Indic vowel signs). A
    code point is mapped alone when neither it nor the pieces the steps make of it (each
    before the next step) begins, fully decomposed, with such a character, nor with
    combining marks one of which is. The other combining marks (viramas, Arabic and Hebrew
    vowel signs...) compose with nothing: they only move, in canonical order, before the
    marks ahead of them of a higher class, which the compiled normalizer checks as it
    writes (a text where one would move takes the ``str`` steps). Then a text of such code
    points normalizes piece by piece, and the concatenation is what the steps make of the
    whole text. Case folding must also leave each piece as it is (the steps fold twice when
    the second NFKC runs). Built from this Python's ``unicodedata`` in 0.3-0.6 s, once a
    process (a run loads a stored copy: ``pipeline.char_cache``);
    ``tests/algorithms/test_kernels.py`` compares the result with the ``str`` steps on
    every code point, real texts and generated ones.
    """
    limit = TABLE_LIMIT
    chars = [chr(cp) for cp in range(1, limit)]  # "\0" separates them in the bulk steps
    joined = "\0".join(chars)
    nfd = unicodedata.normalize("NFD", joined).split("\0")
    composes_back = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # Hangul V, T
    for c, d in zip(chars, nfd, strict=True):  # second halves of canonical pairs
        if d != c:
            parts = unicodedata.decomposition(c).split()
            if len(parts) == 2 and parts[0][0] != "<":
                composes_back.add(int(parts[1], 16))
    def composes_left(decomposed: str) -> bool:
        """May this fully decomposed piece compose with what precedes it: its first
        character, or a combining mark before its first starter, is a second half."""
        for x in decomposed:
            if ord(x) in composes_back:
                return True
            if not unicodedata.combining(x):
                return False
        return False

    left = [False] + [  # may a piece that begins with this code point merge into what precedes?
        composes_left(d) for d in unicodedata.normalize("NFKD", joined).split("\0")
    ]

    def joins_left(piece: str) -> bool:
        if not piece:
            return False
        if len(piece) == 1 and ord(piece) < limit:
            return left[ord(piece)]
        return composes_left(unicodedata.normalize("NFKD", piece))

    def point(x: str) -> int:  # a code point, its canonical combining class above bit 32
        return ord(x) | unicodedata.combining(x) << 32

    nfkc = unicodedata.normalize("NFKC", joined).split("\0")
    folded = "\0".join(nfkc).casefold().split("\0")
    table = np.full((2, limit), -1, dtype=np.int64)
    points: list[int] = []
    for cp, c, n, f in zip(range(1, limit), chars, nfkc, folded, strict=True):
        if f == c and cp not in _INVISIBLE:  # most code points: no step changes them
            if not left[cp] and not 0xD800 <= cp <= 0xDFFF:
                table[0, cp] = len(points)
                points.append(point(c))
                table[1, cp] = len(points)
            continue
        if cp in _INVISIBLE:
            f = ""
        elif 0xD800 <= cp <= 0xDFFF or left[cp] or joins_left(n) or joins_left(f):
            continue  # (the second NFKC may run over the whole text, for another character:
        if not unicodedata.is_normalized("NFKC", f):  # each piece's boundary must hold there)
            f = unicodedata.normalize("NFKC", f).casefold()
        elif f.casefold() != f:
            continue
        table[0, cp] = len(points)
        points.extend(map(point, f))
        table[1, cp] = len(points)
    table[:, 0] = (len(points), len(points) + 1)  # U+0000 is itself
    points.append(0)
    return table, np.array(points, dtype=np.int64)


def has_unspaced(text: str) -> bool:
    """Whether ``text`` has a character of a script written without spaces (:data:`UNSPACED`).

    Every such character lies above Latin-1, so a text that encodes to Latin-1 (a copy, no
    per-character Python work) has none; otherwise one regex search from its first character
    beyond Latin-1 decides.

    >>> has_unspaced("café crème"), has_unspaced("€5 in 東京")
    (False, True)
    """
    if text.isascii():
        return False
    try:
        text.encode("latin-1")
    except UnicodeEncodeError as beyond:
        return UNSPACED.search(text, beyond.start) is not None
    return False


def tokens(text: str) -> list[str]:
    """The tokens of a normalized text: words, and each character of an unspaced script.

    >>> tokens("ภาษาไทย ok")
    ['ภ', 'า', 'ษ', 'า', 'ไ', 'ท', 'ย', 'ok']
    """
    if not has_unspaced(text):
        return text.split()
    return _TOKEN.findall(text)


def _length_parts(norm: str) -> tuple[int, int, int]:
    """(other tokens, CJK characters, South-East Asian characters) of a normalized text."""
    if not norm:
        return 0, 0, 0
    if norm.isascii():
        return norm.count(" ") + 1, 0, 0
    kernels = compiled()
    return kernels.length_parts(norm)


def _words(parts: tuple[int, int, int]) -> int:
    other, cjk, sea = parts
    return other + -(-cjk // CJK_CHARS_PER_WORD) + -(-sea // SEA_CHARS_PER_WORD)  # ceilings


def word_length(norm: str) -> int:
    """The length of a normalized text in words, the same in every script (``min_words``).

    Words separated by spaces count one each; characters of unspaced scripts count
    ``1/CJK_CHARS_PER_WORD`` (Han, Kana) or ``1/SEA_CHARS_PER_WORD`` (Thai, Lao, Khmer,
    Myanmar) of a word, rounded up.

    >>> word_length("a b c"), word_length("東京都渋谷区 tokyo")
    (3, 4)
    """
    return _words(_length_parts(norm))


def _pieces(text: str, size: int) -> Iterator[str]:
    """Split ``text`` into pieces of about ``size`` characters, cutting only at whitespace."""
    start, n = 0, len(text)
    while start < n:
        end = min(start + size, n)
        if end < n:
            cut = end
            while cut > start and not text[cut].isspace():
                cut -= 1
            if cut == start:  # one giant word: extend to the next whitespace, never split it
                cut = end
                while cut < n and not text[cut].isspace():
                    cut += 1
            end = cut
        yield text[start:end]
        start = end


@dataclass(frozen=True)
class TextDigest:
    """What the pipeline keeps of a page's text."""

    sha1: str
    n_chars: int
    n_words: int
    utf8: bytes  # the UTF-8 of the normalized text, capped at SKETCH_CHARS characters

    @property
    def empty(self) -> bool:
        return self.n_chars == 0

    @functools.cached_property
    def sketch(self) -> str:
        """The normalized text, capped at :data:`SKETCH_CHARS` characters."""
        return self.utf8.decode("utf-8", "surrogatepass")


def normalized_utf8(text: str | bytes) -> bytes:
    """``normalize_text(text).encode("utf-8", "surrogatepass")``, mostly without the ``str``
    (the compiled normalizer writes UTF-8).

    ``bytes`` are a text's UTF-8 as read from the database: well-formed ones are normalized
    as they are (no decoding, no encoding back), others are first decoded with replacement
    characters, as :func:`~webdedup.store.pages.as_text` decodes them.

    >>> normalized_utf8("Caf\u00e9  OK".encode()), normalized_utf8(b"Caf\\xe9  OK")
    (b'caf\\xc3\\xa9 ok', b'caf\\xef\\xbf\\xbd ok')
    """
    if not text:
        return b""
    kernels = compiled()
    if isinstance(text, bytes):
        fast = kernels.normalize_utf8(text, *char_table())
        if fast is not None:
            return fast.tobytes()
        try:  # well-formed: the table left a code point to the str steps (it would again)
            return _normalize_str(text.decode("utf-8")).encode("utf-8", "surrogatepass")
        except UnicodeDecodeError:  # not well-formed: decoded as as_text does, then as a str
            text = text.decode("utf-8", "replace")
    if text.isascii():
        return normalize_text(text).encode("ascii")
    fast = kernels.normalize_utf8(text, *char_table())
    if fast is not None:
        return fast.tobytes()
    return _normalize_str(text).encode("utf-8", "surrogatepass")


def sketch_utf8(text: str | bytes | None) -> bytes:
    """``digest_text(text).utf8`` without the hash and the lengths (what verification
    compares).

    >>> sketch_utf8("A  \u201cquoted\u201d text") == digest_text("A  \u201cquoted\u201d text").utf8
    True
    """
    if not text or len(text) > PIECE_CHARS:
        return digest_text(text).utf8
    norm = normalized_utf8(text)
    if len(norm) <= SKETCH_CHARS:  # never more characters than bytes: nothing to cut
        return norm
    return norm[: compiled().digest_parts(norm, SKETCH_CHARS)[2]]


def digest_text(text: str | bytes | None, *, piece_chars: int = PIECE_CHARS) -> TextDigest:
    """Normalize and hash ``text``; memory stays bounded for huge pages.

    The hash equals ``sha1(normalize_text(text))`` for every input (for ``bytes``, of their
    decoding with replacement characters: :func:`normalized_utf8`); more than
    ``piece_chars`` bytes are decoded first, then cut into pieces.
    """
    if not text:
        return TextDigest(hashlib.sha1(b"").hexdigest(), 0, 0, b"")
    kernels = compiled()
    if len(text) <= piece_chars:
        norm = normalized_utf8(text)
        n_chars, parts, cut = kernels.digest_parts(norm, SKETCH_CHARS)
        return TextDigest(hashlib.sha1(norm).hexdigest(), n_chars, _words(parts), norm[:cut])
    h = hashlib.sha1()
    n_chars = 0
    lengths = [0, 0, 0]
    sketch: list[bytes] = []
    sketch_len = 0
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    for piece in _pieces(text, piece_chars):
        norm = normalized_utf8(piece)
        if not norm:
            continue
        if n_chars:
            h.update(b" ")
            n_chars += 1
            if sketch_len < SKETCH_CHARS:
                sketch.append(b" ")
                sketch_len += 1
        h.update(norm)
        chars, parts, cut = kernels.digest_parts(norm, max(0, SKETCH_CHARS - sketch_len))
        n_chars += chars
        for i, part in enumerate(parts):
            lengths[i] += part
        if sketch_len < SKETCH_CHARS:
            sketch.append(norm[:cut])
            sketch_len += min(chars, SKETCH_CHARS - sketch_len)
    n_words = _words((lengths[0], lengths[1], lengths[2]))
    return TextDigest(h.hexdigest(), n_chars, n_words, b"".join(sketch))


def content_hash(text: str | None) -> str:
    """SHA-1 hex of the normalized text (the ``content_hash`` column)."""
    return digest_text(text).sha1
