"""The HTML review page: duplicate groups, largest first, canonical and member side by side.

One self-contained file: inline CSS and one small inline script (the in-page filters, allowed
by its hash), nothing fetched (a Content-Security-Policy of ``default-src 'none'`` says so to
the browser too). It opens with the pictures (:mod:`.pictures`), a legend naming each score's
measure, the filters (search, kind, size) and a table of contents. Every string that comes
from a page (URL, title, text) goes through :func:`html.escape`; only ``http(s)`` URLs become
links.

For each member the page shows the canonical's text and the member's text next to each other,
with a word-level diff (:class:`difflib.SequenceMatcher` over word lists, at most
:data:`MAX_WORDS` words a side): words only in the canonical are marked ``<del>``, words only in
the member ``<ins>``, and long identical stretches are folded. Scores shown: how the member
joined (``url``, ``exact``, ``near``), its ``dup_score``, the verified edge score when there is
one, and the word-diff similarity.

Example::

    >>> left, right, ratio = word_diff("a b c d".split(), "a b x d".split())
    >>> right
    'a b <ins>x</ins> d'
"""

from __future__ import annotations

import base64
import hashlib
import html
import sqlite3
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from difflib import SequenceMatcher
from itertools import chain, groupby
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..algorithms.html_text import extract_text
from ..store.counts import Counts
from ..store.pages import as_text
from ..version import __version__
from .files import open_output
from .pictures import pictures_html
from .source import ExportFilters, Source, counts, last_run, open_source
from .topics import grouped_by_topic

if TYPE_CHECKING:
    from ..algorithms.topics import Topics

#: Words of each text compared and shown (the diff is quadratic in the worst case).
MAX_WORDS = 1500
#: Identical stretches longer than this many words are folded, keeping FOLD_CONTEXT each side.
FOLD_WORDS = 60
FOLD_CONTEXT = 15
#: Members shown side by side per group; further members are only listed.
MAX_MEMBERS = 12
#: Further members listed per group (by id, kind, score and URL).
MAX_LISTED = 200
#: Groups on the page by default (the largest).
MAX_GROUPS = 200

CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0; background: #fff; }
header.top { padding: 16px 24px; border-bottom: 1px solid var(--line); background: var(--bg); }
header.top h1 { margin: 0 0 4px; font-size: 22px; }
.summary { color: var(--muted); margin: 0; }
main { padding: 8px 24px 40px; }
section.group { border: 1px solid var(--line); border-radius: 8px; margin: 18px 0; }
section.group > h2 { margin: 0; padding: 10px 14px; font-size: 17px; background: var(--bg);
                     border-bottom: 1px solid var(--line); border-radius: 8px 8px 0 0; }
.kinds { font-weight: normal; color: var(--muted); font-size: 14px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; border-top: 1px solid var(--line); }
.pair:first-of-type { border-top: 0; }
.side { padding: 10px 14px; min-width: 0; }
.side + .side { border-left: 1px solid var(--line); }
.side h3 { margin: 0 0 2px; font-size: 14px; }
.url { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; margin: 0 0 6px; }
.url a { color: inherit; }
.scores { margin: 0 0 6px; font-size: 12px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 10px; background: #ddf4ff;
         margin-right: 4px; }
