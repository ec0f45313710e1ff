"""Bulk rows of sketches: a run's TEMP work table, and the stored sketches read in bulk."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np

from .sqlfiles import sql

#: A sketch as phase 1 makes it: the stored BLOB and its band keys.
Sketch = tuple[bytes, list[int]]


def store_sketches(
    conn: sqlite3.Connection, scheme: str, ids: Sequence[int], sketches: Sequence[Sketch]
) -> None:
    """Insert sketches into ``temp.run_sketches`` (their band keys are read back from the
    blobs when phase 4 needs them: :func:`~webdedup.algorithms.sketch.band_matrix`)."""
    conn.executemany(
        "INSERT INTO temp.run_sketches (id, scheme, sketch) VALUES (?, ?, ?)",
        [(pid, scheme, blob) for pid, (blob, _) in zip(ids, sketches, strict=True)],
    )


#: Rows a packed read takes at a time (:func:`packed_sketches`; 100,000 minhash sketches
#: of 37 bands are 15 MB) ...
PACKED_ROWS = 100_000
#: ... and at most this many bytes of packed text (wide sketches: fewer rows; SQLite's
#: strings end at a billion bytes).
PACKED_BYTES = 32 * 2**20
LAST_ID = 2**63 - 1  # the largest rowid


class PackedSketches(NamedTuple):
    """Sketches of equal size, end to end, with their ids (ascending) and other columns."""

    ids: np.ndarray  # int64
    columns: list[np.ndarray]  # int64, one array for each further column of the query
    packed: bytes  # the sketches in the order of ``ids``, ``width`` bytes each
    width: int


def packed_sketches(
    conn: sqlite3.Connection,
    name: str,
    width: int,
    rows: int = PACKED_ROWS,
    lo: int = -LAST_ID - 1,
    hi: int = LAST_ID,
) -> Iterator[PackedSketches]:
    """Read sketches of ``width`` bytes each with ``sql/<name>.sql``, ids ``lo`` to ``hi``,
    ``rows`` at a time in id order (fewer if that would pass :data:`PACKED_BYTES`), packed by SQLite
    (``group_concat``) into one row: a million rows read one by one cost a Python tuple each
    (about twice the time).

    The query takes ``:lo``, ``:hi``, ``:rows`` and ``:width`` and gives ``count(*)``, how many
    sketches are not ``:width`` bytes long (one aggregate: with a shortest and a longest,
    two, reading a million stored sketches took 0.73 s, 0.67 s so), the largest id,
    ``group_concat({sketch}, '')``, ``group_concat(id)`` and any further integer columns as
    ``group_concat``. The sketches come back in id order.
    ``group_concat`` makes text of the BLOBs: in a database whose text is UTF-16 that would
    recode them, so there they travel as hex.
    """
    utf8 = str(conn.execute("PRAGMA encoding").fetchone()[0]).upper() == "UTF-8"
    query = sql(name, sketch="sketch" if utf8 else "hex(sketch)")
    rows = max(1, min(rows, PACKED_BYTES // (width * (1 if utf8 else 2))))
    while True:
        old = conn.text_factory
        conn.text_factory = bytes  # the packed sketches are not text (only for this query)
        try:
            count, other_widths, last, packed, *lists = conn.execute(
                query, {"lo": lo, "hi": hi, "rows": rows, "width": width}
            ).fetchone()
        finally:
            conn.text_factory = old
        if not count:
            return
        if other_widths:
            raise ValueError(
                f"a stored sketch is not {width} bytes: the state is from another version "
                "or configuration; run a full pass (webdedup db --full)"
            )
        if not utf8:
            packed = bytes.fromhex(packed.decode("ascii"))
        arrays = [np.fromstring(v, dtype=np.int64, sep=",") for v in lists]
        if len(packed) != count * width or any(len(a) != count for a in arrays):
            raise ValueError(f"sql/{name}.sql: the packed columns do not hold {count} rows")
        ids, columns, packed = _in_id_order(arrays[0], arrays[1:], packed, width)
        yield PackedSketches(ids, columns, packed, width)
        if count < rows or last >= hi:
            return
        lo = int(last) + 1


def _in_id_order(
    ids: np.ndarray, columns: list[np.ndarray], packed: bytes, width: int
) -> tuple[np.ndarray, list[np.ndarray], bytes]:
    """Rows sorted by id: SQLite gives no order to an aggregate's rows (in practice it is
    the id order of the range scan, and nothing is moved)."""
    if len(ids) < 2 or bool((ids[1:] > ids[:-1]).all()):
        return ids, columns, packed
    order = np.argsort(ids, kind="stable")
    rows = np.frombuffer(packed, np.uint8).reshape(len(ids), width)
    return ids[order], [c[order] for c in columns], rows[order].tobytes()
