"""Connections to a crawl database: opening (or adopting) one, transactions, error translation.

Every connection webdedup opens is in autocommit mode (transactions are explicit, see
:func:`transaction`), waits ``busy_timeout`` seconds for locks, and decodes invalid UTF-8 in
TEXT cells with replacement characters (:func:`decode_text`) instead of failing a run.

Only SQLite opens a database file, its ``-wal`` and its ``-shm``: on POSIX, closing any
descriptor of a file drops every lock the process holds on it, those of a crawler's own
connection in the same process included (SQLite's "How To Corrupt An SQLite Database File",
2.2), and another process would then checkpoint and delete the WAL under that connection.
Checks of a path use ``stat``/``access`` only, and a refused file is refused by SQLite.

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
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import (
    DamagedDatabase,
    DatabaseLocked,
    DiskFull,
    InputError,
    NotADatabase,
    ReadOnlyDatabase,
    WebdedupError,
)

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


def _read_only(path: Path) -> ReadOnlyDatabase:
    return ReadOnlyDatabase(
        f"{path} is read-only (or its folder is, and SQLite needs to write the WAL "
        "beside it); make it writable, or copy it somewhere writable"
    )


def _cannot_open(exc: sqlite3.DatabaseError) -> bool:
    """SQLite could not open the file, or (SQLITE_READONLY_DIRECTORY) could not create the
    ``-shm`` a WAL database needs beside it, in a folder it may not write."""
    return "unable to open" in str(exc).lower() or getattr(exc, "sqlite_errorcode", 0) == 1546


def _refused(exc: sqlite3.DatabaseError, name: str) -> WebdedupError:
    if "not a database" in str(exc).lower():
        return NotADatabase(f"{name} is not an SQLite database (SQLite: {exc})")
    return translate(exc, name)


def _read_only_mount(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _open_in_read_only_folder(
    path: Path, busy_timeout: float, threads: bool = False
) -> sqlite3.Connection:
    """A read-only connection to a WAL database in a folder SQLite can't write.

    Reading a WAL database needs its ``-shm`` file. Where it exists, SQLite reads the
    database read-only (``mode=ro``). Where it doesn't and the folder is on a read-only file
    system with no ``-wal`` beside the file, nothing can write the database, so it is read as
    an immutable file. Otherwise the advice is to copy it.
    """
    uri = "file:" + quote_uri(str(path.resolve()))
    tries = [uri + "?mode=ro"]
    wal = Path(str(path) + "-wal")
    if _read_only_mount(path.resolve().parent) and not wal.exists():
        tries.append(uri + "?mode=ro&immutable=1")
    for target in tries:
        conn = sqlite3.connect(
            target, uri=True, timeout=busy_timeout, isolation_level=None,
            check_same_thread=not threads,
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
            return conn
        except sqlite3.DatabaseError as exc:
            conn.close()
            if not _cannot_open(exc):
                raise _refused(exc, str(path)) from exc
    raise ReadOnlyDatabase(
        f"{path} is a WAL database in a folder that can't be written, and SQLite needs to "
        f"create {path.name}-shm beside it even to read it; copy the database (with its -wal "
        "file, if any) to a writable folder, or make the folder writable"
    )


def quote_uri(path: str) -> str:
    """A file path as the path part of an SQLite ``file:`` URI.

    >>> quote_uri("/tmp/a b?#%.sqlite")
    '/tmp/a%20b%3F%23%25.sqlite'
    """
    from urllib.parse import quote as url_quote

    return url_quote(path, safe="/")


def connect(
    db: str | Path | sqlite3.Connection,
    *,
    busy_timeout: float = 5.0,
    must_exist: bool = True,
    write: bool = True,
    threads: bool = False,
) -> sqlite3.Connection:
    """Open a crawl database (or adopt an open connection) ready for webdedup.

    The connection is in autocommit mode (transactions are explicit, see
    :func:`transaction`) and waits up to ``busy_timeout`` seconds for locks (the busy handler
    is in force before its first statement). It changes nothing in the file: call
    :func:`use_wal` once the command is going to write. Raises :class:`NotADatabase` for a
    missing or non-SQLite file and :class:`ReadOnlyDatabase` when ``write`` is asked of a
    file that can't be written. ``threads``: the connection may be used from other threads
    (one at a time; the review app's server).
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
    path = Path(name)
    if name != ":memory:":
        if not path.exists():
            if must_exist:
                raise NotADatabase(f"{path}: no such file (give the path of a crawl database)")
        elif path.is_dir():
            raise NotADatabase(f"{path} is a folder, not an SQLite database file")
    # Only SQLite opens the file (and its -wal/-shm): closing a descriptor of our own would
    # drop every POSIX lock this process holds on it, a crawler's connection's in this same
    # process included, and another process would then delete the WAL under that connection.
    # So the header is checked by SQLite reading it, and the read-only checks look at modes.
    try:
        conn = sqlite3.connect(
            name, timeout=busy_timeout, isolation_level=None, check_same_thread=not threads
        )
    except sqlite3.DatabaseError as exc:
        raise translate(exc, name) from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    except sqlite3.DatabaseError as exc:
        conn.close()
        if name == ":memory:" or not _cannot_open(exc) or not path.exists():
            raise _refused(exc, name) from exc
        if write:
            raise _read_only(path) from exc
        conn = _open_in_read_only_folder(path, busy_timeout, threads)
    if name != ":memory:" and write and path.exists() and _is_read_only(path):
        conn.close()
        raise _read_only(path)
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


def data_version(conn: sqlite3.Connection) -> int:
    """Changes when another connection commits to the database (SQLite's data_version)."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


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


def database_file_ids(conn: sqlite3.Connection) -> set[tuple[int, int]]:
    """``(device, inode)`` of the connection's main database file and its -wal/-shm (by
    ``stat``, which opens no descriptor); empty for an in-memory database."""
    row = conn.execute("PRAGMA database_list").fetchone()
    name = str(row[2]) if row and row[2] else ""
    ids: set[tuple[int, int]] = set()
    if name:
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                st = os.stat(name + suffix)
            except OSError:
                continue
            ids.add((st.st_dev, st.st_ino))
    return ids


def refuse_database_paths(
    conn: sqlite3.Connection, paths: Iterable[str | Path], what: str
) -> None:
    """Raise :class:`InputError` when one of ``paths`` is the database (or its -wal/-shm):
    reading it as an input, or writing an export over it, would open it outside SQLite
    (dropping this process's locks on it) or replace it."""
    ids = database_file_ids(conn)
    if not ids:
        return
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in ids:
            raise InputError(
                f"{p} is the database itself (or its -wal/-shm); give {what} another path"
            )
