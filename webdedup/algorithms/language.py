"""A page's language: detected offline with py3langid, or taken from the crawler's own column.

py3langid (a maintained fork of langid.py) ships its model inside its PyPI wheel (4.6 MB):
nothing is downloaded, and the same text always gets the same answer. It is an optional
extra (``pip install "webdedup[lang]"``); without it pages get no language and
``--languages`` is refused. ``scripts/compare_language_identifiers.py`` compares it with
lingua on the real texts of ``../shared/data`` (README, "Language").

The first :data:`DETECT_CHARS` characters are cut into pieces (at spaces) and each piece is
identified: the page's language is the one with the most characters, its score the share of
characters in that language weighted by each piece's probability. A page in one language
scores near 1; a mixed-language page (half German, half English) scores about its share of
the main language, so the language guard (:func:`different_languages`) leaves it to its
text's similarity. Pieces are of about :data:`CHUNK_CHARS` characters, but a shorter text is
cut into :data:`MIN_PIECES` pieces of at least :data:`MIN_PIECE_CHARS` (:func:`piece_size`):
py3langid is often sure of one language for a whole half-and-half text of 900 characters,
which made the guard separate a short page from its copy with a comment in another language.

The model is read from the package once per process, on first use (about a second).

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
from functools import lru_cache
from typing import Any, NamedTuple

#: Characters of a page's text the identifier reads (the cost is linear in them).
DETECT_CHARS = 5_000
#: About this many characters a piece (a shorter last piece joins the one before).
CHUNK_CHARS = 1_000
#: A text shorter than ``MIN_PIECES * CHUNK_CHARS`` is cut into this many pieces ...
MIN_PIECES = 3
#: ... of at least this many characters (:func:`pieces` joins a last piece shorter than half
#: a piece to the one before: a text under about 450 characters is one piece).
MIN_PIECE_CHARS = 300
#: Fewer words than this and no language is detected (too little to tell).
MIN_WORDS = 5
#: A detection at least this probable counts for the language guard.
GUARD_CONFIDENCE = 0.9
#: py3langid's label for text without linguistic content (never "a language" for the guard).
NO_LANGUAGE = "zxx"

#: The codes py3langid 0.4 answers with (ISO 639-1, else 639-3), sorted; a crawler's own
#: column may hold others. ``tests/test_language.py`` checks this against the model.
KNOWN_LANGUAGES: tuple[str, ...] = (
    "ace", "af", "am", "an", "ar", "ary", "arz", "as", "az", "ba", "bcl", "be", "bg", "bn",
    "br", "bs", "ca", "crh", "cs", "cy", "da", "de", "dz", "el", "en", "eo", "es", "et", "eu",
    "ext", "fa", "fi", "fo", "fr", "fuv", "fy", "ga", "gcf", "gcr", "gd", "gl", "gom", "grc",
    "gu", "gug", "guw", "ha", "hbo", "he", "hi", "hr", "ht", "hu", "hy", "id", "ig", "is",
    "it", "ja", "jv", "ka", "kab", "kik", "kk", "km", "kn", "ko", "ku", "ky", "la", "lb", "lg",
    "lij", "ln", "lo", "lt", "ltg", "lv", "mg", "mk", "ml", "mn", "mr", "ms", "mt", "my", "ne",
    "nl", "nn", "no", "nso", "oc", "om", "or", "pa", "pcm", "pl", "ps", "pt", "qu", "ro", "ru",
    "rw", "sa", "sdh", "se", "si", "sk", "sl", "sn", "so", "sq", "sr", "st", "sv", "sw", "ta",
    "te", "tg", "th", "tk", "tl", "tr", "tt", "ug", "uk", "ur", "uz", "uzs", "vec", "vi", "vo",
    "wa", "wuu", "xh", "yo", "yue", "zh", "zu", "zxx",
)

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
    """Whether the identifier (the ``lang`` extra, py3langid) is installed."""
    try:
        import py3langid  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect(text: str | None) -> Detection:
    """The language of ``text`` (its first :data:`DETECT_CHARS` characters) and its score.

    No language for a text of fewer than :data:`MIN_WORDS` words, or when py3langid is not
    installed. Deterministic: the same text always gets the same answer.
    """
    if not text or len(text.split(None, MIN_WORDS)) < MIN_WORDS or not available():
        return NONE
    identifier = _identifier()
    chars: dict[str, float] = {}
    weighted: dict[str, float] = {}
    total = 0
    head = text[:DETECT_CHARS]
    for piece in pieces(head, piece_size(len(head))):
        lang, probability = identifier.classify(piece)
        chars[lang] = chars.get(lang, 0.0) + len(piece)
        weighted[lang] = weighted.get(lang, 0.0) + len(piece) * float(probability)
        total += len(piece)
    best = max(chars, key=lambda k: (chars[k], k))  # ties: the larger code, deterministically
    return Detection(str(best), round(weighted[best] / total, 4))


def piece_size(length: int) -> int:
    """The piece size for a text of ``length`` characters: :data:`CHUNK_CHARS`, or smaller
    so that a short text still makes about :data:`MIN_PIECES` pieces, never below
    :data:`MIN_PIECE_CHARS`.

    >>> piece_size(5000), piece_size(2400), piece_size(930), piece_size(400)
    (1000, 800, 310, 300)
    """
    return min(CHUNK_CHARS, max(MIN_PIECE_CHARS, length // MIN_PIECES))


def pieces(text: str, size: int = CHUNK_CHARS) -> list[str]:
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
