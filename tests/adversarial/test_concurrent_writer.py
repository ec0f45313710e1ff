"""A crawler (a real second process, Python's default 5 s timeout) inserts, updates and
deletes pages in transactions while ``webdedup db`` runs again and again: none of its
transactions fails, nothing it wrote is lost, and the final incremental state equals a
full run over the same pages."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from conftest import crawl_with_duplicates, write_pages
from crashkit import annotations, integrity, run

WRITER = Path(__file__).with_name("writer.py")


def start_writer(path: Path, seed: str, stop: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(path), seed, str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop_writer(writer: subprocess.Popen, stop: Path) -> dict:
    stop.touch()
    out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    return json.loads(out)


def stored_pages(path: Path) -> dict[str, list]:
    conn = sqlite3.connect(path)
    try:
        return {str(r[0]): [r[1], r[2]] for r in conn.execute("SELECT id, url, content FROM pages")}
    finally:
        conn.close()


def test_crawler_keeps_writing_while_db_runs(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(100))
    stop = tmp_path / "stop"
    writer = start_writer(path, "w1", stop)
    try:
        for _ in range(3):  # the first run (no triggers yet), then incremental ones
            run("db", str(path))
    finally:
        report = stop_writer(writer, stop)
    assert report["failures"] == 0, report["errors"]
    assert report["committed"] >= 10
    assert integrity(path) == "ok"
    assert stored_pages(path) == report["pages"]  # nothing the crawler committed is lost

    run("db", str(path))  # picks up what was written during the last run: incremental
    twin = tmp_path / "twin.sqlite"
    shutil.copy(path, twin)
    run("db", str(twin), "--full")
    conn = sqlite3.connect(path)
    modes = [r[0] for r in conn.execute("SELECT mode FROM _webdedup_runs ORDER BY id")]
    conn.close()
    assert modes[0] == "full" and modes[-1] == "incremental", modes
    assert annotations(path) == annotations(twin)
