"""Pruning (``db --prune``) and restoring (``webdedup restore``) the non-canonical pages.

Nothing is deleted unless the user asks; a pruned row keeps its original rowid and every
column in ``_webdedup_pruned``, from which :func:`restore_pruned` puts it back.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import InputError, NoPagesTable, RestoreConflict
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
    where = "is_canonical = 0"
    rowid = quote(rowid_alias(conn, table))
    conn.execute(
        f"INSERT INTO {quote(PRUNED_TABLE)} (_rowid, _pruned_at, {col_list}) "
        f"SELECT {rowid}, datetime('now'), {col_list} FROM {quote(table)} WHERE {where}"
    )
    cur = conn.execute(f"DELETE FROM {quote(table)} WHERE {where}")
    return cur.rowcount


def restore(conn: sqlite3.Connection, table: str) -> int:
    """Put every pruned row back into ``table`` under its original rowid; returns the count.

    Columns that ``table`` no longer has are dropped. Call inside the write transaction: when
    a row can't go back under its id (the crawler wrote a new page under it since the prune,
    or re-crawled its URL into a ``UNIQUE`` column...), :class:`RestoreConflict` lists every
    such row and why, and the transaction is rolled back: nothing was written. A row is never
    restored under another id, and a constraint's ``ON CONFLICT REPLACE`` never deletes the
    crawler's newer row (the rows go in ``INSERT OR ABORT``).
    """
    if not table_exists(conn, PRUNED_TABLE):
        return 0
    pruned_cols = set(table_columns(conn, PRUNED_TABLE))
    cols = [c for c in table_columns(conn, table) if c in pruned_cols]
    pk = integer_primary_key(conn, table)
    alias = rowid_alias(conn, table)
    names = cols if pk in cols else [alias, *cols]
    insert = (
        f"INSERT OR ABORT INTO {quote(table)} ({', '.join(quote(c) for c in names)}) "
        f"VALUES ({', '.join('?' * len(names))})"
    )
    url = next((c for c in cols if c.lower() == "url"), None)
    shown = f"{quote(url)}" if url else "NULL"
    conflicts: list[str] = []
    refused: list[int] = []
    restored = 0
    rows = conn.execute(
        f"SELECT _rowid, {', '.join(quote(c) for c in cols)} FROM {quote(PRUNED_TABLE)} "
        "ORDER BY _rowid"
    ).fetchall()
    for rowid, *values in rows:
        page = f"page {rowid}" + (f" ({values[cols.index(url)]})" if url else "")
        holder = conn.execute(
            f"SELECT {shown} FROM {quote(table)} WHERE {quote(alias)} = ?", (rowid,)
        ).fetchone()
        if holder is not None:
            now = f" (now {holder[0]})" if url else ""
            conflicts.append(f"{page}: its id is taken by a row written since the prune{now}")
            refused.append(rowid)
            continue
        try:
            conn.execute(insert, values if pk in cols else [rowid, *values])
        except sqlite3.IntegrityError as exc:
            if not conn.in_transaction:  # a trigger's RAISE(ROLLBACK): all was undone
                raise RestoreConflict(f"{page} can't be restored ({exc}); nothing was "
                                      "restored") from exc
            conflicts.append(f"{page}: {exc}{_holder(conn, table, alias, exc, cols, values)}")
            refused.append(rowid)
            continue
        restored += 1
    if conflicts:
        ids = ", ".join(map(str, refused[:MAX_LISTED])) + (", ..." if len(refused) > MAX_LISTED
                                                             else "")
        listed = conflicts[:MAX_LISTED] + (
            [f"... and {len(conflicts) - MAX_LISTED:,} more"] if len(conflicts) > MAX_LISTED
            else []
        )
        raise RestoreConflict(
            f"{len(conflicts):,} of the {len(rows):,} pruned pages can't go back under their "
            "ids, so nothing was restored:\n  " + "\n  ".join(listed) + "\nRemove (or "
            f"change) the crawler's newer rows, or drop the pruned copies you don't want "
            f"back (DELETE FROM {PRUNED_TABLE} WHERE _rowid IN ({ids})), then run restore "
            "again"
        )
    conn.execute(f"DELETE FROM {quote(PRUNED_TABLE)}")
    return restored


#: Conflicts a refused ``restore`` lists one by one (the rest are counted).
MAX_LISTED = 20


def _holder(
    conn: sqlite3.Connection,
    table: str,
    alias: str,
    exc: sqlite3.IntegrityError,
    cols: list[str],
    values: list[object],
) -> str:
    """" (row N holds that value)" for a ``UNIQUE constraint failed: t.a, t.b`` on plain
    columns; "" when SQLite's message names no columns (an index on expressions...)."""
    _, _, failed = str(exc).partition("UNIQUE constraint failed: ")
    if not failed:
        return ""
    unique = [part.strip().rpartition(".")[2] for part in failed.split(",")]
    if not all(c in cols for c in unique):
        return ""
    where = " AND ".join(f"{quote(c)} = ?" for c in unique)
    row = conn.execute(
        f"SELECT {quote(alias)} FROM {quote(table)} WHERE {where} LIMIT 1",
        [values[cols.index(c)] for c in unique],
    ).fetchone()
    return f" (row {row[0]} holds that value)" if row else ""
