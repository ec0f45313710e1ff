"""Questions about tables (do they exist, which columns, which key) and adding columns.

The questions are plain catalogue queries (``sqlite_schema``, ``PRAGMA table_info``), and
``ADD COLUMN`` is the one statement sqlite-utils' ``Table.add_column`` would run (every name
in double quotes, the type one of four), on the connection webdedup already holds: importing
sqlite-utils costs about half a second of CPU a process (it imports pandas when that is
installed), which every first run paid to add its output columns.

Example::

    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute('CREATE TABLE "we""ird" (id INTEGER PRIMARY KEY, url TEXT)')
    >>> table_exists(conn, 'we"ird'), table_columns(conn, 'we"ird')
    (True, ['id', 'url'])
    >>> add_column(conn, 'we"ird', "dup_kind", "TEXT"); table_columns(conn, 'we"ird')
    ['id', 'url', 'dup_kind']
    >>> integer_primary_key(conn, 'we"ird')
    'id'
"""

from __future__ import annotations

import re
import sqlite3

from .sqlfiles import quote

#: The column types :func:`add_column` writes.
COLUMN_TYPES = ("TEXT", "INTEGER", "REAL", "BLOB")


def table_exists(conn: sqlite3.Connection, table: str, schema: str = "main") -> bool:
    """Whether ``table`` is a table (not a view) of ``schema`` (its exact name)."""
    row = conn.execute(
        f"SELECT 1 FROM {quote(schema)}.sqlite_schema WHERE type = 'table' AND name = ?",
        (table,),
    ).fetchone()
    return row is not None


def _table_info(conn: sqlite3.Connection, table: str) -> list[tuple]:
    """``PRAGMA table_info`` rows: (cid, name, type, notnull, default, pk)."""
    return conn.execute(f"PRAGMA main.table_info({quote(table)})").fetchall()


def table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The column names of ``table`` in order."""
    return [str(row[1]) for row in _table_info(conn, table)]


def integer_primary_key(conn: sqlite3.Connection, table: str) -> str | None:
    """The INTEGER PRIMARY KEY column of ``table`` (a rowid alias VACUUM never renumbers)."""
    pk = [row for row in _table_info(conn, table) if row[5]]
    if len(pk) == 1 and (pk[0][2] or "").upper() == "INTEGER":
        return str(pk[0][1])
    return None


def is_without_rowid(conn: sqlite3.Connection, table: str) -> bool:
    row = conn.execute(
        "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    return bool(row and row[0] and re.search(r"without\s+rowid", row[0], re.I))


def add_column(
    conn: sqlite3.Connection, table: str, column: str, sql_type: str, comment: str = ""
) -> None:
    """``ALTER TABLE table ADD COLUMN column sql_type`` (TEXT, INTEGER, REAL or BLOB), with
    ``/* comment */`` after the type when given (SQLite keeps it in the table's schema)."""
    if sql_type not in COLUMN_TYPES:
        raise ValueError(f"column type {sql_type!r} is not one of {', '.join(COLUMN_TYPES)}")
    if comment and not comment.replace(" ", "").isalnum():
        raise ValueError(f"a column comment is letters, digits and spaces, got {comment!r}")
    note = f" /* {comment} */" if comment else ""
    conn.execute(f"ALTER TABLE main.{quote(table)} ADD COLUMN {quote(column)} {sql_type}{note}")
