"""Read-only commands on a WAL database in a folder that can't be written.

Reading a WAL database needs its ``-shm`` file; SQLite can't create one in a read-only
folder and said "unable to open database file" (exit 1). ``stats``, ``export``, ``explain``
and the review app now read such a database (read-only, or as an immutable file when nothing
can write it), and ``db`` says the folder is read-only (exit 5). The folder is made read-only
for real: a read-only bind mount (root only, as CI runs; elsewhere the test says why it
can't run).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import crawl_with_duplicates, write_pages

WEBDEDUP = [sys.executable, "-m", "webdedup.cli"]


def webdedup(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WEBDEDUP, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(writable folder, the same folder mounted read-only)."""
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root (CI runs as root)")
    src, ro = tmp_path / "src", tmp_path / "ro"
    src.mkdir()
    ro.mkdir()
    try:
        subprocess.run(["mount", "--bind", str(src), str(ro)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no bind mount here: {exc}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=True,
                       capture_output=True)
        yield src, ro
    finally:
        subprocess.run(["umount", str(ro)], check=False, capture_output=True)


def annotated(folder: Path) -> Path:
    path = write_pages(folder / "crawl.sqlite", crawl_with_duplicates(30))
    res = webdedup("db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    assert not Path(str(path) + "-wal").exists()  # the last connection checkpointed it away
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    return path


def test_read_commands_read_a_wal_database_on_a_read_only_file_system(read_only_folder):
    src, ro = read_only_folder
    annotated(src)
    path = ro / "crawl.sqlite"
    stats = webdedup("stats", str(path))
    assert stats.returncode == 0, stats.stderr
    assert "group" in stats.stdout
    out = src.parent / "out"
    out.mkdir()
    export = webdedup("export", str(path), "--json", str(out / "r.json"), "--csv",
                      str(out / "p.csv"))
    assert export.returncode == 0, export.stderr
    assert (out / "r.json").stat().st_size > 0
    with sqlite3.connect(src / "crawl.sqlite") as conn:
        a, b = (r[0] for r in conn.execute("SELECT url FROM pages ORDER BY id LIMIT 2"))
    conn.close()
    explain = webdedup("explain", str(path), a, b)
    assert explain.returncode == 0, explain.stderr

    from webdedup.review import ReviewApp

    app = ReviewApp(str(path))
    try:
        assert app.handle("GET", "/", {}, {}).status == 200
    finally:
        app.close()

    run = webdedup("db", str(path))  # a command that writes: exit 5 and one line of advice
    assert run.returncode == 5, run.stderr
    assert "read-only" in run.stderr and "Traceback" not in run.stderr


def test_a_wal_left_beside_the_file_is_not_read_around(read_only_folder):
    """With a ``-wal`` beside the file and no ``-shm``, reading the main file alone would miss
    committed pages: the command refuses (exit 5) instead of answering from half the data."""
    src, ro = read_only_folder
    path = annotated(src)
    crawler = sqlite3.connect(path)
    crawler.execute("INSERT INTO pages (url, content) VALUES ('https://x.example/', 'x')")
    crawler.commit()
    wal = Path(str(path) + "-wal").read_bytes()  # the crawler's commit, not yet checkpointed
    crawler.close()
    Path(str(path) + "-wal").write_bytes(wal)  # a WAL left by a crawler that was killed
    Path(str(path) + "-shm").unlink(missing_ok=True)
    res = webdedup("stats", str(ro / "crawl.sqlite"))
    assert res.returncode == 5, (res.returncode, res.stderr)
    assert "copy the database" in res.stderr and "Traceback" not in res.stderr
