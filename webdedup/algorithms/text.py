"""Text normalization and content hashing.

``normalize_text`` applies Unicode NFKC, case folding and whitespace collapsing. It never
deletes characters of any script: only their form and case change. ``digest_text`` does the
same in bounded pieces for very large pages and returns the SHA-1 of the normalized text with
its length, word count and a capped prefix for sketching.

Example::

    >>> normalize_text("  Ｈｅｌｌｏ\\u00a0WORLD\\n\\tСлава  ")
    'hello world слава'
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

#: Texts longer than this (in characters) are normalized piece by piece.
PIECE_CHARS = 1 << 20
#: The normalized text kept for near-duplicate sketches is capped at this many characters.
SKETCH_CHARS = 200_000


def normalize_text(text: str) -> str:
    """NFKC + case fold + collapse every run of whitespace to one space, stripped."""
    if not text:
        return ""
    if text.isascii():
        return " ".join(text.lower().split())
    folded = unicodedata.normalize("NFKC", text).casefold()
    # Case folding can leave a few characters outside NFKC; a second pass makes the
    # function idempotent (normalize_text(normalize_text(x)) == normalize_text(x)).
    if not unicodedata.is_normalized("NFKC", folded):
        folded = unicodedata.normalize("NFKC", folded).casefold()
    return " ".join(folded.split())


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
            norm.count(" ") + 1 if norm else 0,
            norm[:SKETCH_CHARS],
        )
    h = hashlib.sha1()
    n_chars = n_words = 0
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
        n_words += norm.count(" ") + 1
        if sketch_len < SKETCH_CHARS:
            take = norm[: SKETCH_CHARS - sketch_len]
            sketch.append(take)
            sketch_len += len(take)
    return TextDigest(h.hexdigest(), n_chars, n_words, "".join(sketch))


def content_hash(text: str | None) -> str:
    """SHA-1 hex of the normalized text (the ``content_hash`` column)."""
    return digest_text(text).sha1
