"""The hand-off from SQLite to Parquet: a database's pages as Parquet files (``export --parquet``).

One row a page: ``id`` (the rowid), ``url``, ``content``, ``html``, ``datetime``, ``crawled``,
``category``, ``lang`` (the crawler's own language column, else NULL) — webdedup's names,
whatever the crawler calls its columns, so ``webdedup daft`` reads them without a mapping —
and the reviewers' verdicts (``store.verdicts``) on the pages they name:

- ``canonical_rank``: the page was chosen as its group's canonical; 0 is the latest choice
  (:func:`~webdedup.store.verdicts.pin_ranks`), NULL for the other pages;
- ``not_duplicate_of``: the pages a reviewer said this page is not a duplicate of
  (:func:`~webdedup.store.verdicts.cannot_links`, listed on both pages), NULL when none.

Works before any ``webdedup db`` run; the database is only read.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..algorithms.timestamps import parse_timestamp
from ..config import Columns
from ..errors import InputError, WebdedupError
from ..store import connect, translate
from ..store.layout import Layout
from ..store.pages import as_text
from ..store.state import stored_columns
from ..store.verdicts import cannot_links, pin_ranks, read_verdicts

#: Rows per Parquet file.
ROWS_PER_FILE = 50_000
#: Bytes of page cells (texts, HTML, URLs) read from SQLite and written as one row group: a
#: file is written a row group at a time, so the export's memory follows this, not the pages'
#: lengths (50,000 rows at a time held 1,070 MiB for short pages, and would hold gigabytes of
#: whole HTML pages).
ROW_GROUP_BYTES = 16 * 2**20
#: The page columns written, in order (then :data:`VERDICT_COLUMNS`).
PARQUET_COLUMNS = ("id", "url", "content", "html", "datetime", "crawled", "category", "lang")
#: The reviewers' verdicts, as columns of the pages they name.
VERDICT_COLUMNS = ("canonical_rank", "not_duplicate_of")


@dataclass(frozen=True)
class ParquetExport:
    directory: str
    pages: int
    files: int

    def lines(self) -> list[str]:
        return [f"wrote {self.pages:,} pages into {self.files} Parquet file(s) in {self.directory}"]


def export_parquet(
    db: str | Path,
    directory: str | Path,
    columns: Columns | None = None,
    *,
    busy_timeout: float = 5.0,
    rows_per_file: int = ROWS_PER_FILE,
    group_bytes: int = ROW_GROUP_BYTES,
) -> ParquetExport:
    """Write the pages of ``db`` into ``directory`` as ``part-00000.parquet``...

    ``columns``: the table and column mapping (default: the last run's, else webdedup's
    defaults). ``directory`` must not hold Parquet files already. Each file of
    ``rows_per_file`` rows is written in row groups of about ``group_bytes`` bytes of cells
    (at least one row each).
    """
    import pyarrow as pa

    out = Path(directory)
    if out.exists() and (not out.is_dir() or any(out.glob("*.parquet"))):
        raise InputError(
            f"{out} already holds Parquet files (or is a file); give a new directory"
        )
    parts = _Parts(out, schema_of(pa))
    conn = connect(db, busy_timeout=busy_timeout, write=False)
    try:
        if columns is None or columns == Columns():
            stored = stored_columns(conn)
            columns = Columns.from_mapping(stored) if stored else Columns()
        layout = Layout.resolve(conn, columns, str(db))
        out.mkdir(parents=True, exist_ok=True)
        cursor = conn.execute("BEGIN")  # one snapshot for every file
        verdicts = read_verdicts(conn)
        pins = pin_ranks(verdicts)
        apart: dict[int, list[int]] = {}
        for a, b in sorted(cannot_links(verdicts)):
            apart.setdefault(a, []).append(b)
            apart.setdefault(b, []).append(a)
        conn.text_factory = bytes  # cells as read: whole columns checked and decoded by Arrow
        cursor = conn.execute(layout.select_pages() + " ORDER BY 1")
        pages = 0
        in_file = 0  # rows in the file being written
        while rows := _row_group(cursor, rows_per_file - in_file, group_bytes):
            cells = list(zip(*rows, strict=True))  # a column at a time
            data: dict[str, Any] = {"id": pa.array(cells[0], pa.int64())}
            for name, column in zip(PARQUET_COLUMNS[1:], cells[1:], strict=True):
                when = name in ("datetime", "crawled")
                data[name] = _string_column(column, _when if when else _text)
            data["canonical_rank"] = [pins.get(i) for i in cells[0]]
            data["not_duplicate_of"] = [apart.get(i) for i in cells[0]]
            del cells
            pages += len(rows)
            in_file += len(rows)
            # (written while the next group is read: one group's rows held here at a time)
            parts.put(pa.table(data, schema=parts.schema), last=in_file >= rows_per_file)
            del rows, data
            if in_file >= rows_per_file:
                in_file = 0
        files = parts.finish()
        conn.execute("COMMIT")
        return ParquetExport(str(out), pages, files)
    except WebdedupError:
        raise
    except sqlite3.Error as exc:
        raise translate(exc, str(db)) from exc
    finally:
        parts.close()  # stopped halfway: no file of some of its rows is left
        conn.close()


def schema_of(pa: Any) -> Any:
    """The files' Arrow schema: :data:`PARQUET_COLUMNS` and :data:`VERDICT_COLUMNS`."""
    return pa.schema(
        [("id", pa.int64())]
        + [(name, pa.string()) for name in PARQUET_COLUMNS[1:]]
        + [("canonical_rank", pa.int64()), ("not_duplicate_of", pa.list_(pa.int64()))]
    )


