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

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

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
    for ch in _INVISIBLE_CHARS:  # str.replace per present character: far faster than translate
        if ch in text:
            text = text.replace(ch, "")
    folded = unicodedata.normalize("NFKC", text).casefold()
    # Case folding can leave a few characters outside NFKC; a second pass makes the
    # function idempotent (normalize_text(normalize_text(x)) == normalize_text(x)).
    if not unicodedata.is_normalized("NFKC", folded):
        folded = unicodedata.normalize("NFKC", folded).casefold()
    from . import kernels  # numba loads on first use, not with every command

    # typography, hyphen runs, whitespace: one compiled pass (== the three str steps of the
    # ASCII branch above with _TYPOGRAPHY first; tests/test_kernels.py compares them)
    return kernels.fold_tail(folded)


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
    from . import kernels  # numba loads on first use, not with every command

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
    sketch: str  # the normalized text, capped at SKETCH_CHARS characters

    @property
    def empty(self) -> bool:
        return self.n_chars == 0


def digest_text(text: str | None, *, piece_chars: int = PIECE_CHARS) -> TextDigest:
    """Normalize and hash ``text``; memory stays bounded for huge pages.

    The hash equals ``sha1(normalize_text(text))`` for every input.
    """
    if not text:
        return TextDigest(hashlib.sha1(b"").hexdigest(), 0, 0, "")
    if len(text) <= piece_chars:
        norm = normalize_text(text)
        return TextDigest(
            hashlib.sha1(norm.encode("utf-8", "surrogatepass")).hexdigest(),
            len(norm),
            word_length(norm),
            norm[:SKETCH_CHARS],
        )
    h = hashlib.sha1()
    n_chars = 0
    lengths = [0, 0, 0]
    sketch: list[str] = []
    sketch_len = 0
    for piece in _pieces(text, piece_chars):
        norm = normalize_text(piece)
        if not norm:
            continue
        if n_chars:
            h.update(b" ")
            n_chars += 1
            if sketch_len < SKETCH_CHARS:
                sketch.append(" ")
                sketch_len += 1
        h.update(norm.encode("utf-8", "surrogatepass"))
        n_chars += len(norm)
        for i, part in enumerate(_length_parts(norm)):
            lengths[i] += part
        if sketch_len < SKETCH_CHARS:
            take = norm[: SKETCH_CHARS - sketch_len]
            sketch.append(take)
            sketch_len += len(take)
    n_words = _words((lengths[0], lengths[1], lengths[2]))
    return TextDigest(h.hexdigest(), n_chars, n_words, "".join(sketch))


def content_hash(text: str | None) -> str:
    """SHA-1 hex of the normalized text (the ``content_hash`` column)."""
    return digest_text(text).sha1
