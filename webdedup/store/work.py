"""Bulk rows of a run's TEMP work tables: sketches and their LSH band keys."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from .sqlfiles import quote

#: A sketch as phase 1 makes it: the stored BLOB and its band keys.
Sketch = tuple[bytes, list[int]]


def store_sketches(
    conn: sqlite3.Connection, scheme: str, ids: Sequence[int], sketches: Sequence[Sketch]
) -> None:
    """Insert sketches into ``temp.run_sketches`` and their LSH band keys into
    ``temp.run_bands_queue`` (in arrival order; :func:`flush_bands` sorts them into
    ``run_bands`` at once: measured 2x faster than inserting each into the B-tree)."""
    conn.executemany(
        "INSERT INTO temp.run_sketches (id, scheme, sketch) VALUES (?, ?, ?)",
        [(pid, scheme, blob) for pid, (blob, _) in zip(ids, sketches, strict=True)],
    )
    store_bands(conn, "run_bands_queue", ids, [keys for _, keys in sketches])


def flush_bands(conn: sqlite3.Connection) -> None:
    """Move the queued band rows into the ``(band_key, id)`` B-tree ``temp.run_bands``."""
    conn.execute(
        "INSERT OR IGNORE INTO temp.run_bands (band_key, id) "
        "SELECT band_key, id FROM temp.run_bands_queue ORDER BY band_key, id"
    )
    conn.execute("DELETE FROM temp.run_bands_queue")


def store_bands(
    conn: sqlite3.Connection, table: str, ids: Sequence[int], keys: Sequence[list[int]]
) -> None:
    """Insert ``(band_key, id)`` rows into a TEMP table (one JSON array a page: measured
    twice as fast as a row-by-row executemany)."""
    conn.executemany(
        f"INSERT OR IGNORE INTO temp.{quote(table)} (band_key, id) "
        "SELECT value, ? FROM json_each(?)",
        [(pid, json.dumps(k)) for pid, k in zip(ids, keys, strict=True)],
    )
