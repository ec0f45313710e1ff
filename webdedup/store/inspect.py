"""Read-only questions about tables: do they exist, which columns, which key."""

from __future__ import annotations

import re
import sqlite3

from .sqlfiles import quote


def table_exists(conn: sqlite3.Connection, table: str, schema: str = "main") -> bool:
    row = conn.execute(
        f"SELECT 1 FROM {quote(schema)}.sqlite_schema WHERE type = 'table' AND name = ?",
        (table,),
    ).fetchone()
    return row is not None


def table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The column names of ``table`` in order."""
    return [r[1] for r in conn.execute(f"PRAGMA table_info({quote(table)})")]


def integer_primary_key(conn: sqlite3.Connection, table: str) -> str | None:
    """The INTEGER PRIMARY KEY column of ``table`` (a rowid alias VACUUM never renumbers)."""
    pk = [r for r in conn.execute(f"PRAGMA table_info({quote(table)})") if r[5]]
    if len(pk) == 1 and (pk[0][2] or "").upper() == "INTEGER":
        return str(pk[0][1])
    return None


def is_without_rowid(conn: sqlite3.Connection, table: str) -> bool:
    row = conn.execute(
        "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    return bool(row and row[0] and re.search(r"without\s+rowid", row[0], re.I))
