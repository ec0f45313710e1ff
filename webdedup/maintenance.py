"""Operations on an annotated database other than a run: restoring pruned pages."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .errors import NoPagesTable
from .phases.write_back import PRUNED_TABLE, restore
from .store import connect, table_exists, transaction


def restore_pruned(
    db: str | Path | sqlite3.Connection, table: str = "pages", *, busy_timeout: float = 5.0
) -> int:
    """Move every row of ``_webdedup_pruned`` back into ``table``; returns how many.

    Example::

        >>> restore_pruned("crawl.sqlite")  # doctest: +SKIP
        42
    """
    conn = connect(db, busy_timeout=busy_timeout)
    try:
        if not table_exists(conn, table):
            raise NoPagesTable(f"no table {table!r} to restore pruned pages into")
        if not table_exists(conn, PRUNED_TABLE):
            return 0
        with transaction(conn):
            return restore(conn, table)
    finally:
        if not isinstance(db, sqlite3.Connection):
            conn.close()
