"""``content_hash`` on the crawler's table without a run (``Deduplicator.add_content_hash_column``).

The API webdedup follows has a maintenance helper that adds a ``content_hash`` column to
``pages`` and fills it with the SHA-1 of each page's ``parsed`` text, as its crawlers'
``batch_parse_web_page`` does. That column is the crawler's: here too the helper adds (when
missing) and fills it with that definition — the SHA-1 of the text column's UTF-8 as stored,
rows without text left as they are — and webdedup's runs never write into it (they keep their
own hash of the normalized text in their state). Only a ``content_hash`` a webdedup run created
is refreshed with webdedup's value: the SHA-1 of the page's *normalized* text
(:func:`~webdedup.algorithms.text.content_hash`), NULL for an empty text, so a later run
agrees with it.
"""

from __future__ import annotations

import hashlib
import sqlite3

from ..config import PARSED_COLUMNS, Columns
from .connection import transaction
from .layout import (
    Layout,
    annotated_tables,
    crawler_columns,
    record_annotated,
    record_crawler_columns,
)
from .migrations import migrate
from .pages import iter_pages, page_digest
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
            columns = PARSED_COLUMNS
    layout = Layout.resolve(conn, columns)
    have = table_columns(conn, layout.table)
    mine = (
        "content_hash" in have
        and layout.table in annotated_tables(conn)
        and "content_hash" not in crawler_columns(conn, layout.table)
    )
    if not mine:
        return _crawler_hashes(conn, layout)
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


def _crawler_hashes(conn: sqlite3.Connection, layout: Layout) -> int:
    """That API's ``content_hash``: the SHA-1 of the text column's UTF-8 as stored, on the
    rows whose text is not NULL; the column is recorded as the crawler's."""
    table, rowid = quote(layout.table), quote(layout.rowid)
    update = sql("content_hash_update", table=table, rowid=rowid)
    index = sql("content_hash_index", table=table,
                index=quote(f"idx_{layout.table}_content_hash"))
    text = quote(layout.content) if layout.content else "NULL"
    n = 0
    with transaction(conn):
        if "content_hash" not in table_columns(conn, layout.table):
            add_column(conn, layout.table, "content_hash", "TEXT")
        migrate(conn)
        record_crawler_columns(conn, layout.table, ["content_hash"])
        reader = conn.cursor()
        reader.execute(f"SELECT {rowid}, {text} FROM {table} WHERE {text} IS NOT NULL")
        while rows := reader.fetchmany(BATCH):
            batch = [
                {"id": page_id, "hash": hashlib.sha1(_utf8(value)).hexdigest()}
                for page_id, value in rows
            ]
            conn.executemany(update, batch)
            n += len(batch)
        conn.execute(index)
    return n


def _utf8(value: object) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    return str(value).encode("utf-8", "surrogatepass")
