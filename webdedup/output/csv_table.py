"""The CSV table: one row a page with its annotations, streamed.

UTF-8 (no byte-order mark), RFC 4180 quoting by the ``csv`` module with ``\\r\\n`` line ends,
a header row, empty cells for NULL. A text cell that a spreadsheet would run as a formula
(it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written with a
leading ``'``, the usual neutralization (OWASP "CSV injection"): spreadsheets then show it as
text. Numbers are written as numbers and never changed; strip one leading ``'`` from such text
cells to get the original value back.

Example::

    >>> neutralize("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> neutralize("plain title")
    'plain title'
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..store.pages import as_text
from .files import open_output
from .source import ANNOTATION_COLUMNS, ExportFilters, Source, open_source

if TYPE_CHECKING:
    from ..algorithms.topics import Topics

#: The columns of the CSV, in order (``text`` is appended with ``with_text``).
CSV_COLUMNS = ("id", "url", "title", *ANNOTATION_COLUMNS, "lang")

#: First characters that make a spreadsheet evaluate a cell.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralize(value: Any) -> Any:
    """Prefix ``'`` to a string a spreadsheet would run as a formula; other values unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def write_csv_to(
    conn: sqlite3.Connection,
    layout: Source,
    out: TextIO,
    filters: ExportFilters,
    *,
    with_text: bool = False,
    topics: Topics | None = None,
) -> int:
    """Stream the CSV to ``out`` (opened with ``newline=""``); returns the rows written.

    With ``topics``, a ``cluster`` column (the page's canonical's topic) before ``text``.
    """
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    header = CSV_COLUMNS + (("cluster",) if topics is not None else ())
    header += ("text",) if with_text else ()
    writer.writerow(header)
    query = layout.sql("documents") if with_text else layout.sql("documents", text="NULL")
    cur = conn.execute(query, filters.params())
    names = [d[0] for d in cur.description]
    index = [names.index(c) for c in CSV_COLUMNS]
    text_at = names.index("text")
    canonical_at = names.index("canonical_id")
    n = 0
    for row in cur:
        cells = [neutralize(as_text(row[i])) for i in index]
        if topics is not None:
            cells += topics.cluster_of([row[canonical_at]])
        if with_text:
            cells.append(neutralize(as_text(row[text_at])))
        writer.writerow(cells)
        n += 1
    return n


def write_csv(
    db: str | Path | sqlite3.Connection,
    out: str | Path | TextIO,
    filters: ExportFilters | None = None,
    *,
    with_text: bool = False,
    busy_timeout: float = 5.0,
) -> int:
    """Write the CSV table of an annotated database to a path (atomically) or a text file.

    ``with_text`` adds a ``text`` column with the page's text as the crawler stored it.
    Returns the number of rows (pages) written.
    """
    filters = filters or ExportFilters()
    with open_source(db, busy_timeout=busy_timeout) as (conn, layout):
        with open_output(out, newline="") as fh:
            return write_csv_to(conn, layout, fh, filters, with_text=with_text)
