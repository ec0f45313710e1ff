"""A page's language: detected offline with CLD2 (pycld2), or taken from the crawler's own column.

pycld2 (Python bindings of Chromium's Compact Language Detector 2) ships CLD2 and its tables
compiled in its wheel: nothing is downloaded or loaded at run time, and the same text always
gets the same answer. It is an optional extra (``pip install "webdedup[lang]"``); without it
pages get no language and ``--languages`` is refused.
``benchmarks/studies/compare_language_identifiers.py`` compares it with py3langid (webdedup's
identifier up to ``LANGUAGE_VERSION`` 2), CLD3, fastText's small model and whatlang on the
real texts of ``../shared/data`` (docs, "Language"): as accurate as py3langid there, CJK
included, for a small part of its CPU time.

CLD2 reads a :func:`sample` of the text, :data:`SAMPLE_CHARS` characters at most: a short
text whole, cut into up to :data:`MIN_PIECES` pieces; a longer one through its beginning and
windows at a third and two thirds of it, so a page whose language changes after its
beginning (an article framed by a long page in another language) is seen whole. One CLD2
call reads the pieces and tells which language each span of them is in; a piece's language
is the one of most of its bytes, the page's language the one with the most characters, its
score that language's share of the characters (1.0 for a page in one language, 0.5 to 0.75
for a half-German half-English page), halved when CLD2 calls its answer unreliable. So the
language guard (:func:`different_languages`) trusts only pages that are surely in one
language, and leaves mixed pages to their texts' similarity.

Example::

    >>> normalize_code("en-US"), normalize_code(" DE "), normalize_code("x"), normalize_code(None)
    ('en', 'de', None, None)
    >>> different_languages("de", 0.99, "fr", 1.0), different_languages("de", 0.6, "fr", 1.0)
    (True, False)
    >>> unknown_codes(["en", "de", "klingon"])
    ['klingon']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, NamedTuple

#: A text up to this many characters is read whole; of a longer one, :func:`sample` reads
#: this many: half at its beginning, half in windows (the cost follows these characters).
SAMPLE_CHARS = 600
#: Pieces of a long text's sample: its beginning, and windows at a third and two thirds.
WINDOWS = 3
#: A text read whole is cut into this many pieces ...
MIN_PIECES = 3
#: ... of at least this many characters (:func:`pieces` joins a last piece shorter than half
#: a piece to the one before: a text under about 300 characters is one piece).
MIN_PIECE_CHARS = 200
#: Fewer words than this, in a text shorter than :data:`MIN_CHARS`, and no language is
#: detected (too little to tell; the length lets a CJK text, written without spaces, count).
MIN_WORDS = 5
MIN_CHARS = 50
#: A detection at least this probable counts for the language guard.
GUARD_CONFIDENCE = 0.9
#: The tag for text without linguistic content (a crawler's value; never "a language" for
#: the guard).
NO_LANGUAGE = "zxx"
#: CLD2's old codes, as ISO 639-1 (and its traditional Chinese as Chinese).
_ALIASES = {"iw": "he", "jw": "jv", "zh-Hant": "zh"}
#: Characters CLD2 refuses as invalid UTF-8 (C0 and C1 controls but tab, newline and form
#: feed, and noncharacters; lone surrogates cannot be encoded at all).
_REFUSED = re.compile(
    r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(rf"\U{plane:04x}fffe\U{plane:04x}ffff" for plane in range(17))
    + "]"
)

#: The codes CLD2 answers with, as ISO 639-1 (else 639-3), sorted, without its test and
#: script-only labels; a crawler's own column may hold others. ``tests/pipeline/test_language.py``
#: checks this against pycld2.
KNOWN_LANGUAGES: tuple[str, ...] = (
    "aa", "ab", "af", "ak", "am", "ar", "as", "ay", "az", "ba", "be", "bg", "bh", "bi", "bn",
    "bo", "br", "bs", "ca", "ceb", "chr", "co", "crs", "cs", "cy", "da", "de", "dv", "dz",
    "el", "en", "eo", "es", "et", "eu", "fa", "fi", "fj", "fo", "fr", "fy", "ga", "gd", "gl",
    "gn", "gu", "gv", "ha", "haw", "he", "hi", "hmn", "hr", "ht", "hu", "hy", "ia", "id", "ie",
    "ig", "ik", "is", "it", "iu", "ja", "jv", "ka", "kha", "kk", "kl", "km", "kn", "ko", "ks",
    "ku", "ky", "la", "lb", "lg", "lif", "ln", "lo", "lt", "lv", "mfe", "mg", "mi", "mk", "ml",
    "mn", "mr", "ms", "mt", "my", "na", "ne", "nl", "nn", "no", "nr", "nso", "ny", "oc", "om",
    "or", "pa", "pl", "ps", "pt", "qu", "rm", "rn", "ro", "ru", "rw", "sa", "sco", "sd", "sg",
    "si", "sk", "sl", "sm", "sn", "so", "sq", "sr", "ss", "st", "su", "sv", "sw", "syr", "ta",
    "te", "tg", "th", "ti", "tk", "tl", "tn", "to", "tr", "ts", "tt", "ug", "uk", "ur", "uz",
    "ve", "vi", "vo", "war", "wo", "xh", "yi", "yo", "za", "zh", "zu",
)
_KNOWN = frozenset(KNOWN_LANGUAGES)

_CODE = re.compile(r"^([a-z]{2,3})(?:[-_][a-z0-9]{1,8})*$")


class Detection(NamedTuple):
    """A language code and how sure the identifier is (1.0 for a crawler's own value)."""

    lang: str | None
    score: float | None


NONE = Detection(None, None)


def normalize_code(value: Any) -> str | None:
    """A language tag (``en-US``, ``pt_BR``, ``DE``) as its primary subtag, else None."""
    if not isinstance(value, str):
        return None
    m = _CODE.match(value.strip().lower())
    return m.group(1) if m else None


def unknown_codes(codes: Iterable[str]) -> list[str]:
    """The codes of ``codes`` that are not in :data:`KNOWN_LANGUAGES`, in order."""
    known = set(KNOWN_LANGUAGES)
    return [c for c in codes if c not in known]


def available() -> bool:
    """Whether the identifier (the ``lang`` extra, pycld2) is installed."""
    try:
        import pycld2  # noqa: F401
    except ImportError:
        return False
    return True


def detect(text: str | None) -> Detection:
    """The language of ``text`` (of its :func:`sample`) and its score.

    CLD2 reads the pieces of the sample at once (one call, the pieces on lines of their own)
    and tells which language each span of them is in; a piece's language is the one of most
    of its bytes. The page's language is the one with the most characters, its score the
    share of characters in that language, halved when CLD2 calls its answer unreliable. No
    language for a text of fewer than :data:`MIN_WORDS` words and :data:`MIN_CHARS`
    characters, for one CLD2 cannot tell, or when pycld2 is not installed. Deterministic:
    the same text always gets the same answer.

    >>> detect("Der Ausschuss hat die Vorlage nach langer Beratung am Dienstag angenommen.")
    Detection(lang='de', score=1.0)
    >>> detect("Der Ausschuss hat die Vorlage \\x00 nach langer Beratung am " + chr(0xD800))
    Detection(lang='de', score=1.0)
    """
    if not text or (len(text) < MIN_CHARS and len(text.split(None, MIN_WORDS)) < MIN_WORDS):
        return NONE
    try:
        import pycld2
    except ImportError:
        return NONE
    parts = sample(text)
    try:
        utf8 = [part.encode() for part in parts]
        reliable, _, _, spans = pycld2.detect(b"\n".join(utf8), isPlainText=True,
                                              returnVectors=True)
    except (pycld2.error, UnicodeEncodeError):  # a control character, a lone surrogate
        utf8 = [_REFUSED.sub(" ", part).encode() for part in parts]
        reliable, _, _, spans = pycld2.detect(b"\n".join(utf8), isPlainText=True,
                                              returnVectors=True)
    last_piece = sum(map(len, utf8)) + len(utf8) - 1 - len(utf8[-1])  # where it starts
    if len(spans) == 1 and spans[0][0] == 0 and spans[0][1] > last_piece:
        lang = _ALIASES.get(spans[0][3], spans[0][3])  # one span over every piece: the usual
        return Detection(lang, 1.0 if reliable else 0.5) if lang in _KNOWN else NONE
    chars: dict[str, int] = {}
    order: list[str] = []
    start = 0
    spans = [(offset, offset + length, _ALIASES.get(c, c)) for offset, length, _, c in spans]
    for part, data in zip(parts, utf8, strict=True):
        end = start + len(data)
        found: dict[str, int] = {}
        for low, high, lang in spans:
            if low < end and high > start and lang in _KNOWN:
                found[lang] = found.get(lang, 0) + min(high, end) - max(low, start)
        if found:
            lang = max(found, key=lambda k: (found[k], k))  # ties: the larger code
            chars[lang] = chars.get(lang, 0) + len(part)
            order.append(lang)
        start = end + 1  # the newline between pieces
    if not chars:
        return NONE
    first = {lang: i for i, lang in reversed(list(enumerate(order)))}
    best = max(chars, key=lambda k: (chars[k], -first[k]))  # ties: the one read first
    share = chars[best] / sum(map(len, parts))
    return Detection(best, round(share if reliable else share / 2, 4))


def sample(text: str, chars: int = SAMPLE_CHARS, windows: int = WINDOWS) -> list[str]:
    """The pieces of ``text`` that :func:`detect` identifies: a text up to ``chars``
    characters cut into :func:`pieces` of :func:`piece_size`; a longer one read through its
    first ``chars // 2`` characters (a page's beginning holds its main text more often than
    its end: footers, product lists, comments) and ``windows - 1`` windows sharing the other
    half, centred at a third and two thirds of the text (for 3), each starting after a space
    when there is one in its first half (no cut word).

    >>> [len(p) for p in sample("word " * 110)], [len(p) for p in sample("word " * 2000)]
    ([205, 205, 140], [300, 150, 150])
    >>> sample("a" * 15 + "b" * 15 + "c" * 15 + "d" * 15, 12, 3)
    ['aaaaaa', 'bbb', 'ccc']
    """
    if len(text) <= chars:
        return pieces(text, piece_size(len(text)))
    head = chars // 2
    space = text.rfind(" ", head // 2, head)
    out = [text[: head if space < 0 else space + 1]]
    size = max(1, (chars - head) // max(1, windows - 1))
    for i in range(1, windows):
        start = round(i * len(text) / windows - size / 2)
        space = text.find(" ", start, start + size // 2)
        start = start if space < 0 else space + 1
        out.append(text[start : start + size])
    return out


def piece_size(length: int) -> int:
    """The piece size for a text of ``length`` characters: about :data:`MIN_PIECES` pieces
    of at least :data:`MIN_PIECE_CHARS` characters.

    >>> piece_size(600), piece_size(450), piece_size(300)
    (200, 200, 200)
    """
    return max(MIN_PIECE_CHARS, length // MIN_PIECES)


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut at spaces into pieces of about ``size`` characters (at least one).

    >>> [len(p) for p in pieces("word " * 500, 1000)]
    [1005, 1495]
    """
    out: list[str] = []
    start = 0
    while start < len(text):
        end = text.find(" ", start + size)
        end = len(text) if end < 0 else end + 1
        out.append(text[start:end])
        start = end
    if len(out) > 1 and len(out[-1]) < size // 2:
        last = out.pop()
        out[-1] += last
    return out


def page_language(own: Any, text: str | None) -> Detection:
    """A crawler's own language value wins (score 1.0) when it is a tag; else detection."""
    code = normalize_code(own)
    if code is not None:
        return Detection(code, 1.0)
    return detect(text)


def different_languages(
    a: str | None, score_a: float | None, b: str | None, score_b: float | None
) -> bool:
    """The language guard: True when two pages are surely in different languages.

    Both detections must be confident (:data:`GUARD_CONFIDENCE`) and name a language. A
    mixed-language page gets a lower probability, and a copy of it the same answer whatever
    the order of its parts, so mixed pages are left to their texts' similarity.
    """
    if a is None or b is None or a == b or NO_LANGUAGE in (a, b):
        return False
    return (score_a or 0.0) >= GUARD_CONFIDENCE and (score_b or 0.0) >= GUARD_CONFIDENCE
