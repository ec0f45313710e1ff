"""The two pictures of a review: group sizes, and verified scores around the threshold.

Both are inline SVG (no script, nothing fetched), drawn from what the last run stored:

- :func:`group_sizes`: how many duplicate groups (2+ pages) have each size;
- :func:`score_histogram`: the verified candidate scores in 20 bins, the threshold marked.
  ``minhash`` and ``simhash`` keep every verified candidate pair (``_webdedup_verified``, by
  the content hashes of the two texts), below the threshold too; ``levenshtein`` keeps only
  the edges (scores at or above the threshold), so its histogram starts there;
- :func:`threshold_groups`: how many near-duplicate groups thresholds of ``threshold`` and
  ``threshold ± 0.05`` give, recomputed from those stored scores with the run's own
  clustering (:func:`~webdedup.algorithms.cluster.group_near`, the scores a star's members
  lack against their canonical computed from the texts as phase 4 does). What it cannot
  know is said in :attr:`ThresholdGroups.notes`.

Example::

    >>> bar_chart([("2", 5), ("3", 1)], title="sizes", x_label="pages").count("<rect")
    2
"""

from __future__ import annotations

import html
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..algorithms.cluster import group_near
from ..algorithms.election import order_by_sql
from ..algorithms.sketch import NearSpec, text_similarity
from ..store import sql, table_exists
from ..store.pages import fetch_texts
from .explain import run_config
from .source import Source

#: Bins of the score histogram (each 0.05 wide).
BINS = 20
#: How far the other thresholds shown lie from the run's.
DELTA = 0.05
#: Groups of the size chart drawn one bar a size; larger ones share the last bar.
MAX_SIZE_BARS = 24


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def bar_chart(
    bars: Sequence[tuple[str, int]],
    *,
    title: str,
    x_label: str,
    y_label: str = "",
    marker: tuple[float, str] | None = None,
    edges: bool = False,
    width: int = 500,
    height: int = 200,
) -> str:
    """An SVG bar chart (labels and values escaped); ``marker`` draws a labelled vertical
    line at a fraction ``0..1`` of the width (the threshold). Bar labels are spaced so
    that none runs into the next (every second or fifth one where bars are narrow); with
    ``edges`` a label marks its bar's left edge (a bin's lower bound), else its middle."""
    left, bottom, top = 52, 34, 22
    plot_w, plot_h = width - left - 10, height - bottom - top
    peak = max((v for _, v in bars), default=0) or 1
    step = plot_w / max(len(bars), 1)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{_e(title)}</title>",
        f'<text x="{left}" y="14" font-size="13" font-weight="600">{_e(title)}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'stroke="#59636e"/>',
        f'<text x="{left - 4}" y="{top + 8}" font-size="10" text-anchor="end" '
        f'fill="#59636e">{peak:,}</text>',
        f'<text x="{left - 4}" y="{top + plot_h}" font-size="10" text-anchor="end" '
        'fill="#59636e">0</text>',
    ]
    if y_label:
        out.append(
            f'<text x="12" y="{top + plot_h / 2:.1f}" font-size="11" text-anchor="middle" '
            f'fill="#59636e" transform="rotate(-90 12 {top + plot_h / 2:.1f})">'
            f"{_e(y_label)}</text>"
        )
    widest = max((len(label) for label, _ in bars), default=1) * 6.5 + 8  # px at 10px font
    every = next(k for k in (1, 2, 5, 10, 20, 50, 100, 10**9) if k * step >= widest)
    for i, (label, value) in enumerate(bars):
        h = 0 if value <= 0 else max(1.0, plot_h * value / peak)
        x = left + i * step
        out.append(
            f'<rect x="{x + 1:.1f}" y="{top + plot_h - h:.1f}" width="{max(step - 2, 1):.1f}" '
            f'height="{h:.1f}" fill="#4c8eda"><title>{_e(label)}: {value:,}</title></rect>'
        )
        if i % every == 0:
            at = x if edges else x + step / 2
            out.append(
                f'<text x="{at:.1f}" y="{top + plot_h + 13}" font-size="10" '
                f'text-anchor="middle" fill="#59636e">{_e(label)}</text>'
            )
    if marker is not None:
        fraction, text = marker
        x = left + plot_w * min(max(fraction, 0.0), 1.0)
        out.append(
            f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + plot_h}" '
            'stroke="#cf222e" stroke-width="2" stroke-dasharray="4 3"/>'
            f'<text x="{x - 4:.1f}" y="{top + 6}" font-size="11" text-anchor="end" '
            f'fill="#cf222e">{_e(text)}</text>'
        )
    out.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" font-size="11" '
        f'text-anchor="middle" fill="#59636e">{_e(x_label)}</text></svg>'
    )
    return "".join(out)


