"""Pruning (``db --prune``) and restoring (``webdedup restore``) the non-canonical pages.

Nothing is deleted unless the user asks; a pruned row keeps its original rowid and every
column in ``_webdedup_pruned``, from which :func:`restore_pruned` puts it back.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import InputError, NoPagesTable
from ..store import (
    connect,
    integer_primary_key,
    quote,
    table_columns,
    table_exists,
    transaction,
    use_wal,
)
from ..store.layout import refuse_own_table, rowid_alias
from ..store.schema import PRUNED_TABLE


def restore_pruned(
    db: str | Path | sqlite3.Connection, table: str = "pages", *, busy_timeout: float = 5.0
) -> int:
    """Move every row of ``_webdedup_pruned`` back into ``table``; returns how many.

    Example::

        >>> restore_pruned("crawl.sqlite")  # doctest: +SKIP
        42
    """
    refuse_own_table(table)
    conn = connect(db, busy_timeout=busy_timeout)
    try:
        if not table_exists(conn, table):
            raise NoPagesTable(f"no table {table!r} to restore pruned pages into")
        if not table_exists(conn, PRUNED_TABLE):
            return 0
        if not isinstance(db, sqlite3.Connection):
            use_wal(conn, busy_timeout)
        with transaction(conn):
            return restore(conn, table)
    finally:
        if not isinstance(db, sqlite3.Connection):
            conn.close()


def prune(conn: sqlite3.Connection, table: str) -> int:
    """Move every non-canonical annotated row of ``table`` into ``_webdedup_pruned``.

    The side table keeps the original rowid and every column, so :func:`restore` can put the
    rows back. Call inside the write transaction, after :func:`run`.
    """
    cols = table_columns(conn, table)
    taken = [c for c in cols if c.lower() in ("_rowid", "_pruned_at")]
    if taken:
        raise InputError(
            f"table {table!r} has a column named {taken[0]!r}, which _webdedup_pruned uses for "
            "its own bookkeeping; rename that column to use --prune"
        )
    if not table_exists(conn, PRUNED_TABLE):
        col_defs = ", ".join(quote(c) for c in cols)
        conn.execute(
            f"CREATE TABLE {quote(PRUNED_TABLE)} (_rowid INTEGER PRIMARY KEY, "
            f"_pruned_at TEXT NOT NULL, {col_defs})"
        )
    else:
        have = set(table_columns(conn, PRUNED_TABLE))
        for c in cols:
            if c not in have:
                conn.execute(f"ALTER TABLE {quote(PRUNED_TABLE)} ADD COLUMN {quote(c)}")
    col_list = ", ".join(quote(c) for c in cols)
    # a thin page is its own canonical; "IS NOT" keeps one even if that ever changed
    where = "is_canonical = 0 AND dup_kind IS NOT 'thin'"
    rowid = quote(rowid_alias(conn, table))
    conn.execute(
        f"INSERT INTO {quote(PRUNED_TABLE)} (_rowid, _pruned_at, {col_list}) "
        f"SELECT {rowid}, datetime('now'), {col_list} FROM {quote(table)} WHERE {where}"
    )
    cur = conn.execute(f"DELETE FROM {quote(table)} WHERE {where}")
    return cur.rowcount


def restore(conn: sqlite3.Connection, table: str) -> int:
    """Put every pruned row back into ``table`` under its original rowid; returns the count.

    Columns that ``table`` no longer has are dropped; a rowid taken meanwhile by a new row
    keeps that new row, and the pruned row is restored under a fresh rowid.
    """
    if not table_exists(conn, PRUNED_TABLE):
        return 0
    pruned_cols = set(table_columns(conn, PRUNED_TABLE))
    cols = [c for c in table_columns(conn, table) if c in pruned_cols]
    pk = integer_primary_key(conn, table)
    alias = rowid_alias(conn, table)
    restored = 0
    rows = conn.execute(
        f"SELECT _rowid, {', '.join(quote(c) for c in cols)} FROM {quote(PRUNED_TABLE)}"
    ).fetchall()
    for rowid, *values in rows:
        taken = conn.execute(
            f"SELECT 1 FROM {quote(table)} WHERE {quote(alias)} = ?", (rowid,)
        ).fetchone()
        names, vals = list(cols), list(values)
        if taken and pk in names:  # the old id is in use: let SQLite pick a new one
            i = names.index(pk)
            del names[i], vals[i]
        elif not taken and pk is None:
            names, vals = [alias, *names], [rowid, *vals]
        conn.execute(
            f"INSERT INTO {quote(table)} ({', '.join(quote(c) for c in names)}) "
            f"VALUES ({', '.join('?' * len(vals))})",
            vals,
        )
        restored += 1
    conn.execute(f"DELETE FROM {quote(PRUNED_TABLE)}")
    return restored
