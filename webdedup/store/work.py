"""Bulk rows of a run's TEMP work tables: sketches."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

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