def group_sizes(conn: sqlite3.Connection, layout: Source) -> list[tuple[int, int]]:
    """``[(size, groups)]`` of the duplicate groups (2+ pages), smallest size first."""
    query = layout.sql("group_size_counts", folder="review")
    return [(int(s), int(n)) for s, n in conn.execute(query)]


def group_size_chart(sizes: Sequence[tuple[int, int]]) -> str:
    bars: list[tuple[str, int]] = []
    rest = 0
    for size, n in sizes:
        if size < MAX_SIZE_BARS:
            bars.append((str(size), n))
        else:
            rest += n
    if rest:
        bars.append((f"{MAX_SIZE_BARS}+", rest))
    total = sum(n for _, n in sizes)
    return bar_chart(
        bars, title=f"Group sizes ({total:,} groups of 2+ pages)", x_label="pages in the group",
        y_label="groups",
    )


#: The methods whose every verified candidate pair is kept (``_webdedup_verified``).
VERIFIED_METHODS = ("minhash", "simhash")


def score_source(conn: sqlite3.Connection, method: str | None) -> tuple[str, str]:
    """The SQL of the stored scores (hash_a, hash_b, score) and what they are."""
    if method in VERIFIED_METHODS and table_exists(conn, "_webdedup_verified"):
        hashes = _content_hashes(conn)
        return _review_sql("verified_scores", hashes=hashes), "every verified candidate pair"
    return _review_sql("edge_scores"), "the stored edges (scores at or above the threshold)"


def _content_hashes(conn: sqlite3.Connection) -> str:
    """The table of each text's pages, ``(content_hash, id)`` keyed in that order:
    ``_webdedup_content_hashes`` (schema 8 on), else a TEMP copy made from the prepared rows
    at each call (a state an older webdedup wrote, which the review app reads without
    upgrading; its next run adds the table)."""
    if table_exists(conn, "_webdedup_content_hashes"):
        return "main._webdedup_content_hashes"
    conn.execute("DROP TABLE IF EXISTS temp.review_content_hashes")
    conn.execute(
        "CREATE TEMP TABLE review_content_hashes (content_hash TEXT NOT NULL, id INTEGER "
        "NOT NULL, PRIMARY KEY (content_hash, id)) WITHOUT ROWID"
    )
    conn.execute(
        "INSERT INTO temp.review_content_hashes SELECT content_hash, id "
        "FROM main._webdedup_prepared WHERE content_hash IS NOT NULL ORDER BY 1, 2"
    )
    return "temp.review_content_hashes"


def _review_sql(name: str, **fills: str) -> str:
    return sql("review/" + name, **fills)


def score_histogram(conn: sqlite3.Connection, method: str | None) -> list[int]:
    """Pairs a bin (:data:`BINS` bins of width 1/BINS over 0-1)."""
    source, _ = score_source(conn, method)
    counts = [0] * BINS
    query = _review_sql("score_histogram", source=source)
    for b, n in conn.execute(query, {"bins": BINS}):
        counts[int(b)] = int(n)
    return counts


def score_chart(counts: Sequence[int], threshold: float, what: str) -> str:
    bars = [(f"{i / BINS:.2f}", n) for i, n in enumerate(counts)]
    return bar_chart(
        bars,
        title=f"Verified scores ({sum(counts):,} pairs: {what})",
        x_label=f"similarity score (bins of {1 / BINS:g})",
        y_label="pairs",
        marker=(threshold, f"threshold {threshold:g}"),
        edges=True,
    )


