"""A canonical and one member side by side, paragraphs aligned (pure: no I/O).

Each text is cut into its paragraphs (its non-blank lines). The two lists are aligned as
a diff aligns lines: paragraphs the two pages share sit on one row unmarked; a paragraph
changed between them sits beside its counterpart with the differing words marked in both
(``<del>`` in the canonical, ``<ins>`` in the member); a paragraph only one page has sits
beside an empty cell, marked whole. Lines the page's host repeats on its other pages (its
chrome: navigation, footers, banners; :func:`webdedup.algorithms.own.host_lines`) are dimmed,
so that the eye goes to the page's own text.

:func:`why_grouped` says in one plain sentence how much of the member's own text (without
its chrome) is in the canonical.

Example::

    >>> rows, share = side_by_side("Menu\\nA story.\\nThe end.", "Menu\\nA story!\\nThe end.",
    ...                            {"menu"}, {"menu"})
    >>> len(rows), rows[0].chrome, round(share, 2)
    (3, True, 0.75)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from ..algorithms.own import line_key
from ..output.html_review import _e, _fold, inline_diff, word_diff

#: Paragraphs of a side aligned at most (a longer text is cut, and says so).
MAX_PARAGRAPHS = 400
#: Two changed paragraphs sit side by side when their words are this similar (difflib ratio).
PAIRED = 0.5
#: How far ahead a changed paragraph's counterpart is looked for.
PAIR_WINDOW = 20


@dataclass(frozen=True)
class Row:
    """One row of the side-by-side view: each cell's HTML ("" for no paragraph)."""

    left: str
    right: str
    same: bool  #: the same paragraph on both sides
    chrome: bool  #: a line its host repeats (dimmed)


