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

    >>> text = "Cookie notice: we use cookies on this site\\nThe story itself, in full.\\nok"
    >>> [h == segment_hash("the story itself, in full.") for h in page_segments(text)]
    [False, True]
    >>> strip_text(text, {segment_hash("cookie notice: we use cookies on this site")})
    'The story itself, in full.\\nok'
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterator

from .text import normalize_text

#: Lines shorter than this after normalization are not segments (README, "Repeated segments").
MIN_SEGMENT_CHARS = 20
#: Version of how segments are cut and hashed (part of the fingerprint when stripping).
SEGMENTS_VERSION = 1


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

    >>> strip_text("a\\nb", set())
    'a\\nb'
    """
    if not text or not drop:
        return text
    kept = []
    for raw in text.splitlines():
        norm = normalize_text(raw) if len(raw) >= MIN_SEGMENT_CHARS or not raw.isascii() else ""
        if len(norm) < MIN_SEGMENT_CHARS or segment_hash(norm) not in drop:
            kept.append(raw)
    return "\n".join(kept)
