"""A page's own content: its text without the lines its host repeats (pure: no I/O).

Navigation, footers, cookie banners and log-in boxes that survive text extraction are the
same lines on many pages of one host. A page's **own text** is its text without its host's
lines: the lines (whitespace collapsed, any length) that ``min_pages`` pages of the host
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

#: Version of how own texts are cut (part of the configuration's fingerprint).
OWN_VERSION = 1


def line_key(line: str) -> str:
    """A line as the host's lines are counted: stripped, whitespace runs one space.

    >>> line_key("  Privacy\\tpolicy   ")
    'Privacy policy'
    """
    return " ".join(line.split())


LineCounts = tuple[Counter[str], Counter[str]]


def host_line_counts(texts: Iterable[tuple[str | None, int]]) -> LineCounts:
    """For each line of a host's distinct texts, given with how many of its pages (URLs)
    carry each: the pages that carry it, and the texts.

    >>> pages, texts = host_line_counts([("a\\nb", 3), ("a", 1)])
    >>> pages["a"], texts["a"], pages["b"], texts["b"]
    (4, 2, 3, 1)
    """
    pages: Counter[str] = Counter()
    distinct: Counter[str] = Counter()
    for text, n in texts:
        if text:
            keys = {line_key(raw) for raw in text.splitlines()} - {""}
            distinct.update(keys)
            for k in keys:
                pages[k] += n
    return pages, distinct


def host_lines(counts: LineCounts, min_pages: int) -> frozenset[str]:
    """The host's lines: those on ``min_pages`` of its pages or more, in two texts or more."""
    pages, texts = counts
    return frozenset(k for k, n in pages.items() if n >= min_pages and texts[k] >= 2)


def own_text(text: str | None, lines: Collection[str]) -> str:
    """``text`` without its lines that are in ``lines`` (:func:`host_lines`).

    >>> own_text("Menu\\nThe story.\\n Menu ", {"Menu"})
    'The story.'
    """
    if not text:
        return ""
    if not lines:
        return text
    return "\n".join(raw for raw in text.splitlines() if line_key(raw) not in lines)


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
