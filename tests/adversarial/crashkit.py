"""Helpers of the kill and concurrent-writer tests (and ``test_torture.py``): run the CLI in
a real process, SIGKILL it at a seeded random moment, and read back what the file holds."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import OUTPUT, annotations  # noqa: F401 - annotations is re-exported

CLI = "import sys; from webdedup.cli import cli; sys.argv[0] = 'webdedup'; cli()"


def start(*args: str) -> subprocess.Popen:
    """``webdedup ARGS`` in a new process (its output discarded)."""
    return subprocess.Popen(
        [sys.executable, "-c", CLI, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def run(*args: str) -> float:
    """``webdedup ARGS`` to its end; its wall time (raises on a non-zero exit)."""
    t0 = time.perf_counter()
    proc = start(*args)
    _, err = proc.communicate(timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"webdedup {' '.join(args)} exited {proc.returncode}: {err}")
    return time.perf_counter() - t0


def kill_after(delay: float, *args: str) -> bool:
    """Start ``webdedup ARGS``, SIGKILL it after ``delay`` seconds; True if it was killed
    (False when it had already finished, successfully)."""
    proc = start(*args)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.stderr is not None
        proc.stderr.close()
        return True
    _, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"webdedup {' '.join(args)} exited {proc.returncode}: {err}")
    return False


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]


def crawler_rows(path: Path, table: str = "pages") -> dict[int, tuple[Any, ...]]:
    """``{rowid: the crawler's own columns}`` of ``table``, pruned rows put back in."""
    conn = sqlite3.connect(path)
    try:
        cols = [c for c in columns(conn, table) if c not in OUTPUT]
        names = ", ".join(f'"{c}"' for c in cols)
        rows = {r[0]: tuple(r[1:]) for r in conn.execute(f'SELECT rowid, {names} FROM "{table}"')}
        if conn.execute(
            "SELECT 1 FROM sqlite_schema WHERE name = '_webdedup_pruned'"
        ).fetchone():
            for r in conn.execute(f"SELECT _rowid, {names} FROM _webdedup_pruned"):
                assert r[0] not in rows, f"row {r[0]} is both in {table} and pruned"
                rows[r[0]] = tuple(r[1:])
        return rows
    finally:
        conn.close()


def completed_runs(path: Path) -> int:
    """How many runs ``_webdedup_runs`` records (a killed run records none)."""
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM _webdedup_runs").fetchone()[0])
    finally:
        conn.close()


def children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is ``pid`` (Linux /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat and stat[0] != "Z" and int(stat[1]) == pid:
                found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            text = fh.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # state, ppid, ...
