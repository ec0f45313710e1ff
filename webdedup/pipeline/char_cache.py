"""The normalizer's table kept on disk between runs.

:func:`~webdedup.algorithms.text.build_char_table` takes 0.3-0.6 s a process (0.4 s of a
nightly run at a million pages, in a py-spy profile). :func:`load_char_table`
loads the copy an earlier run stored (about 20 ms), or builds it and stores it (and removes
the copies of other keys in that folder): beside numba's cached kernels (the
``__pycache__`` folder of ``webdedup/algorithms``) when that folder is writable, else in the
user's cache folder (``$XDG_CACHE_HOME/webdedup``, ``~/.cache/webdedup``), else nowhere:
the table is then built each run, as before.

A stored table is used only when its file name holds the key of what the table is made
from (:func:`~webdedup.algorithms.text.char_table_key`: the Python, its Unicode database,
the builder's code), the SHA-1 stored beside its arrays matches them and its values are in
bounds (the compiled normalizer indexes with them unchecked): a stale, damaged or ill-made
file is built again, never trusted. Files are written to a temporary name and renamed: runs
in parallel see a whole file or none.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
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
    key = text.char_table_key()
    folders = _folders()
    for folder in folders:
        found = _read(folder / f"char_table-{key}.npz")
        if found is not None:
            text.use_char_table(*found)
            _LOADED.append(True)
            return
    table, points = text.char_table()  # built here
    _LOADED.append(True)
    for folder in folders:
        if _write(folder, f"char_table-{key}.npz", table, points):
            _remove_others(folder, f"char_table-{key}.npz")
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
        if (
            table.dtype != np.int64 or points.dtype != np.int64
            or table.shape != (2, text.TABLE_LIMIT) or points.ndim != 1
            or check != _digest(table, points)
        ):
            return None
    except Exception:  # noqa: BLE001 (a cache: any file that does not read is built again)
        return None
    start, end = table
    unmapped = (start == -1) & (end == -1)
    spans = (start >= 0) & (start <= end) & (end <= points.size)
    code = points & 0xFFFFFFFF  # (a combining mark's class above bit 32)
    surrogate = (code >= 0xD800) & (code <= 0xDFFF)
    if not bool((unmapped | spans).all()) or bool(
        ((points < 0) | (code > 0x10FFFF) | surrogate | (points >> 32 > 254)).any()
    ):
        return None  # (whole and checksummed, but not a table the normalizer may index with)
    return table, points


def _remove_others(folder: Path, kept: str) -> None:
    """Remove the tables of other keys (another Python, an older webdedup) from ``folder``:
    4.7 MB each."""
    for old in folder.glob("char_table-*.npz"):
        if old.name != kept:
            old.unlink(missing_ok=True)


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
    except BaseException as exc:  # (a Ctrl-C too: no half-written file left behind)
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            return False
        raise
    return True
