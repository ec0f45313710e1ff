"""Connections to a crawl database: opening (or adopting) one, transactions, error translation.

Every connection webdedup opens is in autocommit mode (transactions are explicit, see
:func:`transaction`), waits ``busy_timeout`` seconds for locks, and decodes invalid UTF-8 in
TEXT cells with replacement characters (:func:`decode_text`) instead of failing a run.

Opening a database changes nothing in its file: a command that is refused (no pages table, a
missing column...) or only reads leaves it byte for byte as it was, with no ``-wal``/``-shm``
files beside it. A command that is going to write calls :func:`use_wal` once its checks
passed: from then on the file is in WAL mode, so a crawler keeps writing while a run reads.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import (
    DamagedDatabase,
    DatabaseLocked,
    DiskFull,
    NotADatabase,
    ReadOnlyDatabase,
    WebdedupError,
)

SQLITE_HEADER = b"SQLite format 3\x00"
MIN_SQLITE = (3, 33, 0)  # window functions and UPDATE ... FROM
SQLITE_FULL = 13  # "database or disk is full" (also a PRAGMA max_page_count reached)


def _check_sqlite_version() -> None:
    if sqlite3.sqlite_version_info < MIN_SQLITE:
        raise WebdedupError(
            f"SQLite {sqlite3.sqlite_version} is too old; webdedup needs "
            f"{'.'.join(map(str, MIN_SQLITE))} or newer (window functions, UPDATE FROM)"
        )


def _is_read_only(path: Path) -> bool:
    """True when the file or its folder can't be written (mode bits are honoured for root too)."""
    st = path.stat()
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return True
    if not os.access(path, os.W_OK):
        return True
    folder = path.parent
    return not os.access(folder, os.W_OK | os.X_OK)


def connect(
    db: str | Path | sqlite3.Connection,
    *,
    busy_timeout: float = 5.0,
    must_exist: bool = True,
    write: bool = True,
) -> sqlite3.Connection:
    """Open a crawl database (or adopt an open connection) ready for webdedup.

    The connection is in autocommit mode (transactions are explicit, see
    :func:`transaction`) and waits up to ``busy_timeout`` seconds for locks (the busy handler
    is in force before its first statement). It changes nothing in the file: call
    :func:`use_wal` once the command is going to write. Raises :class:`NotADatabase` for a
    missing or non-SQLite file and :class:`ReadOnlyDatabase` when ``write`` is asked of a
    file that can't be written.
    """
    _check_sqlite_version()
    if isinstance(db, sqlite3.Connection):
        conn = db
        if getattr(conn, "autocommit", -1) != getattr(sqlite3, "LEGACY_TRANSACTION_CONTROL", -1):
            raise WebdedupError(
                "the connection passed to webdedup was opened with autocommit=True or False "
                "(Python 3.12+); open it with the default transaction handling"
            )
        if conn.in_transaction:
            raise WebdedupError(
                "the connection passed to webdedup is inside a transaction; commit it first"
            )
        conn.isolation_level = None
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        return conn
    name = str(db)
    if name != ":memory:":
        path = Path(name)
        if not path.exists():
            if must_exist:
                raise NotADatabase(f"{path}: no such file (give the path of a crawl database)")
        elif path.is_dir():
            raise NotADatabase(f"{path} is a folder, not an SQLite database file")
        else:
            with path.open("rb") as fh:
                head = fh.read(len(SQLITE_HEADER))
            if head and head != SQLITE_HEADER:
                raise NotADatabase(
                    f"{path} is not an SQLite database (its header is {head[:15]!r})"
                )
            if write and _is_read_only(path):
                raise ReadOnlyDatabase(
                    f"{path} is read-only (or its folder is, and SQLite needs to write the WAL "
                    "beside it); make it writable, or copy it somewhere writable"
                )
    try:
        conn = sqlite3.connect(name, timeout=busy_timeout, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    except sqlite3.DatabaseError as exc:
        raise translate(exc, name) from exc
    # Crawlers do store invalid UTF-8 in TEXT columns; decode it with replacement characters
    # instead of failing the whole run on one row.
    conn.text_factory = decode_text
    conn.execute("PRAGMA temp_store = FILE")
    # 64 MiB page caches. Without a schema the pragma sets main's only: the TEMP tables of a
    # run (its prepared rows, candidates, scores) had a few pages of cache and went to their
    # file for every other page (a nightly run at a million pages: half of its reads).
    conn.execute("PRAGMA main.cache_size = -65536")
    conn.execute("PRAGMA temp.cache_size = -65536")
    return conn


def use_wal(conn: sqlite3.Connection, busy_timeout: float = 5.0) -> str:
    """Switch the database to WAL journaling (persistent); returns the journal mode in force.

    Call it once a command has passed its checks and is going to write: WAL lets a crawler
    keep committing while a run reads its snapshot. Switching needs the database to itself
    for a moment, and SQLite reports a crawler's open write transaction as ``SQLITE_BUSY``
    at once there, without calling the busy handler (it would deadlock a rollback-journal
    database); so this waits for it, up to ``busy_timeout`` seconds, then raises
    :class:`DatabaseLocked`. An in-memory database, or a file that can't do WAL (some network
    file systems), keeps its mode.

    >>> use_wal(connect(":memory:", must_exist=False))
    'memory'
    """
    deadline = time.monotonic() + busy_timeout
    pause = 0.005
    while True:
        try:
            mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
            if mode not in ("wal", "memory"):
                # "delete" etc. when the file system can't do WAL
                mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
            if mode == "wal":
                _wal_settings(conn)
            return mode
        except sqlite3.OperationalError as exc:
            low = str(exc).lower()
            if ("locked" not in low and "busy" not in low) or time.monotonic() >= deadline:
                raise translate(exc) from exc
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.1)


