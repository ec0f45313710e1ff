"""The normalizer's table kept on disk between runs.

:func:`~webdedup.algorithms.text.build_char_table` takes 0.3-0.6 s a process: a third of
the fixed cost of a nightly run (measured at a million pages) and a few per cent of a small
one. :func:`load_char_table` loads the copy an earlier run stored (a few milliseconds), or
builds it and stores it. Beside numba's cached kernels (the ``__pycache__`` folder of
``webdedup/algorithms``) when that folder is writable, else in the user's cache folder
(``$XDG_CACHE_HOME/webdedup``, ``~/.cache/webdedup``), else nowhere: the table is then
built each run, as before.

A stored table is used only when its file name holds the key of what the table is made
from (:func:`~webdedup.algorithms.text.char_table_key`: the Unicode database, the
builder's code) and the SHA-1 stored beside its arrays matches them: a stale or damaged
file is built again, never trusted. Files are written to a temporary name and renamed:
runs in parallel see a whole file or none.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ..algorithms import text

#: Set once this process has its table (later calls return at once).
_LOADED: list[bool] = []


def load_char_table() -> None:
    """Make the stored normalizer's table this process's (else build it and store it).
    Once a process: later calls do nothing."""
    if _LOADED:
        return
    _LOADED.append(True)
    key = text.char_table_key()
    folders = _folders()
    for folder in folders:
        found = _read(folder / f"char_table-{key}.npz")
        if found is not None:
            text.use_char_table(*found)
            return
    table, points = text.char_table()  # built here
    for folder in folders:
        if _write(folder, f"char_table-{key}.npz", table, points):
            return


def _folders() -> list[Path]:
    """Where a table may be stored, in the order they are tried."""
    beside_kernels = Path(text.__file__).parent / "__pycache__"
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [beside_kernels, Path(home) / "webdedup"]


def _digest(table: np.ndarray, points: np.ndarray) -> str:
    return hashlib.sha1(table.tobytes() + b"|" + points.tobytes()).hexdigest()


def _read(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """The table stored at ``path`` when whole and as made (shapes, types, checksum)."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            table, points, check = stored["table"], stored["points"], str(stored["sha1"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None  # absent, unreadable or not an archive of these arrays
    if (
        table.dtype != np.int64 or points.dtype != np.int64
        or table.shape != (2, text.TABLE_LIMIT) or points.ndim != 1
        or check != _digest(table, points)
    ):
        return None
    return table, points


def _write(folder: Path, name: str, table: np.ndarray, points: np.ndarray) -> bool:
    """Store the table in ``folder`` (whole or not at all); False when it cannot."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".char_table-", suffix=".npz", dir=folder)
    except OSError:
        return False
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez(out, table=table, points=points, sha1=np.array(_digest(table, points)))
        os.chmod(temporary, 0o644)  # (mkstemp's 0600: as readable as the kernels beside it)
        os.replace(temporary, folder / name)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        return False
    return True
