"""``content_hash`` on the crawler's table without a run (``Deduplicator.add_content_hash_column``).

The API webdedup follows has a maintenance helper that adds a ``content_hash`` column to
``pages`` and fills it with the SHA-1 of each page's text. Here the value is the one
``webdedup db`` writes into the same column: the SHA-1 of the page's *normalized* text
(:func:`~webdedup.algorithms.text.content_hash`), NULL for an empty text; so a later run
agrees with it, and the table is recorded as carrying webdedup's columns (a run writes into
this ``content_hash`` instead of refusing it as the crawler's own).
"""

from __future__ import annotations

import sqlite3

from ..config import Columns
from .connection import transaction
from .layout import Layout
from .migrations import migrate
from .pages import iter_pages, page_digest
from .schema import record_annotated
from .sqlfiles import quote, sql
from .tables import add_column, table_columns

#: Rows updated per statement batch.
BATCH = 1_024


def add_content_hash_column(conn: sqlite3.Connection, columns: Columns | None = None) -> int:
    """Add (when missing) and fill ``content_hash`` on the pages table; returns the rows.

    The text is read as ``webdedup db`` reads it (``columns``; the text column, else the
    HTML's main text). Without ``columns``, a table with a ``parsed`` column and no mapping
    is read the way that API's crawlers store it: the text in ``parsed``.
    """
    if columns is None:
        columns = Columns()
        if "parsed" in table_columns(conn, columns.table):
            columns = Columns(content="parsed")
    layout = Layout.resolve(conn, columns)
    update = sql("content_hash_update", table=quote(layout.table), rowid=quote(layout.rowid))
    index = sql("content_hash_index", table=quote(layout.table),
                index=quote(f"idx_{layout.table}_content_hash"))
    n = 0
    with transaction(conn):
        if "content_hash" not in table_columns(conn, layout.table):
            add_column(conn, layout.table, "content_hash", "TEXT")
        # the column is webdedup's now: a later run may write into it (same values)
        migrate(conn)
        record_annotated(conn, layout.table)
        reader = conn.cursor()
        reader.execute(layout.select_pages())
        batch: list[dict[str, object]] = []
        for page in iter_pages(reader):
            digest = page_digest(page)
            batch.append({"id": page.id, "hash": None if digest.empty else digest.sha1})
            if len(batch) >= BATCH:
                conn.executemany(update, batch)
                n += len(batch)
                batch = []
        conn.executemany(update, batch)
        n += len(batch)
        conn.execute(index)
    return n
