"""Export an annotated crawl database for review: JSON report, CSV table, HTML page; explain.

Example::

    >>> from webdedup.output import ExportFilters, export
    >>> export("crawl.sqlite", json_path="report.json", csv_path="pages.csv",
    ...        html_path="review.html", filters=ExportFilters(min_group_size=2))
    ... # doctest: +SKIP
    ExportSummary(documents=1520, csv_rows=1520, review_groups=200, ...)

Each writer is also usable alone (:func:`write_report`, :func:`write_csv`,
:func:`write_review`); :func:`export` writes several from one read snapshot.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import ConfigError
from ..store import refuse_database_paths
from .csv_table import CSV_COLUMNS, neutralize, write_csv, write_csv_to
from .explain import PageNotFound, explain_pair, format_explanation, similarities
from .files import OutputError, open_output
from .html_review import MAX_GROUPS, word_diff, write_review, write_review_to
from .json_report import DOCUMENT_FIELDS, write_report, write_report_to
from .source import KINDS, ExportFilters, NotAnnotated, Source, open_source
from .topics import check_k, compute_topics

if TYPE_CHECKING:
    from ..algorithms.topics import Topics

__all__ = [
    "CSV_COLUMNS",
    "DOCUMENT_FIELDS",
    "KINDS",
    "MAX_GROUPS",
    "ExportFilters",
    "ExportSummary",
    "Source",
    "NotAnnotated",
    "OutputError",
    "PageNotFound",
    "explain_pair",
    "export",
    "format_explanation",
    "neutralize",
    "similarities",
    "word_diff",
    "write_csv",
    "write_report",
    "write_review",
]

Target = str | Path | TextIO


@dataclass
class ExportSummary:
    """What :func:`export` wrote (``None`` for an output not asked for)."""

    report: dict[str, int] | None = None
    csv_rows: int | None = None
    review_groups: int | None = None
    topic_clusters: int | None = None
    written: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """Human lines for the CLI."""
        out = []
        if self.report is not None:
            r = self.report
            out.append(
                f"JSON report: {r['documents']:,} documents, {r['near_duplicate_pairs']:,} near "
                f"pairs, {r['near_duplicate_groups']:,} near / {r['exact_duplicate_groups']:,} "
                f"exact / {r['url_duplicate_groups']:,} URL duplicate groups"
            )
        if self.topic_clusters is not None:
            out.append(f"topic clusters: {self.topic_clusters:,}")
        if self.csv_rows is not None:
            out.append(f"CSV: {self.csv_rows:,} rows")
        if self.review_groups is not None:
            out.append(f"HTML review: {self.review_groups:,} groups")
        return out


def export(
    db: str | Path | sqlite3.Connection,
    *,
    json_path: Target | None = None,
    csv_path: Target | None = None,
    html_path: Target | None = None,
    filters: ExportFilters | None = None,
    with_text: bool = False,
    max_groups: int = MAX_GROUPS,
    busy_timeout: float = 5.0,
    topics: int | None = None,
) -> ExportSummary:
    """Write the asked outputs of an annotated database, all from one read snapshot.

    ``topics``: cluster the canonical pages into that many topics (:mod:`.topics`): the
    report gets ``topic_clusters`` and each document its ``cluster``, the CSV a ``cluster``
    column, and the review page groups its duplicate groups by topic.

    Raises :class:`ConfigError` when no output is given, :class:`NotAnnotated` when
    ``webdedup db`` never ran on ``db``, :class:`OutputError` when a file can't be written.
    """
    if json_path is None and csv_path is None and html_path is None:
        raise ConfigError("nothing to export: give at least one of json_path, csv_path, html_path")
    if max_groups < 1:
        raise ConfigError(f"max_groups must be 1 or more, got {max_groups!r}")
    filters = filters or ExportFilters()
    summary = ExportSummary()
    if topics is not None:
        check_k(topics)
    with open_source(db, busy_timeout=busy_timeout) as (conn, layout):
        targets = [p for p in (json_path, csv_path, html_path) if isinstance(p, str | Path)]
        refuse_database_paths(conn, targets, "the export")
        conn.execute("BEGIN")  # one snapshot: the outputs agree even if a run commits meanwhile
        try:
            clusters: Topics | None = None
            if topics is not None:
                clusters = compute_topics(conn, layout, topics)
                summary.topic_clusters = len(clusters.clusters)
            if json_path is not None:
                with open_output(json_path) as fh:
                    summary.report = write_report_to(conn, layout, fh, filters, topics=clusters)
                summary.written.append(str(json_path))
            if csv_path is not None:
                with open_output(csv_path, newline="") as fh:
                    summary.csv_rows = write_csv_to(
                        conn, layout, fh, filters, with_text=with_text, topics=clusters
                    )
                summary.written.append(str(csv_path))
            if html_path is not None:
                title = "webdedup review"
                if not isinstance(db, sqlite3.Connection):
                    title += f" — {Path(db).name}"
                with open_output(html_path) as fh:
                    summary.review_groups = write_review_to(
                        conn,
                        layout,
                        fh,
                        filters,
                        max_groups=max_groups,
                        title=title,
                        topics=clusters,
                    )
                summary.written.append(str(html_path))
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
    return summary