def _wal_settings(conn: sqlite3.Connection) -> None:
    """This connection's WAL habits (they last as long as the connection, not in the file).

    ``synchronous = NORMAL``: a commit appends to the WAL without waiting for the disk (a
    killed process loses nothing; a power cut may lose the last commit, never consistency),
    so the write lock is not held through an fsync of everything a run wrote.
    """
    conn.execute("PRAGMA synchronous = NORMAL")


def decode_text(data: bytes) -> str:
    """SQLite TEXT as str, with replacement characters for invalid UTF-8."""
    return data.decode("utf-8", "replace")


@contextmanager
def lenient_text(conn: sqlite3.Connection, factory: Any = decode_text) -> Iterator[None]:
    """Decode invalid UTF-8 leniently on a connection for a while (for adopted connections;
    :func:`connect` already sets it on the connections it opens), then restore its factory.
    ``factory=bytes`` reads TEXT as its bytes, handed on undecoded to the worker processes:
    :func:`~.pages.page_digest` normalizes well-formed UTF-8 as it is, and
    :func:`~.pages.page_text` decodes a text where one is needed."""
    old = conn.text_factory
    conn.text_factory = factory
    try:
        yield
    finally:
        conn.text_factory = old


def translate(exc: sqlite3.Error, where: str = "the database") -> WebdedupError:
    """Turn an sqlite3 error into webdedup's own exception with advice."""
    msg = str(exc)
    low = msg.lower()
    if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == SQLITE_FULL or "disk is full" in low:
        return DiskFull(
            f"{where}: the disk is full ({msg}); the unfinished write was rolled back. Free "
            "space on the database's disk and in SQLite's temporary folder ($SQLITE_TMPDIR, "
            "else $TMPDIR, else /var/tmp or /tmp), then run again"
        )
    if "locked" in low or "busy" in low:
        return DatabaseLocked(
            f"{where} stayed locked by another connection past the busy timeout ({msg}); "
            "try again later or raise --busy-timeout"
        )
    if "readonly" in low or "read-only" in low:
        return ReadOnlyDatabase(f"{where} can't be written ({msg})")
    if "malformed" in low or "corrupt" in low:
        return DamagedDatabase(
            f"{where} is damaged ({msg}): the file was cut short or overwritten. Work on a "
            "backup copy, or rescue what is readable with: sqlite3 DAMAGED.sqlite .recover | "
            "sqlite3 RESCUED.sqlite"
        )
    if "not a database" in low or "file is encrypted" in low:
        return NotADatabase(f"{where} is not an SQLite database ({msg})")
    return WebdedupError(f"SQLite error on {where}: {msg}")


@contextmanager
def transaction(conn: sqlite3.Connection, *, immediate: bool = True) -> Iterator[None]:
    """``BEGIN [IMMEDIATE] ... COMMIT``, rolled back on any exception.

    sqlite3 errors raised inside are translated to webdedup's exceptions.
    """
    try:
        conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    except sqlite3.Error as exc:
        raise translate(exc) from exc
    try:
        yield
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise translate(exc) from exc
        raise
    else:
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise translate(exc) from exc
