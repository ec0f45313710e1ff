"""Worker processes that read the crawl in the run's own read snapshot.

A run reads ``pages`` inside one read transaction (phases 1-4). Its worker processes can
read the pages they work on themselves, instead of the main process reading every text and
handing it over a pipe (at a million pages the main process spent more time reading,
pickling and sending the texts than the workers spent preparing them), provided they read
what the run reads: the same snapshot.

SQLite's Python module has no way to open a snapshot another connection holds, so the run
proves it instead: a :class:`CommitWatch` (a connection of its own) reads ``PRAGMA
data_version`` before the run's read transaction starts; each worker opens a read-only
connection and starts its read transaction when it starts (:func:`open_reader`); once every
worker has, the watch reads ``data_version`` again. Unchanged means no connection committed
anything in between, so every worker's snapshot is the run's. Changed (a crawler committed
meanwhile), the run lets its workers go and its main process reads the pages, as it does
for small runs.

Only SQLite opens the database file: the watch and the workers' connections are SQLite
connections (read-only, ``mode=ro``), and a worker's are closed in that worker process only,
whose locks are its own.

Example::

    >>> import sqlite3
    >>> database_file(sqlite3.connect(":memory:")) is None
    True
"""

from __future__ import annotations

import mmap
import sqlite3
import time
from contextlib import suppress
from multiprocessing.sharedctypes import SynchronizedArray
from pathlib import Path
from urllib.parse import quote as quote_uri

#: The worker process's connection, in its read transaction (:func:`open_reader`).
_reader: sqlite3.Connection | None = None
#: The bytes of the database file a worker's connection maps into memory (``PRAGMA
#: mmap_size``; SQLite caps it at its compile-time limit, ``SQLITE_MAX_MMAP_SIZE``, and a
#: build without memory-mapped I/O ignores it): it reads the database's pages where they
#: lie in the page cache, without a ``read`` system call a page (a text of several pages
#: took one each); the WAL's pages are still read with ``read``. Only SQLite maps the file,
#: and a checkpoint never moves or truncates pages a reader's snapshot still reads; an I/O
#: error of the disk under the map ends the worker (a signal, not an error SQLite could
#: report): ``--workers 1`` reads without readers, and so without a map. The map is
#: dropped after each job (:func:`unmap`), and within a staging job once it read about
#: :data:`MAP_BYTES` through it or its resident pages of mapped files grew by as much
#: (:func:`read_through`).
READER_MAP = 2**40
#: Bytes of cells a reader reads through its map, or of its resident pages of mapped files
#: grown meanwhile, before it drops the map (:func:`read_through`): about the resident
#: pages of the file a staging job holds at most, plus what its last look-up brought.
MAP_BYTES = 32 << 20
_mapped = 0  # bytes read through the map since it was last dropped (:func:`read_through`)
_resident_after = 0  # the process's resident pages of files just after the map was dropped
_PAGE = mmap.PAGESIZE


def _resident_files() -> int | None:
    """Bytes of this process's resident pages of mapped files and shared memory
    (``/proc/self/statm``'s shared pages), or None where there is no such file (not
    Linux)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[2]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def database_file(conn: sqlite3.Connection) -> str | None:
    """The file of ``conn``'s main database, or None (in memory, a temporary database)."""
    for _seq, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return file or None
    return None


def _read_only(path: str, busy_timeout: float) -> sqlite3.Connection:
    uri = "file:" + quote_uri(str(Path(path).resolve())) + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=busy_timeout, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    return conn


class CommitWatch:
    """Tells whether any connection committed to a database file since the watch began.

    >>> import sqlite3, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "crawl.sqlite")
    >>> writer = sqlite3.connect(path, isolation_level=None)
    >>> _ = writer.execute("CREATE TABLE pages (url TEXT)")
    >>> watch = CommitWatch(path)
    >>> watch.unchanged()
    True
    >>> _ = writer.execute("INSERT INTO pages VALUES ('https://a.example/')")
    >>> watch.unchanged()
    False
    >>> watch.close()
    """

    def __init__(self, path: str, busy_timeout: float = 5.0) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._conn = _read_only(path, busy_timeout)
        self._first = self._version()

    def _version(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def unchanged(self) -> bool:
        """Whether no other connection has committed since the watch began."""
        return self._version() == self._first

    def close(self) -> None:
        self._conn.close()


def open_reader(path: str, busy_timeout: float, started: SynchronizedArray) -> None:
    """In a worker process: open ``path`` read-only and start the read transaction every
    :func:`reader` call then reads in, then count this worker in ``started`` (``[0]``: it
    has, ``[1]``: it could not; never an exception: the run then reads in its main
    process). Texts are read as their bytes (``text_factory = bytes``), as the main process
    reads those it hands on."""
    global _reader
    try:
        conn = _read_only(path, busy_timeout)
        conn.text_factory = bytes
        conn.execute(f"PRAGMA mmap_size = {READER_MAP}")
        conn.execute("BEGIN")
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()  # the snapshot starts
        _reader = conn
        unmap()  # (its counts start here, not where the process that forked it left them)
        done = 0
    except sqlite3.Error:
        done = 1
    with started.get_lock():
        started[done] += 1


def reader() -> sqlite3.Connection:
    """This worker's connection, in the run's snapshot (after :func:`open_reader`)."""
    if _reader is None:
        raise RuntimeError("this process has no reader connection (open_reader was not run)")
    return _reader


def unmap() -> None:
    """Drop the worker's map of the database file (mapped again, by SQLite, at its next
    read): the pages it read through the map count in the process's resident memory
    while they are mapped (the page cache's own pages, not memory of the process), and a
    reader reads most of the crawl over a run. Between two statements: while one still
    holds pages of the map (a job that failed reading), SQLite leaves the map as it is.
    Best effort: an error here is not the job's."""
    global _mapped, _resident_after
    _mapped = 0
    if _reader is not None:
        with suppress(sqlite3.Error):
            _reader.execute("PRAGMA mmap_size = 0")
            _reader.execute(f"PRAGMA mmap_size = {READER_MAP}")
    _resident_after = _resident_files() or 0


def read_through(nbytes: int) -> None:
    """Count ``nbytes`` more of cells read through the worker's map, between two statements
    (none reading): the map is dropped once they pass :data:`MAP_BYTES` (a job that reads
    a slice of pages larger than that), or once the process's resident pages of mapped
    files grew by that much since it was last dropped, where Linux tells them (a page
    read through the map brings its neighbours in the page cache into the process's
    resident memory with it: for pages read here and there, many times their bytes)."""
    global _mapped
    _mapped += nbytes
    if _mapped >= MAP_BYTES:
        unmap()
        return
    resident = _resident_files()
    if resident is not None and resident - _resident_after >= MAP_BYTES:
        unmap()


def wait_started(started: SynchronizedArray, workers: int, timeout: float) -> bool:
    """Wait until ``workers`` workers counted themselves in ``started`` (:func:`open_reader`);
    whether each of them opened its reader (False too after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while started[0] + started[1] < workers:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return started[1] == 0