def paragraphs(text: str | None) -> list[str]:
    """The non-blank lines of a text, stripped.

    >>> paragraphs(" a \\n\\n b")
    ['a', 'b']
    """
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _key(paragraph: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", paragraph).casefold().split())


def _is_chrome(paragraph: str, chrome: Collection[str]) -> bool:
    return bool(chrome) and line_key(paragraph) in chrome


def side_by_side(
    canonical: str | None,
    member: str | None,
    chrome_canonical: Collection[str] = (),
    chrome_member: Collection[str] = (),
) -> tuple[list[Row], float]:
    """The aligned rows of two texts, and the share (0-1) of the member's own words (those
    not in its chrome lines) that the canonical's own text holds in the same order."""
    a = paragraphs(canonical)[:MAX_PARAGRAPHS]
    b = paragraphs(member)[:MAX_PARAGRAPHS]
    rows: list[Row] = []
    for p, q, same in _aligned(a, b):
        chrome = _row_chrome(p, q, same, chrome_canonical, chrome_member)
        if same and p is not None and q is not None:
            rows.append(Row(_e(p), _e(q), True, chrome))
        elif p is not None and q is not None:
            marked_p, marked_q, _ = word_diff(p.split(), q.split())
            rows.append(Row(marked_p, marked_q, False, chrome))
        else:
            rows.append(Row(f"<del>{_e(p)}</del>" if p is not None else "",
                            f"<ins>{_e(q)}</ins>" if q is not None else "", False, chrome))
    return rows, own_share(a, b, chrome_canonical, chrome_member)


def one_column(
    canonical: str | None,
    member: str | None,
    chrome_canonical: Collection[str] = (),
    chrome_member: Collection[str] = (),
) -> str:
    """The member's paragraphs as HTML in one column, aligned with the canonical's as in
    :func:`side_by_side`: a changed paragraph with the words it lacks struck and its own
    marked, a paragraph only the canonical has struck whole, one only the member has marked
    whole, its chrome dimmed, a run of more than three identical paragraphs folded.

    >>> one_column("Same.\\nOld words here.", "Same.\\nNew words here.")
    '<p>Same.</p>\\n<p><del>Old</del> <ins>New</ins> words here.</p>'
    """
    out: list[str] = []
    same_run: list[str] = []

    def flush() -> None:
        if len(same_run) > 3:
            hidden = len(same_run) - 2
            out.extend([same_run[0], f'<p class="fold">[… {hidden:,} identical paragraphs …]'
                        "</p>", same_run[-1]])
        else:
            out.extend(same_run)
        same_run.clear()

    a = paragraphs(canonical)[:MAX_PARAGRAPHS]
    b = paragraphs(member)[:MAX_PARAGRAPHS]
    for p, q, same in _aligned(a, b):
        chrome = _row_chrome(p, q, same, chrome_canonical, chrome_member)
        css = ' class="chrome"' if chrome else ""
        if same and q is not None:
            if not chrome:
                same_run.append(f"<p>{_fold(q.split())}</p>")
                continue
            html = f"<p{css}>{_e(q)}</p>"
        elif p is not None and q is not None:
            html = f"<p{css}>{inline_diff(p.split(), q.split())[0]}</p>"
        elif q is None:
            html = f"<p{css}><del>{_e(p)}</del></p>"
        else:
            html = f"<p{css}><ins>{_e(q)}</ins></p>"
        flush()
        out.append(html)
    flush()
    return "\n".join(out)


def _aligned(a: Sequence[str], b: Sequence[str]) -> list[tuple[str | None, str | None, bool]]:
    """The paragraphs of two texts aligned: ``(canonical's, member's, the same)``, None for
    no paragraph on that side."""
    matcher = SequenceMatcher(None, [_key(p) for p in a], [_key(p) for p in b], autojunk=False)
    out: list[tuple[str | None, str | None, bool]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out += [(p, q, True) for p, q in zip(a[i1:i2], b[j1:j2], strict=True)]
        else:
            out += [(p, q, False) for p, q in _pair_up(a[i1:i2], b[j1:j2])]
    return out


def _row_chrome(
    p: str | None, q: str | None, same: bool, chrome_a: Collection[str], chrome_b: Collection[str]
) -> bool:
    """A row is chrome when its paragraphs are lines their sites repeat (the same paragraph:
    either side's site; a changed one: both sides, or the one side it is on)."""
    in_a = p is not None and _is_chrome(p, chrome_a)
    in_b = q is not None and _is_chrome(q, chrome_b)
    if same:
        return in_a or in_b
    return (p is None or in_a) and (q is None or in_b)


def _similar(p: str, q: str) -> bool:
    matcher = SequenceMatcher(None, _key(p).split(), _key(q).split(), autojunk=False)
    return matcher.quick_ratio() >= PAIRED and matcher.ratio() >= PAIRED


def _pair_up(left: Sequence[str], right: Sequence[str]) -> list[tuple[str | None, str | None]]:
    """The paragraphs of a changed stretch, each beside its counterpart on the other side
    (the first later one at least :data:`PAIRED` similar, in order), else beside nothing."""
    out: list[tuple[str | None, str | None]] = []
    i = 0
    for q in right:
        match = next((k for k in range(i, min(len(left), i + PAIR_WINDOW))
                      if _similar(left[k], q)), None)
        if match is None:
            out.append((None, q))
            continue
        out += [(p, None) for p in left[i:match]]
        out.append((left[match], q))
        i = match + 1
    out += [(p, None) for p in left[i:]]
    return out


def own_share(
    a: Sequence[str], b: Sequence[str], chrome_a: Collection[str], chrome_b: Collection[str]
) -> float:
    """The share of ``b``'s own words (outside its chrome paragraphs) found, in order, in
    ``a``'s own words (case-folded); 1.0 when ``b`` has no own words."""
    own_a = [w for p in a if not _is_chrome(p, chrome_a) for w in _key(p).split()]
    own_b = [w for p in b if not _is_chrome(p, chrome_b) for w in _key(p).split()]
    if not own_b:
        return 1.0
    matcher = SequenceMatcher(None, own_a, own_b, autojunk=False)
    found = sum(size for _, _, size in matcher.get_matching_blocks())
    return found / len(own_b)


def why_grouped(kind: str | None, share: float, canonical_url: str | None = None) -> str:
    """One plain sentence: why the member is in the canonical's group (as HTML text).

    >>> why_grouped("near", 0.921)
    "92 % of the member's own text is in the canonical."
    >>> why_grouped("exact", 1.0)
    "The member's text is the canonical's, word for word (case and spacing aside)."
    """
    if kind == "url":
        return _e(
            "Both URLs are one page once tracking parameters, case and the like are set aside: "
            f"{canonical_url or 'one canonical URL'}."
        )
    if kind == "exact":
        return "The member's text is the canonical's, word for word (case and spacing aside)."
    percent = int(share * 100 + 1e-9)  # floor: 99.6 % is not all of it
    return f"{percent} % of the member's own text is in the canonical."


def rows_html(rows: Sequence[Row]) -> str:
    """The rows as the two-column table of the side-by-side view."""
    out = []
    for row in rows:
        classes = " ".join(c for c in ("same" if row.same else "changed",
                                       "chrome" if row.chrome else "") if c)
        out.append(f'<tr class="{classes}"><td>{row.left}</td><td>{row.right}</td></tr>')
    return "\n".join(out)