class _Parts:
    """The part files, ``part-00000.parquet``..., written a row group at a time in a thread
    of their own: Arrow encodes and compresses a group without holding the GIL while the
    next group is read from SQLite and made into columns (the two were each about half of an
    export's time, one after the other). At most one group waits to be written."""

    def __init__(self, out: Path, schema: Any) -> None:
        import pyarrow.parquet as pq  # (here: a missing module fails before any reading)

        self._pq = pq
        self.out, self.schema = out, schema
        self.files = 0
        self._writer: Any = None  # the ParquetWriter of the file being written, if any
        self._writing = out
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="webdedup-parquet")
        self._pending: Future[None] | None = None

    def put(self, table: Any, *, last: bool) -> None:
        """Write ``table`` as the next row group (``last``: of its file), once the group
        before it is written (its error, if any, raised here)."""
        self._wait()
        self._pending = self._pool.submit(self._write, table, last)

    def finish(self) -> int:
        """Every group written and the last file closed; the number of files."""
        self._wait()
        if self._writer is not None:
            self._end_file()
        return self.files

    def close(self) -> None:
        """Stop the thread; a file left half written (an export stopped halfway) is removed
        (the error that stopped the export is the one raised)."""
        with contextlib.suppress(Exception):
            self._wait()
        self._pool.shutdown(wait=True)
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
            self._writer = None
            self._writing.unlink(missing_ok=True)

    def _wait(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def _write(self, table: Any, last: bool) -> None:  # (in the thread)
        if self._writer is None:
            self._writing = self.out / f"part-{self.files:05d}.parquet"
            self._writer = self._pq.ParquetWriter(self._writing, self.schema)
        self._writer.write_table(table)  # one row group
        if last:
            self._end_file()

    def _end_file(self) -> None:
        self._writer.close()
        self._writer = None
        self.files += 1


def _row_group(cursor: sqlite3.Cursor, most: int, size: int) -> list[tuple[Any, ...]]:
    """The next rows of ``cursor``: at most ``most``, and no more once their cells hold
    ``size`` bytes (one row at least, however large)."""
    rows: list[tuple[Any, ...]] = []
    held = 0
    while len(rows) < most and held < size:
        row = cursor.fetchone()
        if row is None:
            break
        rows.append(row)
        held += sum(len(v) for v in row if isinstance(v, (str, bytes)))
    return rows


def _string_column(cells: Sequence[object], as_str: Callable[[object], str | None]) -> Any:
    """A column of cells read as bytes, as an Arrow string array: a column of well-formed
    UTF-8 (and NULLs) is checked and taken by Arrow as it is (no Python ``str`` a cell: a
    little less memory and time); any other is made a cell at a time by ``as_str``
    (:func:`_text` or :func:`_when`)."""
    import pyarrow as pa

    if all(c is None or isinstance(c, bytes) for c in cells) and as_str is _text:
        try:
            return pa.array(cells, pa.binary()).cast(pa.string())
        except pa.ArrowInvalid:  # not well-formed UTF-8 somewhere: decoded leniently
            pass
    return pa.array([as_str(c) for c in cells], pa.string())


def _when(value: object) -> str | None:
    """A date cell as text that parses to the same time as the cell itself (a number such as
    20240101120000 reads differently as a number and as text)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = parse_timestamp(value)
        if seconds is None:
            return None
        text = repr(seconds)
        return text if parse_timestamp(text) == seconds else str(value)
    return _text(value)


def _text(value: object) -> str | None:
    """A cell as text: BLOBs decoded (as reads do), numbers as SQLite prints them."""
    value = as_text(value)
    if value is None or isinstance(value, str):
        return value
    return str(value)
