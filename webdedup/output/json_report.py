"""The JSON report, written as a stream.

The report is one JSON object::

    {"meta": {...},
     "documents": [...],
     "near_duplicate_pairs": [...],
     "near_duplicate_groups": [...],
     "exact_duplicate_groups": [...],
     "url_duplicate_groups": [...],
     "topic_clusters": [...]}          # with --topics K only (and each document's "cluster")

The three group lists partition the duplicate groups by their kind, and ``meta.counts``
counts them, in the one vocabulary of :mod:`webdedup.store.counts`.

Every list is written item by item while an SQL cursor is iterated, and a group is folded from
consecutive rows of a cursor ordered by group, so memory stays flat whatever the number of
pages (only the members of one group are held at a time). The layout is described by the JSON
Schema ``schemas/report.schema.json`` of the repository.

Example::

    >>> import io
    >>> out = io.StringIO()
    >>> write_report("crawl.sqlite", out)  # doctest: +SKIP
    {'documents': 1520, 'near_duplicate_pairs': 12, ...}
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime, timezone
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..store import run_script, split_statements, table_exists
from ..store.pages import as_text
from ..version import __version__
from .files import open_output
from .source import ExportFilters, Source, counts, last_run, open_source
from .topics import topic_clusters

if TYPE_CHECKING:
    from ..algorithms.topics import Topics

#: The fields of one entry of ``documents``, in order.
DOCUMENT_FIELDS = (
    "id",
    "url",
    "title",
    "canonical_url",
    "len_clean",
    "content_hash",
    "exact_group_size",
    "dup_group",
    "dup_group_size",
    "canonical_id",
    "is_canonical",
    "dup_kind",
    "dup_score",
    "lang",
)

#: How many titles a near-duplicate group shows in ``sample_titles``.
SAMPLE_TITLES = 3


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _write_list(out: TextIO, key: str, items: Iterable[Any], *, last: bool = False) -> int:
    """Write ``"key": [item, ...]`` one item at a time; returns the number of items. An item
    that is a :class:`Json` is written as it is."""
    out.write(f'"{key}": [')
    n = 0
    for item in items:
        out.write("\n  " if n == 0 else ",\n  ")
        out.write(item if isinstance(item, Json) else _dumps(item))
        n += 1
    out.write("\n]" if n else "]")
    out.write("\n" if last else ",\n")
    return n


def _rows(cur: sqlite3.Cursor) -> Iterator[dict[str, Any]]:
    names = [d[0] for d in cur.description]
    for row in cur:
        yield dict(zip(names, map(as_text, row), strict=True))


class Json(str):
    """A value already written as JSON (by SQLite's ``json_object``)."""


def iter_documents_json(
    conn: sqlite3.Connection, layout: Source, filters: ExportFilters
) -> Iterator[Json]:
    """:func:`iter_documents` as JSON text, made by SQLite (``sql/export/documents_json.sql``:
    the same fields and values; about five times faster than a dict and ``json.dumps`` a
    page)."""
    documents = layout.sql("documents", text="NULL").strip().rstrip(";")
    query = layout.sql("documents_json", documents=documents)
    for (text,) in conn.execute(query, filters.params()):
        yield Json(text)


def iter_documents(
    conn: sqlite3.Connection,
    layout: Source,
    filters: ExportFilters,
    topics: Topics | None = None,
) -> Iterator[dict[str, Any]]:
    """One dict a kept page, in id order (``is_canonical`` as a boolean; with ``topics``, its
    ``cluster``: its canonical's)."""
    query = layout.sql("documents", text="NULL")  # the report carries no text
    for row in _rows(conn.execute(query, filters.params())):
        row.pop("text", None)
        if row["is_canonical"] is not None:
            row["is_canonical"] = bool(row["is_canonical"])
        if topics is not None:
            (row["cluster"],) = topics.cluster_of([row["canonical_id"]])
        yield row


def iter_thin_pages(
    conn: sqlite3.Connection, layout: Source, filters: ExportFilters
) -> Iterator[dict[str, Any]]:
    """The thin pages (too little content of their own to be a duplicate by content) with
    why (``_webdedup_thin``); none when the state predates them."""
    if not table_exists(conn, "_webdedup_thin"):
        return
    yield from _rows(conn.execute(layout.sql("thin_pages")))


def iter_near_pairs(
    conn: sqlite3.Connection, layout: Source, filters: ExportFilters
) -> Iterator[Json]:
    """The verified near-duplicate edges with both pages' URL and title, as JSON made by
    SQLite (``sql/export/near_pairs_json.sql``)."""
    if not filters.keeps("near"):
        return
    params = {"min_size": filters.params()["min_size"]}
    pairs = layout.sql("near_pairs").strip().rstrip(";")
    with _section(conn, layout, "near_pairs_rows", {}, "near_pairs_json", params,
                  pairs=pairs) as cur:
        for (text,) in cur:
            yield Json(text)


def iter_groups(
    conn: sqlite3.Connection, layout: Source, filters: ExportFilters, kind: str
) -> Iterator[dict[str, Any]]:
    """The groups of one kind (:mod:`webdedup.store.counts`): canonical, members, titles.

    An ``exact`` group also names its canonical's content ``hash``, a ``url`` group the
    ``canonical_url`` all its members share (the keys of the reports before groups had kinds).
    """
    if not filters.keeps(kind):
        return
    params = {"kind": kind, "min_size": filters.params()["min_size"]}
    with _section(conn, layout, "kind_rows", params, "kind_groups", {}) as cur:
        yield from _groups(cur, kind)


@contextmanager
def _section(
    conn: sqlite3.Connection, layout: Source, script: str, script_params: dict[str, Any],
    query: str, params: dict[str, Any], **fills: str,
) -> Iterator[sqlite3.Cursor]:
    """A cursor on ``sql/export/<query>.sql`` (more of its placeholders in ``fills``) after
    ``<script>.sql`` filled the TEMP tables it reads; the tables dropped afterwards, however
    the section ends (``sql/export/sections_done.sql``)."""
    cur: sqlite3.Cursor | None = None
    try:
        for statement in split_statements(layout.sql(script)):
            conn.execute(statement, script_params)
        cur = conn.execute(layout.sql(query, **fills), params)
        yield cur
    finally:
        # (a section left on an error may find its connection closed already: the TEMP
        # tables went with it, and the error that ended the section is the one to see)
        with suppress(sqlite3.Error):
            if cur is not None:
                cur.close()
            run_script(conn, "export/sections_done")


def _groups(cur: sqlite3.Cursor, kind: str) -> Iterator[dict[str, Any]]:
    """:func:`iter_groups`' groups from export/kind_groups.sql's rows."""
    for group_id, rows in groupby(cur, key=itemgetter(0)):
        members: list[int] = []
        titles: list[str] = []
        size = 0
        canonical: tuple[Any, ...] | None = None
        for row in rows:
            _, size, page_id, is_canonical, _, _, title = row
            if canonical is None and is_canonical:
                canonical = row
            members.append(page_id)
            title = as_text(title)
            if title and len(titles) < SAMPLE_TITLES and title not in titles:
                titles.append(title)
        group: dict[str, Any] = {
            "id": group_id,
            "kind": kind,
            "size": size,
            "canonical": canonical[2] if canonical else None,
            "members": members,
            "sample_titles": titles,
        }
        if kind == "exact":
            group["hash"] = canonical[4] if canonical else None
        elif kind == "url":
            group["canonical_url"] = as_text(canonical[5]) if canonical else None
        yield group


def iter_near_groups(
    conn: sqlite3.Connection, layout: Source, filters: ExportFilters
) -> Iterator[dict[str, Any]]:
    """Groups of kind ``near``: at least one member is a near-duplicate."""
    return iter_groups(conn, layout, filters, "near")


def iter_exact_groups(
    conn: sqlite3.Connection, layout: Source, filters: ExportFilters
) -> Iterator[dict[str, Any]]:
    """Groups of kind ``exact``: an exact duplicate and no near one."""
    return iter_groups(conn, layout, filters, "exact")


def iter_url_groups(
    conn: sqlite3.Connection, layout: Source, filters: ExportFilters
) -> Iterator[dict[str, Any]]:
    """Groups of kind ``url``: only URL duplicates (re-crawls and URL variants)."""
    return iter_groups(conn, layout, filters, "url")


def build_meta(conn: sqlite3.Connection, layout: Source, filters: ExportFilters) -> dict[str, Any]:
    """The report's ``meta``: when, by which version, counts, and the last run's parameters."""
    run = last_run(conn)
    return {
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "webdedup_version": __version__,
        "table": layout.table,
        "counts": counts(conn, layout),
        "filters": filters.as_dict(),
        "run": {
            "id": run.get("id"),
            "started_at": run.get("started_at"),
            "finished_at": run.get("finished_at"),
            "mode": run.get("mode"),
            "method": run.get("method"),
            "fingerprint": run.get("fingerprint"),
            "wall_seconds": run.get("wall_seconds"),
        },
        "parameters": run.get("params", {}),
    }


def write_report_to(
    conn: sqlite3.Connection,
    layout: Source,
    out: TextIO,
    filters: ExportFilters,
    *,
    topics: Topics | None = None,
) -> dict[str, int]:
    """Stream the whole report to the open text file ``out``; returns the item counts.

    With ``topics`` (:func:`~webdedup.output.topics.compute_topics`), also ``topic_clusters``
    and each document's ``cluster``.
    """
    written: dict[str, int] = {}
    out.write("{\n")
    out.write('"meta": ' + json.dumps(build_meta(conn, layout, filters), ensure_ascii=False))
    out.write(",\n")
    sections: list[tuple[str, Any]] = [
        ("documents", lambda c, lay, f: iter_documents(c, lay, f, topics) if topics is not None
         else iter_documents_json(c, lay, f)),
        ("near_duplicate_pairs", iter_near_pairs),
        ("near_duplicate_groups", iter_near_groups),
        ("exact_duplicate_groups", iter_exact_groups),
        ("url_duplicate_groups", iter_url_groups),
        ("thin_pages", iter_thin_pages),
    ]
    if topics is not None:
        sections.append(("topic_clusters", lambda c, lay, f: topic_clusters(c, lay, topics)))
    for i, (key, make) in enumerate(sections):
        items = make(conn, layout, filters)
        written[key] = _write_list(out, key, items, last=i == len(sections) - 1)
    out.write("}\n")
    return written


def write_report(
    db: str | Path | sqlite3.Connection,
    out: str | Path | TextIO,
    filters: ExportFilters | None = None,
    *,
    busy_timeout: float = 5.0,
) -> dict[str, int]:
    """Write the JSON report of an annotated database to a path (atomically) or a text file.

    Returns how many items each list got. Raises :class:`~webdedup.output.NotAnnotated`
    when ``webdedup db`` never ran on ``db``.
    """
    filters = filters or ExportFilters()
    with open_source(db, busy_timeout=busy_timeout) as (conn, layout):
        conn.execute("BEGIN")  # one read snapshot for every section
        try:
            with open_output(out) as fh:
                return write_report_to(conn, layout, fh, filters)
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
