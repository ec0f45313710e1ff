"""Repeated segments: the lines of a page's text that may be site boilerplate.

A **segment** is one line of a page's text (the text split on newlines), normalized like the
whole text (:func:`~webdedup.algorithms.text.normalize_text`); lines shorter than
:data:`MIN_SEGMENT_CHARS` normalized characters are ignored (blank lines, "Menu", "Share":
they carry too few words to make a shingle of their own, and would multiply the stored rows).
Its **hash** is the first 8 bytes of the BLAKE2b digest of the normalized line, as a signed
64-bit integer (an SQLite INTEGER). A page's segments are its distinct hashes.

Which segments are *repeated* (on many pages of one host) is decided in SQL over every page
(``sql/segments_*.sql``); :func:`strip_text` leaves those lines out of a text before it is
shingled and verified (``--strip-segments``).

Example::

    >>> text = "We use cookies on this site\\nThe story itself, in full, and at length.\\nok"
    >>> story = segment_hash("the story itself, in full, and at length.")  # normalized
    >>> story in page_segments(text), len(page_segments(text))  # "ok" is too short
    (True, 2)
    >>> strip_text(text, {segment_hash("we use cookies on this site")})
    'The story itself, in full, and at length.\\nok'
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterator

from .text import normalize_text

#: Lines shorter than this after normalization are not segments (README, "Repeated segments").
MIN_SEGMENT_CHARS = 20
#: A text is stripped only when at least this share of its characters stays: a page whose
#: lines are nearly all repeated on its host is one of several copies of a text there (an
#: article under several URLs), not a template around a text (README, "Repeated segments").
MIN_KEPT_SHARE = 0.5
#: Version of how segments are cut and hashed (part of the fingerprint when stripping).
SEGMENTS_VERSION = 2


def segment_hash(norm_line: str) -> int:
    """The segment hash of a normalized line: 8 bytes of BLAKE2b, signed (an SQLite INTEGER).

    >>> segment_hash("all rights reserved 2024")
    5006357847613824789
    """
    digest = hashlib.blake2b(norm_line.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def segment_lines(text: str | None) -> Iterator[tuple[int, str, str]]:
    """``(hash, normalized line, raw line)`` of each line of ``text`` long enough to count."""
    if not text:
        return
    for raw in text.splitlines():
        if len(raw) < MIN_SEGMENT_CHARS and raw.isascii():
            continue  # an ASCII line only gets shorter; NFKC may lengthen others (ligatures)
        norm = normalize_text(raw)
        if len(norm) >= MIN_SEGMENT_CHARS:
            yield segment_hash(norm), norm, raw


def page_segments(text: str | None) -> list[int]:
    """The distinct segment hashes of a page's text, sorted."""
    return sorted({h for h, _, _ in segment_lines(text)})


def strip_text(text: str | None, drop: Collection[int]) -> str | None:
    """``text`` without its lines whose segment hash is in ``drop`` (unchanged when empty).

    Unchanged too when less than :data:`MIN_KEPT_SHARE` of its characters would stay.

    >>> strip_text("a\\nb", set())
    'a\\nb'
    >>> line = "a line repeated on every page"
    >>> strip_text(line + "\\nthe text", {segment_hash(line)}) == line + "\\nthe text"
    True
    """
    if not text or not drop:
        return text
    kept = []
    total = kept_chars = 0
    for raw in text.splitlines():
        norm = normalize_text(raw) if len(raw) >= MIN_SEGMENT_CHARS or not raw.isascii() else ""
        total += len(raw)
        if len(norm) < MIN_SEGMENT_CHARS or segment_hash(norm) not in drop:
            kept.append(raw)
            kept_chars += len(raw)
    if kept_chars < MIN_KEPT_SHARE * total:
        return text  # mostly "repeated": copies of one text on one host, not a template
    return "\n".join(kept)
