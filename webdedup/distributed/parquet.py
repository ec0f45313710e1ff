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

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..algorithms.timestamps import parse_timestamp
from ..config import Columns
from ..errors import InputError, WebdedupError
from ..store import connect, translate
from ..store.layout import Layout
from ..store.pages import as_text
from ..store.state import stored_columns
from ..store.verdicts import cannot_links, pin_ranks, read_verdicts

#: Rows per Parquet file (and per read from SQLite).
ROWS_PER_FILE = 50_000
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
) -> ParquetExport:
    """Write the pages of ``db`` into ``directory`` as ``part-00000.parquet``...

    ``columns``: the table and column mapping (default: the last run's, else webdedup's
    defaults). ``directory`` must not hold Parquet files already.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(directory)
    if out.exists() and (not out.is_dir() or any(out.glob("*.parquet"))):
        raise InputError(
            f"{out} already holds Parquet files (or is a file); give a new directory"
        )
    conn = connect(db, busy_timeout=busy_timeout, write=False)
    try:
        if columns is None or columns == Columns():
            stored = stored_columns(conn)
            columns = Columns.from_mapping(stored) if stored else Columns()
        layout = Layout.resolve(conn, columns, str(db))
        schema = pa.schema(
            [("id", pa.int64())]
            + [(name, pa.string()) for name in PARQUET_COLUMNS[1:]]
            + [("canonical_rank", pa.int64()), ("not_duplicate_of", pa.list_(pa.int64()))]
        )
        out.mkdir(parents=True, exist_ok=True)
        cursor = conn.execute("BEGIN")  # one snapshot for every file
        verdicts = read_verdicts(conn)
        pins = pin_ranks(verdicts)
        apart: dict[int, list[int]] = {}
        for a, b in sorted(cannot_links(verdicts)):
            apart.setdefault(a, []).append(b)
            apart.setdefault(b, []).append(a)
        cursor = conn.execute(layout.select_pages() + " ORDER BY 1")
        pages = files = 0
        while rows := cursor.fetchmany(rows_per_file):
            data = {name: [] for name in schema.names}  # type: dict[str, list[object]]
            for row in rows:
                for name, value in zip(PARQUET_COLUMNS, row, strict=True):
                    if name in ("datetime", "crawled"):
                        data[name].append(_when(value))
                    else:
                        data[name].append(value if name == "id" else _text(value))
                data["canonical_rank"].append(pins.get(row[0]))
                data["not_duplicate_of"].append(apart.get(row[0]))
            pq.write_table(
                pa.table(data, schema=schema), out / f"part-{files:05d}.parquet"
            )
            pages += len(rows)
            files += 1
        conn.execute("COMMIT")
        return ParquetExport(str(out), pages, files)
    except WebdedupError:
        raise
    except sqlite3.Error as exc:
        raise translate(exc, str(db)) from exc
    finally:
        conn.close()


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