.badge.canonical { background: #dafbe1; }
.text { font-size: 13px; overflow-wrap: anywhere; max-height: 28em; overflow: auto;
        border: 1px solid var(--line); border-radius: 6px; padding: 8px; background: #fff; }
del { background: #ffd7d5; text-decoration: none; }
ins { background: #aceebb; text-decoration: none; }
.fold { color: var(--muted); font-style: italic; }
.more { padding: 8px 14px; border-top: 1px solid var(--line); font-size: 12px; }
.more ul { margin: 4px 0 0; padding-left: 18px; }
.note { color: var(--muted); font-size: 12px; }
.pictures { display: flex; flex-wrap: wrap; gap: 18px; margin: 12px 0; }
table.thresholds { border-collapse: collapse; font-size: 13px; }
table.thresholds td, table.thresholds th { border: 1px solid var(--line); padding: 2px 8px; }
dl.legend { font-size: 12px; color: var(--muted); }
dl.legend dt { font-weight: 600; }
form.filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: end; margin: 12px 0; }
form.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
nav.toc { font-size: 13px; columns: 2 24em; }
nav.toc ol { margin: 4px 0; }
h2.topic { margin: 28px 0 0; font-size: 18px; }
"""

#: The in-page filters: hide the groups (and their table-of-contents entries) that do not
#: match the search words (URLs and titles), the kind and the minimum size; the page's query
#: string (``review.html?kind=near&q=blog``) sets them on opening. Works offline.
SCRIPT = """(function () {
  var f = document.getElementById("filters");
  if (!f) { return; }
  function apply() {
    var q = f.elements.q.value.trim().toLowerCase();
    var k = f.elements.kind.value;
    var m = parseInt(f.elements.min_size.value || "0", 10) || 0;
    var shown = 0;
    document.querySelectorAll("section.group").forEach(function (s) {
      var ok = (!k || (" " + s.dataset.kinds + " ").indexOf(" " + k + " ") >= 0) &&
               Number(s.dataset.size) >= m;
      if (ok && q) {
        var t = "";
        s.querySelectorAll("h3, .url").forEach(function (e) { t += " " + e.textContent; });
        ok = t.toLowerCase().indexOf(q) >= 0;
      }
      s.hidden = !ok;
      var entry = document.getElementById("toc-" + s.dataset.group);
      if (entry) { entry.hidden = !ok; }
      if (ok) { shown += 1; }
    });
    document.getElementById("shown").textContent = String(shown);
  }
  f.addEventListener("input", apply);
  f.addEventListener("submit", function (e) { e.preventDefault(); apply(); });
  var given = new URLSearchParams(window.location.search);
  ["q", "kind", "min_size"].forEach(function (n) {
    if (given.get(n)) { f.elements[n].value = given.get(n); }
  });
  apply();
})();
"""
SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")


def _e(value: Any) -> str:
    """Escape anything page-derived for HTML text and attribute values."""
    return html.escape("" if value is None else str(value), quote=True)


def _link(url: str | None) -> str:
    """The URL as escaped text, linked only when it is an http(s) URL."""
    if not url:
        return '<span class="note">(no URL)</span>'
    text = _e(url)
    if isinstance(url, str) and url.lower().startswith(("http://", "https://")):
        return f'<a href="{text}" rel="noopener noreferrer nofollow">{text}</a>'
    return text


def _fold(words: Sequence[str]) -> str:
    """Escaped identical words, a long stretch folded to its two ends."""
    if len(words) <= FOLD_WORDS:
        return _e(" ".join(words))
    head = _e(" ".join(words[:FOLD_CONTEXT]))
    tail = _e(" ".join(words[-FOLD_CONTEXT:]))
    hidden = len(words) - 2 * FOLD_CONTEXT
    return f'{head} <span class="fold">[… {hidden:,} identical words …]</span> {tail}'


def _word_keys(words: Sequence[str]) -> list[str]:
    """What a word is compared on: its NFKC case-folded form (as texts are hashed)."""
    return [unicodedata.normalize("NFKC", w).casefold() for w in words]


def word_diff(a: Sequence[str], b: Sequence[str]) -> tuple[str, str, float]:
    """HTML of two word lists with their differences marked, and their similarity (0-1).

    Words are compared case-folded (an upper-cased copy is an exact duplicate, so it shows
    no difference) and shown as written. Words only in ``a`` are wrapped in ``<del>``, words
    only in ``b`` in ``<ins>``; every word is escaped.
    """
    matcher = SequenceMatcher(None, _word_keys(a), _word_keys(b), autojunk=False)
    left: list[str] = []
    right: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            left.append(_fold(a[i1:i2]))
            right.append(_fold(b[j1:j2]))
            continue
        if i2 > i1:
            left.append(f"<del>{_e(' '.join(a[i1:i2]))}</del>")
        if j2 > j1:
            right.append(f"<ins>{_e(' '.join(b[j1:j2]))}</ins>")
    return " ".join(left), " ".join(right), matcher.ratio()


def inline_diff(a: Sequence[str], b: Sequence[str]) -> tuple[str, float]:
    """``b`` as HTML with the words it lacks from ``a`` struck (``<del>``) and its own words
    marked (``<ins>``), in one column, and the two lists' similarity (0-1).

    >>> inline_diff("a b c d".split(), "a b x d".split())[0]
    'a b <del>c</del> <ins>x</ins> d'
    """
    matcher = SequenceMatcher(None, _word_keys(a), _word_keys(b), autojunk=False)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(_fold(b[j1:j2]))
            continue
        if i2 > i1:
            out.append(f"<del>{_e(' '.join(a[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{_e(' '.join(b[j1:j2]))}</ins>")
    return " ".join(out), matcher.ratio()


def measures(params: dict[str, Any]) -> dict[str, str]:
    """What each score on a review page measures, for the last run's parameters.

    ``dup_score`` and ``edge`` of a near-duplicate are the run's verified similarity (its
    method's measure); ``word similarity`` is the review's own comparison of the shown words.

    >>> measures({"method": "levenshtein"})["near"]
    'Levenshtein (Indel) ratio of the first 20,000 characters of the normalized texts'
    """
    method = params.get("method", "minhash")
    if method == "levenshtein":
        near = "Levenshtein (Indel) ratio of the first 20,000 characters of the normalized texts"
    else:
        shingle = "overlap coefficient" if params.get("similarity", "overlap") == "overlap" else (
            "Jaccard similarity"
        )
        size = params.get("shingle_size", 5)
        near = (
            "verified on the texts (not the MinHash estimate): their Levenshtein ratio, or "
            "their moved ratio (paragraphs in another order cost nothing), or the share of "
            f"the shorter found in one stretch of the longer (containment); the {shingle} "
            f"of the {size}-word shingle sets decides the cheapest of these first"
        )
    return {
        "url": "1.0: same canonical URL (a re-crawl or a URL variant)",
        "exact": "1.0: same normalized text (SHA-1 of the text)",
        "near": near,
        "words": (
            f"word similarity: difflib ratio of the first {MAX_WORDS:,} words shown, "
            "case-folded (the review's own measure, not the run's)"
        ),
    }


def _words(text: str | None) -> tuple[list[str], int]:
    words = (text or "").split()
    return words[:MAX_WORDS], len(words)


@dataclass
class _Page:
    id: int
    url: str | None
    title: str | None
    is_canonical: bool
    dup_kind: str | None
    dup_score: float | None
    edge_score: float | None
    edge_method: str | None
    words: list[str]
    n_words: int
    lang: str | None = None


def _page(row: dict[str, Any]) -> _Page:
    text = row["text"]
    if not text and row.get("html"):
        text = extract_text(row["html"])
    words, n_words = _words(text)
    return _Page(
        id=row["id"],
        url=row["url"],
        title=row["title"],
        is_canonical=bool(row["is_canonical"]),
        dup_kind=row["dup_kind"],
        dup_score=row["dup_score"],
        edge_score=row["edge_score"],
        edge_method=row["edge_method"],
        words=words,
        n_words=n_words,
        lang=row.get("lang"),
    )


def _side_head(page: _Page, extra: str = "") -> str:
    title = _e(page.title) if page.title else '<span class="note">(no title)</span>'
    lang = f' <span class="badge">{_e(page.lang)}</span>' if page.lang else ""
    return f'<h3>#{page.id} · {title}{lang}</h3>\n<p class="url">{_link(page.url)}</p>\n{extra}'


def _truncated(page: _Page) -> str:
    if page.n_words > len(page.words):
        return f'<p class="note">first {len(page.words):,} of {page.n_words:,} words compared</p>'
    return ""


def _scores(member: _Page, ratio: float) -> str:
    parts = [f'<span class="badge">{_e(member.dup_kind or "?")}</span>']
    if member.dup_score is not None:
        parts.append(f"dup_score {member.dup_score:.3f}")
    if member.edge_score is not None:
        parts.append(f"edge {member.edge_score:.3f} ({_e(member.edge_method)})")
    parts.append(f"word similarity {ratio:.3f}")
    return '<p class="scores">' + " · ".join(parts) + "</p>"


def _pair(canonical: _Page, member: _Page) -> str:
    left, right, ratio = word_diff(canonical.words, member.words)
    if not canonical.words and not member.words:
        left = right = '<span class="note">(no text)</span>'
    head_c = _side_head(
        canonical, '<p class="scores"><span class="badge canonical">canonical</span></p>'
    )
    head_m = _side_head(member, _scores(member, ratio))
    return (
        '<div class="pair">\n'
        f'<div class="side canonical">{head_c}<div class="text">{left}</div>'
        f"{_truncated(canonical)}</div>\n"
        f'<div class="side member">{head_m}<div class="text">{right}</div>'
        f"{_truncated(member)}</div>\n"
        "</div>\n"
    )


def _listed(page: _Page) -> str:
    score = f" {page.dup_score:.3f}" if page.dup_score is not None else ""
    return f"<li>#{page.id} {_e(page.dup_kind or '')}{score} · {_link(page.url)}</li>"


def render_group(
    group_id: int, size: int, rows: Iterable[dict[str, Any]], kind: str | None = None
) -> str:
    """The HTML section of one group (rows: canonical first, then the members by id).

    ``kind`` is the group's kind (:mod:`webdedup.store.counts`), shown in its heading.
    """
    canonical: _Page | None = None
    pairs: list[str] = []
    listed: list[str] = []
    kinds: dict[str, int] = {}
    hidden = 0
    for row in rows:
        if canonical is None:
            canonical = _page(row)
            continue
        member_kind = row["dup_kind"] or "?"
        kinds[member_kind] = kinds.get(member_kind, 0) + 1
        if len(pairs) < MAX_MEMBERS:
            pairs.append(_pair(canonical, _page(row)))
        elif len(listed) < MAX_LISTED:
            row = dict(row, text=None, html=None)
            listed.append(_listed(_page(row)))
        else:
            hidden += 1
    kind_text = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    out = [
        f'<section class="group" id="g{group_id}" data-group="{group_id}" data-size="{size}" '
        f'data-kinds="{_e(" ".join(sorted(kinds)))}">\n'
        f"<h2>Group {group_id} · {size} pages"
        f"{' · ' + _e(kind) + ' group' if kind else ''} "
        f'<span class="kinds">({_e(kind_text) or "canonical only"}; canonical '
        f"#{canonical.id if canonical else '?'})</span></h2>\n"
    ]
    out.extend(pairs)
    if listed or hidden:
        more = f"<p>… and {hidden:,} more</p>" if hidden else ""
        out.append(f'<div class="more">Further members:<ul>{"".join(listed)}</ul>{more}</div>\n')
    out.append("</section>\n")
    return "".join(out)


def _iter_groups(
    conn: sqlite3.Connection, layout: Source, filters: ExportFilters, max_groups: int
) -> Iterator[tuple[int, str]]:
    """``(canonical id, section)`` of each group shown."""
    params = filters.params() | {"max_groups": max_groups}
    cur = conn.execute(layout.sql("review_groups"), params)
    names = [d[0] for d in cur.description]
    rows = (dict(zip(names, map(as_text, r), strict=True)) for r in cur)
    keys = itemgetter("dup_group", "size", "group_kind")
    for (group_id, size, kind), members in groupby(rows, key=keys):
        first = next(members)  # the canonical
        yield first["id"], render_group(group_id, size, chain([first], members), kind)  # noqa: B031


def _head(title: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta http-equiv="Content-Security-Policy" '
        f"content=\"default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{SCRIPT_HASH}'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
    )


def write_review_to(
    conn: sqlite3.Connection,
    layout: Source,
    out: TextIO,
    filters: ExportFilters,
    *,
    max_groups: int = MAX_GROUPS,
    title: str = "webdedup review",
    topics: Topics | None = None,
) -> int:
    """Stream the review page to ``out``; returns the number of groups shown.

    With ``topics``, the groups shown are ordered by their canonical's topic, under a heading
    with the topic's top terms (largest groups first within a topic).
    """
    total = counts(conn, layout)
    run = last_run(conn)
    params = run.get("params", {})
    out.write(_head(title))
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    filt = []
    if filters.min_group_size:
        filt.append(f"groups of {filters.min_group_size}+ pages")
    if filters.kinds:
        filt.append("kinds " + ", ".join(filters.kinds))
    out.write(
        '<header class="top">\n'
        f"<h1>{_e(title)}</h1>\n"
        f'<p class="summary">{_e(Counts.from_mapping(total).line())}. Method '
        f"{_e(params.get('method', run.get('method')))}, threshold "
        f"{_e(params.get('threshold'))}. Largest groups first, at most {max_groups:,}"
        f"{'; filtered: ' + _e('; '.join(filt)) if filt else ''}. "
        f"Generated {_e(generated)} by webdedup {_e(__version__)}.</p>\n"
        '<p class="summary">Each member is shown beside its group\'s canonical page: '
        "<del>words only in the canonical</del>, <ins>words only in the member</ins>. "
        "A group is a canonical page and its duplicates; its kind is its loosest link "
        "(near, else exact, else url).</p>\n"
        f"{_legend(params)}</header>\n<main>\n"
    )
    out.write(pictures_html(conn, layout, run))
    toc = _toc(conn, layout, filters, max_groups)
    out.write(
        '<form class="filters" id="filters"><label>search URL or title'
        '<input name="q" type="search" size="28"></label><label>kind<select name="kind">'
        '<option value="">any</option><option>url</option><option>exact</option>'
        '<option>near</option></select></label><label>size ≥<input name="min_size" '
        'type="number" min="2" style="width:5em"></label><span class="note">'
        f'<span id="shown">{len(toc)}</span> of {len(toc):,} groups shown</span></form>\n'
    )
    if toc:
        out.write('<nav class="toc"><strong>Contents</strong><ol>' + "".join(toc) + "</ol></nav>\n")
    shown = 0
    groups = _iter_groups(conn, layout, filters, max_groups)
    if topics is not None:
        groups = grouped_by_topic(groups, topics)
    for _, section in groups:
        out.write(section)
        shown += 1
    if not shown:
        out.write('<p class="note">No duplicate groups to review.</p>\n')
    out.write(f"</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n")
    return shown


def _toc(
    conn: sqlite3.Connection, layout: Source, filters: ExportFilters, max_groups: int
) -> list[str]:
    """One ``<li>`` a group shown, linking to it (same groups and order as the sections)."""
    params = filters.params() | {"max_groups": max_groups}
    entries = []
    for group, size, url, kinds in conn.execute(
        layout.sql("static_toc", folder="review"), params
    ):
        kinds_text = ", ".join(sorted(set((kinds or "").split(",")) - {""}))
        entries.append(
            f'<li id="toc-{group}"><a href="#g{group}">Group {group}</a> · {size} pages'
            f' · {_e(kinds_text)} · <span class="url">{_e(as_text(url))}</span></li>'
        )
    return entries


def _legend(params: dict[str, Any]) -> str:
    """What each score on the page measures."""
    named = measures(params)
    return (
        '<dl class="legend"><dt>dup_score and edge (near-duplicates)</dt>'
        f"<dd>{_e(named['near'])}</dd><dt>dup_score (url, exact)</dt>"
        f"<dd>{_e(named['url'])}; {_e(named['exact'])}</dd>"
        f"<dt>word similarity</dt><dd>{_e(named['words'])}</dd></dl>\n"
    )


def write_review(
    db: str | Path | sqlite3.Connection,
    out: str | Path | TextIO,
    filters: ExportFilters | None = None,
    *,
    max_groups: int = MAX_GROUPS,
    busy_timeout: float = 5.0,
) -> int:
    """Write the HTML review page of an annotated database; returns the groups shown."""
    filters = filters or ExportFilters()
    with open_source(db, busy_timeout=busy_timeout) as (conn, layout):
        conn.execute("BEGIN")
        try:
            with open_output(out) as fh:
                return write_review_to(conn, layout, fh, filters, max_groups=max_groups)
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
