"""A page's own content: its text without the lines its host repeats (pure: no I/O).

Navigation, footers, cookie banners and log-in boxes that survive text extraction are the
same lines on many pages of one host. A page's **own text** is its text without its host's
lines: the lines (stripped, any length) that ``min_pages`` pages of the host
(distinct URLs; ``segment_min_pages``, 3 by default: a line on two pages is as often a
paragraph copied between two pages as a template) carry, in two of its texts or more (one
text under several URLs is one page copied, not a template). Near-duplicate decisions
compare own texts, so two pages of one site are not near-duplicates because they share the
site's chrome, and a page framed by another site's chrome is compared by its story.

A page whose own text is shorter than ``min_words`` words (the length below which no page
is compared at all) has no content of its own to judge: it is **thin**
(:func:`thin_reason`).

Example::

    >>> nav = "Home | News | Sport | Weather | Contact | Log in"
    >>> stories = ["The council met on Tuesday to vote on the budget for the next year.",
    ...            "A storm closed the bridge for most of the day and flooded two roads.",
    ...            "Schools open an hour late tomorrow while the heating is repaired."]
    >>> texts = [(f"{nav}\\n{story}", 1) for story in stories]
    >>> counts = host_line_counts(texts)
    >>> own_text(texts[0][0], host_lines(counts, 3))
    'The council met on Tuesday to vote on the budget for the next year.'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .shingles import shingle_hashes
from .text import compiled, normalize_text

#: Version of how own texts are cut (part of the configuration's fingerprint).
OWN_VERSION = 3


@lru_cache(maxsize=1 << 16)  # a host's template lines come back on each of its pages
def line_key(line: str) -> str:
    """A line as the host's lines are counted and taken away: normalized as texts are
    compared (:func:`~.text.normalize_text`: case, Unicode forms, quotes and dashes,
    whitespace), so a copy whose quotes were typeset otherwise loses the same lines as its
    original.

    >>> line_key("  Privacy \u201cpolicy\u201d   ")
    'privacy "policy"'
    """
    return normalize_text(line)


#: Joins a text's lines for :func:`line_keys` (a private-use character: normalization keeps it).
_LINE_MARK = "\ue000"


def line_keys(text: str) -> list[str]:
    """:func:`line_key` of each line of ``text`` (``str.splitlines``), normalized in one pass
    over the whole text (one call instead of one a line; the same keys, tested on every real
    text of ``../shared/data``).

    >>> line_keys("Home | News\\n\\n  \\u201cQuoted\\u201d  line ")
    ['home | news', '', '"quoted" line']
    """
    lines = text.splitlines()
    if not lines:
        return []
    if _LINE_MARK in text:
        return [line_key(line) for line in lines]
    keys = normalize_text(f" {_LINE_MARK} ".join(lines)).split(_LINE_MARK)
    return [key.strip() for key in keys]


#: Two texts that share less than this share of their word trigrams (Jaccard of the shingle
#: sets of their normalized texts) are different pages. Copies of one text (an edit, a
#: truncation, another frame, paragraphs reordered, quotes and dashes typeset otherwise) share
#: most of their trigrams, even where an edit leaves no line of them equal; pages of one
#: template around different stories share only the template.
APART = 0.5
#: Tokens of the shingles :func:`apart` compares (word trigrams; character trigrams in Chinese
#: and Japanese, as :func:`~.shingles.shingle_hashes` cuts them).
APART_SHINGLE = 3
#: The texts carrying a line among which pairwise-apart ones are looked for (bounds the cost).
APART_CHECKS = 64


@dataclass
class LineCounts:
    """A host's lines: the pages (URLs) carrying each, and which of its texts do."""

    pages: Counter[str] = field(default_factory=Counter)
    texts: Counter[str] = field(default_factory=Counter)
    lines: list[frozenset[str]] = field(default_factory=list)  #: each text's lines
    urls: list[int] = field(default_factory=list)  #: each text's pages (URLs)
    bodies: list[str] = field(default_factory=list)  #: each text (for :func:`apart`)
    shingles: dict[int, np.ndarray] = field(default_factory=dict)  #: of the bodies, as needed

    def shingles_of(self, i: int) -> np.ndarray:
        """The word-trigram shingle set of text ``i``, normalized (computed once)."""
        if i not in self.shingles:
            self.shingles[i] = shingle_hashes(normalize_text(self.bodies[i]), APART_SHINGLE)
        return self.shingles[i]


