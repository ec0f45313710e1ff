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
    >>> texts = [(f"{nav}\\nstory {i} " + "word " * 5, 1) for i in range(3)]
    >>> counts = host_line_counts(texts)
    >>> own_text(texts[0][0], host_lines(counts, 3))
    'story 0 word word word word word '
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

#: Version of how own texts are cut (part of the configuration's fingerprint).
OWN_VERSION = 2


def line_key(line: str) -> str:
    """A line as the host's lines are counted: stripped. A site's template is the same
    characters on each of its pages, so nothing else is normalized (as segments are not).

    >>> line_key("  Privacy policy   ")
    'Privacy policy'
    """
    return line.strip()


#: Two texts whose shared lines hold less than this share of the characters of their lines
#: (weighted Jaccard of their line sets) are different pages. Copies of one text (an edit, a
#: truncation, another frame, paragraphs reordered) share most of their lines; pages of one
#: template around different stories share only the template.
APART = 0.5
#: The texts carrying a line that are compared pairwise to find two apart (bounds the cost).
APART_CHECKS = 64


@dataclass
class LineCounts:
    """A host's lines: the pages (URLs) carrying each, and which of its texts do."""

    pages: Counter[str] = field(default_factory=Counter)
    texts: Counter[str] = field(default_factory=Counter)
    lines: list[frozenset[str]] = field(default_factory=list)  #: each text's lines
    urls: list[int] = field(default_factory=list)  #: each text's pages (URLs)


def host_line_counts(texts: Iterable[tuple[str | None, int]]) -> LineCounts:
    """The lines of a host's distinct texts, each text given with how many of its pages
    (URLs) carry it.

    >>> c = host_line_counts([("a\\nb", 3), ("a", 1)])
    >>> c.pages["a"], c.texts["a"], c.pages["b"], c.texts["b"]
    (4, 2, 3, 1)
    """
    counts = LineCounts()
    for text, n in texts:
        keys = set(map(str.strip, text.splitlines())) if text else set()
        keys.discard("")
        counts.lines.append(frozenset(keys))
        counts.urls.append(n)
        counts.texts.update(keys)
        if n == 1:
            counts.pages.update(keys)
        else:
            for k in keys:
                counts.pages[k] += n
    return counts


def apart(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two texts (their lines) share less than :data:`APART` of their lines'
    characters.

    >>> apart(frozenset({"nav", "story one"}), frozenset({"nav", "story two"}))
    True
    >>> apart(frozenset({"p1" * 9, "p2" * 9, "p3" * 9}), frozenset({"p1" * 9, "p2" * 9}))
    False
    """
    shared = sum(map(len, a & b))
    union = sum(map(len, a)) + sum(map(len, b)) - shared
    return union > 0 and shared < APART * union


def host_lines(counts: LineCounts, min_pages: int) -> frozenset[str]:
    """The host's lines: those on ``min_pages`` of its pages (URLs) or more, in two of its
    texts or more, that are **template**, not a copied text: among the texts carrying one
    there are two :func:`apart` (pages of one template around different content), or one
    text alone is on ``min_pages`` URLs (a page of navigation only, under many URLs).

    Lines that only copies of one text share (an original and its edited, truncated or
    reframed copies on one host) are not the host's: they are the text itself.

    >>> nav = "Home | News | Log in"
    >>> stories = host_line_counts([(f"{nav}\\nstory {i} " + "w " * 9, 1) for i in range(3)])
    >>> sorted(host_lines(stories, 3))
    ['Home | News | Log in']
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
        if max(counts.urls[i] for i in texts) >= min_pages or _any_apart(counts, texts, known):
            out.append(k)
    return frozenset(out)


def _any_apart(
    counts: LineCounts, carriers: list[int], known: dict[tuple[int, int], bool]
) -> bool:
    some = carriers[:APART_CHECKS]
    for x, i in enumerate(some):
        for j in some[x + 1 :]:
            found = known.get((i, j))
            if found is None:
                found = known[(i, j)] = apart(counts.lines[i], counts.lines[j])
            if found:
                return True
    return False


def own_text(text: str | None, lines: Collection[str]) -> str:
    """``text`` without its lines that are in ``lines`` (:func:`host_lines`).

    >>> own_text("Menu\\nThe story.\\n Menu ", {"Menu"})
    'The story.'
    """
    if not text:
        return ""
    if not lines:
        return text
    return "\n".join(raw for raw in text.splitlines() if raw.strip() not in lines)


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
