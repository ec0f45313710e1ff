"""The SQLite store: connections, transactions, SQL files, migrations and table inspection.

Every identifier that comes from an option goes through :func:`quote`; every value is a bound
``?`` parameter. SQL lives in ``.sql`` files of the top-level ``sql/`` folder (shipped in the
wheel as ``webdedup/sql``) and is loaded by name with :func:`sql`.

Example::

    >>> conn = connect(":memory:", must_exist=False)
    >>> quote('we"ird')
    '"we""ird"'
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path

from .errors import (
    DatabaseLocked,
    NotADatabase,
    ReadOnlyDatabase,
    SchemaTooNew,
    WebdedupError,
)

SQLITE_HEADER = b"SQLite format 3\x00"
MIN_SQLITE = (3, 33, 0)  # window functions and UPDATE ... FROM


def quote(identifier: str) -> str:
    """Quote an SQL identifier (table or column name) for SQLite."""
    if not isinstance(identifier, str) or not identifier or "\x00" in identifier:
        raise ValueError(f"invalid SQL identifier: {identifier!r}")
    return '"' + identifier.replace('"', '""') + '"'


@cache
def _sql_text(name: str) -> str:
    folder, _, leaf = name.rpartition("/")
    package = "webdedup.sql" + ("." + folder.replace("/", ".") if folder else "")
    return resources.files(package).joinpath(leaf + ".sql").read_text(encoding="utf-8")


def sql(name: str, **identifiers: str) -> str:
    """The text of ``sql/<name>.sql`` with ``{placeholders}`` replaced.

    Placeholders are only ever filled with quoted identifiers or fragments built from fixed
    vocabularies (the election order), never with user values.
    """
    text = _sql_text(name)
    for key, value in identifiers.items():
        text = text.replace("{" + key + "}", value)
    left = re.findall(r"\{[a-z_]+\}", text)
    if left:
        raise ValueError(f"sql/{name}.sql: placeholders not filled: {', '.join(left)}")
    return text


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
    :func:`transaction`), uses WAL journaling and waits up to ``busy_timeout`` seconds for
    locks. Raises :class:`NotADatabase` for a missing or non-SQLite file and
    :class:`ReadOnlyDatabase` when ``write`` is asked of a file that can't be written.
    """
    _check_sqlite_version()
    if isinstance(db, sqlite3.Connection):
        conn = db
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
        if write and name != ":memory:":
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":  # pragma: no cover - e.g. a database on a network fs
                conn.execute("PRAGMA journal_mode = DELETE")
    except sqlite3.DatabaseError as exc:
        raise translate(exc, name) from exc
    # Crawlers do store invalid UTF-8 in TEXT columns; decode it with replacement characters
    # instead of failing the whole run on one row.
    conn.text_factory = decode_text
    conn.execute("PRAGMA temp_store = FILE")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB page cache
    return conn


def decode_text(data: bytes) -> str:
    """SQLite TEXT as str, with replacement characters for invalid UTF-8."""
    return data.decode("utf-8", "replace")


@contextmanager
def lenient_text(conn: sqlite3.Connection) -> Iterator[None]:
    """Decode invalid UTF-8 leniently on a connection for a while (for adopted connections;
    :func:`connect` already sets it on the connections it opens), then restore its factory."""
    old = conn.text_factory
    conn.text_factory = decode_text
    try:
        yield
    finally:
        conn.text_factory = old


def translate(exc: sqlite3.Error, where: str = "the database") -> WebdedupError:
    """Turn an sqlite3 error into webdedup's own exception with advice."""
    msg = str(exc)
    low = msg.lower()
    if "locked" in low or "busy" in low:
        return DatabaseLocked(
            f"{where} stayed locked by another connection past the busy timeout ({msg}); "
            "try again later or raise --busy-timeout"
        )
    if "readonly" in low or "read-only" in low:
        return ReadOnlyDatabase(f"{where} can't be written ({msg})")
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


# -- inspection -----------------------------------------------------------------------------
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


# -- migrations -----------------------------------------------------------------------------
def _migrations() -> list[tuple[int, str]]:
    folder = resources.files("webdedup.sql.migrations")
    found = []
    for entry in folder.iterdir():
        m = re.match(r"^(\d{4})_[a-z0-9_]+\.sql$", entry.name)
        if m:
            found.append((int(m.group(1)), entry.name[:-4]))
    return sorted(found)


def latest_schema_version() -> int:
    return _migrations()[-1][0]


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version of webdedup's state in this database (0 when it has none)."""
    if not table_exists(conn, "_webdedup_meta"):
        return 0
    row = conn.execute("SELECT value FROM _webdedup_meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def check_schema(conn: sqlite3.Connection) -> int:
    """Refuse a database whose state was written by a newer webdedup."""
    found, known = schema_version(conn), latest_schema_version()
    if found > known:
        raise SchemaTooNew(
            f"this database's webdedup state has schema version {found}, newer than this "
            f"webdedup understands ({known}); upgrade webdedup to use it"
        )
    return found


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the pending migrations. Call inside a write transaction; returns the new version."""
    current = check_schema(conn)
    for version, name in _migrations():
        if version > current:
            for statement in split_statements(sql("migrations/" + name)):
                conn.execute(statement)
            conn.execute(
                "INSERT OR REPLACE INTO _webdedup_meta(key, value) VALUES ('schema_version', ?)",
                (str(version),),
            )
            current = version
    return current


def split_statements(script: str) -> list[str]:
    """Split an SQL script into complete statements (uses SQLite's own completeness test)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            stmt = buf.strip()
            if stmt and not all(
                ln.strip().startswith("--") or not ln.strip() for ln in stmt.splitlines()
            ):
                out.append(stmt)
            buf = ""
    if buf.strip() and not all(
        ln.strip().startswith("--") or not ln.strip() for ln in buf.splitlines()
    ):
        out.append(buf.strip())
    return out


def run_script(
    conn: sqlite3.Connection,
    name: str,
    params: dict[str, object] | None = None,
    **identifiers: str,
) -> None:
    """Run every statement of ``sql/<name>.sql`` (without ``executescript``'s implicit COMMIT).

    ``params`` are bound by name (``:name``) in every statement that uses them.
    """
    for statement in split_statements(sql(name, **identifiers)):
        conn.execute(statement, params or {})