def host_line_counts(texts: Iterable[tuple[str | None, int]]) -> LineCounts:
    """The lines of a host's distinct texts, each text given with how many of its pages
    (URLs) carry it.

    >>> c = host_line_counts([("a\\nb", 3), ("a", 1)])
    >>> c.pages["a"], c.texts["a"], c.pages["b"], c.texts["b"]
    (4, 2, 3, 1)
    """
    counts = LineCounts()
    for text, n in texts:
        keys = set(line_keys(text)) if text else set()
        keys.discard("")
        counts.lines.append(frozenset(keys))
        counts.urls.append(n)
        counts.bodies.append(text or "")
        counts.texts.update(keys)
        if n == 1:
            counts.pages.update(keys)
        else:
            for k in keys:
                counts.pages[k] += n
    return counts


def apart(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two texts (their shingle sets, :meth:`LineCounts.shingles_of`) share less than
    :data:`APART` of their shingles.

    >>> nav = "home news sport weather contact log in "
    >>> one = shingle_hashes(nav + "the council met on tuesday to vote on the budget", 3)
    >>> two = shingle_hashes(nav + "a storm closed the bridge for most of the day", 3)
    >>> apart(one, two)
    True
    >>> edited = shingle_hashes(nav + "the council met on monday to vote on the budget", 3)
    >>> apart(one, edited)
    False
    """
    if not (a.size or b.size):
        return False
    shared = compiled().shared_count(a, b)  # sorted unique arrays: a merge
    return shared < APART * (a.size + b.size - shared)


def host_lines(counts: LineCounts, min_pages: int) -> frozenset[str]:
    """The host's lines: those on ``min_pages`` of its pages (URLs) or more, in two of its
    texts or more, that are **template**, not a copied text: among the texts carrying one
    there are ``min_pages`` pairwise :func:`apart` (pages of one template around different
    content), or one text alone is on ``min_pages`` URLs (a page of navigation only, under
    many URLs).

    Lines that only copies of one text share (an original and its edited, truncated or
    reframed copies on one host) are not the host's: they are the text itself; nor are the
    paragraphs an original and its copies share with one other page that took half of them
    (two different texts carry them, not a template's ``min_pages``).

    >>> nav = "Home | News | Log in"
    >>> stories = host_line_counts(
    ...     [(f"{nav}\\nstory {i}: " + " ".join(f"w{i}{j}" for j in range(9)), 1) for i in range(3)]
    ... )
    >>> sorted(host_lines(stories, 3))
    ['home | news | log in']
    >>> copies = host_line_counts([("para one\\npara two\\npara three", 1),
    ...     ("para one\\npara two\\npara 3", 1), ("para one\\npara two", 1)])
    >>> sorted(host_lines(copies, 3))
    []
    """
    maybe = {k for k, n in counts.pages.items() if n >= min_pages and counts.texts[k] >= 2}
    if not maybe:
        return frozenset()
    carriers: dict[str, list[int]] = {}
    for i, keys in enumerate(counts.lines):
        for k in keys & maybe:
            carriers.setdefault(k, []).append(i)
    out = []
    known: dict[tuple[int, int], bool] = {}  # pairs of texts: many lines share carriers
    for k in sorted(maybe):
        texts = carriers[k]
        if max(counts.urls[i] for i in texts) >= min_pages or _apart_texts(
            counts, texts, known, min_pages
        ):
            out.append(k)
    return frozenset(out)


def _apart_texts(
    counts: LineCounts, carriers: list[int], known: dict[tuple[int, int], bool], wanted: int
) -> bool:
    """Whether ``wanted`` of the carriers (the first :data:`APART_CHECKS`) are pairwise
    :func:`apart`: each taken in turn when it is apart from all those taken before."""
    taken: list[int] = []
    for j in carriers[:APART_CHECKS]:
        for i in taken:
            found = known.get((i, j))
            if found is None:
                found = apart(counts.shingles_of(i), counts.shingles_of(j))
                known[(i, j)] = found
            if not found:
                break
        else:
            taken.append(j)
            if len(taken) >= wanted:
                return True
    return False


def own_text(text: str | None, lines: Collection[str]) -> str:
    """``text`` without its lines that are in ``lines`` (:func:`host_lines`).

    >>> own_text("Menu\\nThe story.\\n Menu ", {"menu"})
    'The story.'
    """
    if not text:
        return ""
    if not lines:
        return text
    raws = text.splitlines()
    return "\n".join(
        raw for raw, key in zip(raws, line_keys(text), strict=True) if key not in lines
    )


def thin_reason(own_words: int, words: int, min_words: int) -> str | None:
    """Why a page of ``words`` words is thin (``None`` when it is not): its own text has
    ``own_words`` words, fewer than ``min_words``.

    >>> thin_reason(9, 120, 50)
    'own text 9 of 120 words, under min_words 50: the rest is lines its host repeats'
    >>> thin_reason(60, 120, 50) is None
    True
    """
    if own_words >= min_words:
        return None
    return (
        f"own text {own_words} of {words} words, under min_words {min_words}: "
        "the rest is lines its host repeats"
    )