@dataclass
class ThresholdGroups:
    """Near-duplicate groups at a few thresholds (``None``: cannot be computed)."""

    threshold: float
    groups: dict[float, int | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def threshold_groups(conn: sqlite3.Connection, layout: Source) -> ThresholdGroups:
    """Groups of near-duplicate texts at ``threshold - 0.05``, ``threshold``, ``+ 0.05``.

    A group here is a set of distinct texts (content hashes) joined by stored scores at or
    above the threshold, clustered into stars without chaining as phase 4 does; its count
    is comparable to the number of groups with a near-duplicate member (it does not merge
    re-crawls of one URL, and it ignores reviewers' verdicts).
    """
    config = run_config(layout.config)
    spec = config.near_spec()
    t = round(float(config.threshold), 6)
    out = ThresholdGroups(t)
    source, _what = score_source(conn, config.method)
    lowest = round(t - DELTA, 6)
    rows = conn.execute(f"SELECT * FROM ({source}) WHERE score >= ?", (lowest,)).fetchall()
    scores = {(a, b) if a < b else (b, a): float(s) for a, b, s in rows if a != b}
    order, page_of = _hash_order(conn, config.election, {h for pair in scores for h in pair})
    for level in (lowest, t, round(t + DELTA, 6)):
        if level > 1.0:
            out.groups[level] = None
            continue
        if level < t and config.method not in VERIFIED_METHODS:
            out.groups[level] = None
            continue
        edges = {p: s for p, s in scores.items() if s >= level}
        out.groups[level] = _count_groups(conn, layout, spec, order, page_of, edges)
    if config.method in VERIFIED_METHODS:
        out.notes.append(
            f"{config.method} stores the score that decided a pair at the run's threshold (its "
            "Levenshtein ratio, moved ratio or containment, whichever reached it first): the "
            "counts at the other thresholds take those stored scores as they are, so they "
            "are close, not exact"
        )
    else:
        out.notes.append(
            f"method {config.method} stores only the scores at or above its threshold: the "
            "count below it cannot be computed"
        )
    return out


def _hash_order(
    conn: sqlite3.Connection, election: Sequence[str], hashes: set[str]
) -> tuple[list[str], dict[str, int]]:
    """The texts in election order of their first page, and that page's id."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS review_hashes (content_hash TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM temp.review_hashes")
    conn.executemany("INSERT INTO temp.review_hashes VALUES (?)", [(h,) for h in hashes])
    query = _review_sql("hash_pages", election=order_by_sql(election or ("lower_id",)),
                        hashes=_content_hashes(conn))
    rows = conn.execute(query).fetchall()
    conn.execute("DELETE FROM temp.review_hashes")
    return [h for h, _ in rows], {h: int(i) for h, i in rows}


def _count_groups(
    conn: sqlite3.Connection,
    layout: Source,
    spec: NearSpec,
    order: list[str],
    page_of: dict[str, int],
    edges: dict[tuple[str, str], float],
) -> int:
    index = {h: i for i, h in enumerate(order)}
    group_edges = {
        (index[a], index[b]) if index[a] < index[b] else (index[b], index[a]): s
        for (a, b), s in edges.items()
        if a in index and b in index
    }

    def score_of(x: int, y: int) -> float:
        ids = (page_of[order[x]], page_of[order[y]])
        texts = fetch_texts(conn, layout.layout, ids)
        return text_similarity(spec, texts.get(ids[0], ""), texts.get(ids[1], ""))

    linked = sorted({n for pair in group_edges for n in pair})
    assigned = group_near(linked, group_edges, score_of, spec.chain_floor)
    return len({canonical for canonical, _ in assigned.values()})


def pictures_html(conn: sqlite3.Connection, source: Source, run: dict[str, Any]) -> str:
    """The two pictures and the threshold table (inline SVG and HTML, no script)."""
    params = run.get("params", {})
    method = params.get("method", run.get("method"))
    threshold = float(params.get("threshold", 0.9))
    _, what = score_source(conn, method)
    sizes = group_size_chart(group_sizes(conn, source))
    scores = score_chart(score_histogram(conn, method), threshold, what)
    t = threshold_groups(conn, source)
    (actual,) = conn.execute(source.sql("near_group_count", folder="review")).fetchone()
    cells = "".join(
        f"<tr><td>{level:g}{' (the run)' if level == t.threshold else ''}</td>"
        f"<td>{'n/a' if n is None else f'{n:,}'}</td>"
        f"<td>{f'{int(actual):,}' if level == t.threshold else ''}</td></tr>"
        for level, n in t.groups.items()
    )
    notes = "".join(f"<li>{_e(n)}</li>" for n in t.notes)
    return (
        '<section class="pictures" id="pictures">'
        f"<div>{sizes}</div><div>{scores}</div>"
        '<div><table class="thresholds"><caption>Near-duplicate groups by threshold '
        "</caption><tr><th>threshold</th><th>groups of near-duplicate texts</th>"
        "<th>the run's groups with a near member</th></tr>"
        f'{cells}</table><ul class="note">{notes}<li>groups of distinct texts joined by the '
        "stored scores, clustered as the run clusters them (stars, no chaining); "
        "re-crawls of one URL and reviewers' verdicts are not taken into account</li></ul>"
        "</div></section>"
    )
