"""Repeated segments: the lines of a page's text that may be site boilerplate.

A **segment** is one line of a page's text (the text split on line breaks) with its
whitespace collapsed (:func:`segment_key`); lines shorter than :data:`MIN_SEGMENT_CHARS`
characters are ignored (blank lines, "Menu", "Share": they carry too few words to make a
shingle of their own, and would multiply the stored rows). A site's template is the same
characters on each of its pages, so a segment is not case-folded nor Unicode-normalized as
the whole text is: that costs three times as much (measured: 16 % of a run's CPU against 5 %;
README, "Repeated segments"). Its **hash** is the first 8 bytes of the BLAKE2b digest of the
line, as a signed 64-bit integer (an SQLite INTEGER). A page's segments are its distinct
hashes.

Which segments are *repeated* (on many pages of one host) is decided in SQL over every page
(``sql/segments_*.sql``); :func:`strip_text` leaves those lines out of a text before it is
shingled and verified (``--strip-segments``).

Example::

    >>> text = "We use cookies on this site\\nThe story itself, in  full, and at length.\\nok"
    >>> story = segment_hash("The story itself, in full, and at length.")  # spaces collapsed
    >>> story in page_segments(text), len(page_segments(text))  # "ok" is too short
    (True, 2)
    >>> strip_text(text, {segment_hash("We use cookies on this site")})
    'The story itself, in  full, and at length.\\nok'
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterator

#: Lines shorter than this (whitespace collapsed) are not segments (README, "Repeated segments").
MIN_SEGMENT_CHARS = 20
#: A text is stripped only when at least this share of its characters stays: a page whose
#: lines are nearly all repeated on its host is one of several copies of a text there (an
#: article under several URLs), not a template around a text (README, "Repeated segments").
MIN_KEPT_SHARE = 0.5
#: Version of how segments are cut and hashed (part of the fingerprint when stripping).
SEGMENTS_VERSION = 3


def segment_key(line: str) -> str:
    """A line as a segment: stripped, every run of whitespace one space ("" when too short).

    >>> segment_key("  Privacy\\tpolicy   and cookie settings ")
    'Privacy policy and cookie settings'
    """
    if len(line) < MIN_SEGMENT_CHARS:  # collapsing whitespace never makes a line longer
        return ""
    key = line.strip()
    if "  " in key or not key.isascii() or "\t" in key:  # most lines need no collapsing
        key = " ".join(key.split())
    return key if len(key) >= MIN_SEGMENT_CHARS else ""


def segment_hash(key: str) -> int:
    """The hash of a segment (:func:`segment_key`): 8 bytes of BLAKE2b, signed (an SQLite
    INTEGER).

    >>> segment_hash("All rights reserved 2024")
    1949806673135930088
    """
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def segment_lines(text: str | None) -> Iterator[tuple[int, str, str]]:
    """``(hash, segment key, raw line)`` of each line of ``text`` long enough to count."""
    if not text:
        return
    for raw in text.splitlines():
        key = segment_key(raw)
        if key:
            yield segment_hash(key), key, raw


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
        key = segment_key(raw)
        total += len(raw)
        if not key or segment_hash(key) not in drop:
            kept.append(raw)
            kept_chars += len(raw)
    if kept_chars < MIN_KEPT_SHARE * total:
        return text  # mostly "repeated": copies of one text on one host, not a template
    return "\n".join(kept)
