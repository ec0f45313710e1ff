"""The file's lifecycle under unlucky operators: refused and read-only commands leave a
rollback-journal database byte for byte as it was, and the busy timeout holds against a
crawler's open write transaction (a real second process)."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import crawl_with_duplicates, write_pages

from webdedup.cli import cli


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def fingerprint(path: Path) -> tuple[str, list[str]]:
    """The file's bytes (hashed) and whatever else lies beside it with its name."""
    side = sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-"))
    return hashlib.sha256(path.read_bytes()).hexdigest(), side


def journal_mode(path: Path) -> str:
    """The journal mode written in the file's header (byte 18: 1 = rollback, 2 = WAL)."""
    head = path.read_bytes()[:20]
    return {1: "rollback", 2: "wal"}.get(head[18], "?") if len(head) == 20 else "empty"


def rollback_db(path: Path, create: str, rows: list[tuple] | None = None) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(create)
    conn.commit()
    conn.close()
    assert journal_mode(path) == "rollback"
    return path


REFUSED = {
    "no pages table": "CREATE TABLE documents (id INTEGER PRIMARY KEY, url TEXT, content TEXT);"
    "INSERT INTO documents (url, content) VALUES ('https://a.example/', 'text');",
    "a view named pages": "CREATE TABLE t (id INTEGER PRIMARY KEY, url TEXT, content TEXT);"
    "INSERT INTO t (url, content) VALUES ('https://a.example/', 'text');"
    "CREATE VIEW pages AS SELECT * FROM t;",
    "without rowid": "CREATE TABLE pages (url TEXT PRIMARY KEY, content TEXT) WITHOUT ROWID;"
    "INSERT INTO pages VALUES ('https://a.example/', 'text');",
    "missing column": "CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, body TEXT);"
    "INSERT INTO pages (url, body) VALUES ('https://a.example/', 'text');",
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_run_leaves_a_rollback_database_byte_identical(tmp_path, case):
    path = rollback_db(tmp_path / "crawl.sqlite", REFUSED[case])
    before = fingerprint(path)
    code, output = invoke("db", str(path))
    assert code == 3, output
    assert fingerprint(path) == before  # same bytes, no -wal, no -shm, no -journal
    assert journal_mode(path) == "rollback"


def test_refused_run_leaves_an_empty_file_empty(tmp_path):
    path = tmp_path / "crawl.sqlite"
    path.write_bytes(b"")
    code, output = invoke("db", str(path))
    assert code == 3, output
    assert path.read_bytes() == b""
    assert fingerprint(path)[1] == []


def test_read_only_commands_never_change_the_journal_mode(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(20))
    assert invoke("db", str(path))[0] == 0
    conn = sqlite3.connect(path)  # the operator puts the file back into rollback mode
    assert conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    conn.close()
    before = fingerprint(path)
    assert before[1] == [] and journal_mode(path) == "rollback"
    out = tmp_path / "out"
    out.mkdir()
    assert invoke("export", str(path), "--json", str(out / "r.json"),
                  "--csv", str(out / "r.csv"), "--html", str(out / "r.html"))[0] == 0
    assert invoke("stats", str(path))[0] == 0
    assert invoke("explain", str(path), "1", "2")[0] == 0
    assert fingerprint(path) == before


def test_a_run_that_passes_its_checks_uses_wal(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(5))
    assert journal_mode(path) == "rollback"
    assert invoke("db", str(path))[0] == 0
    assert journal_mode(path) == "wal"


HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO pages (url, content) VALUES ('https://late.example/', 'late text')")
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


def hold_write_lock(path: Path, seconds: float) -> subprocess.Popen:
    """A crawler (another process) in the middle of a write transaction for ``seconds``."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    return holder


@pytest.mark.parametrize("mode", ["rollback", "wal"])
def test_busy_timeout_waits_for_a_crawlers_write_transaction(tmp_path, mode):
    path = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(5))
    if mode == "wal":
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.close()
    holder = hold_write_lock(path, 2.0)
    t0 = time.monotonic()
    code, output = invoke("db", str(path), "--busy-timeout", "20")
    waited = time.monotonic() - t0
    holder.wait(timeout=30)
    assert code == 0, output
    assert holder.returncode == 0
    if mode == "rollback":  # it had to wait for the crawler's commit to switch to WAL
        assert waited >= 1.0, waited
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM pages WHERE url = 'https://late.example/'"
                        ).fetchone() == (1,)
    conn.close()


def test_busy_timeout_runs_out_with_exit_4_and_no_change(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(5))
    twin = tmp_path / "twin.sqlite"
    shutil.copy(path, twin)
    holder = hold_write_lock(path, 6.0)
    t0 = time.monotonic()
    code, output = invoke("db", str(path), "--busy-timeout", "1.5")
    waited = time.monotonic() - t0
    assert code == 4, output
    assert 1.4 <= waited < 5.5, waited
    holder.wait(timeout=30)
    assert journal_mode(path) == "rollback"
