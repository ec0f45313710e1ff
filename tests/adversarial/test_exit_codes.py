"""Every failure a machine can throw at a run ends with its documented exit code, one line of
advice and no traceback, and leaves the database as it was: a full disk (a real one, a small
tmpfs mounted here when the tests run as root; SQLite's ``max_page_count`` everywhere), a
``--ray-address`` that answers but is no Ray head, a ``daft --out`` on a read-only file
system, and SIGTERM or Ctrl-C in the middle of a run.

The commands run in their own processes (``crashkit.start``): a hang is cut by a timeout, a
signal reaches a real process, and stderr is what a cron log would show.
"""

from __future__ import annotations

import http.server
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import SHARED_DATA, crawl_with_duplicates, dump, make_page, write_pages
from crashkit import children, crawler_rows, integrity, start

from webdedup import Deduplicator
from webdedup.distributed.runner import RAY_CONNECT_TIMEOUT
from webdedup.errors import ClusterUnreachable, DiskFull, Interrupted, ReadOnlyOutput

#: No network from Daft or Ray (their usage statistics) in the child processes.
QUIET_ENV = {"DAFT_PROGRESS_BAR": "0", "RAY_USAGE_STATS_ENABLED": "0",
             "DAFT_ANALYTICS_ENABLED": "0", "DO_NOT_TRACK": "1"}


def finish(proc: subprocess.Popen, timeout: float) -> tuple[int, str]:
    """The exit code and stderr of ``proc``; killed (and the test failed) past ``timeout``."""
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"still running after {timeout:g} s; stderr:\n{err[-2000:]}")
    return proc.returncode, err


def one_line_of_advice(err: str, *words: str) -> str:
    """The command's error line: the last of stderr, ``Error: ...``, no traceback before it."""
    assert "Traceback" not in err, err[-3000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith("Error: "), err[-3000:]
    for word in words:
        assert word in last, last
    return last


@contextmanager
def tmpfs(where: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted at ``where`` (``mount -t tmpfs -o OPTIONS``); skips without root."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root (the test runs as another user)")
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"root, but mount -t tmpfs failed here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(disk: Path, leave: int) -> None:
    """Take all but about ``leave`` bytes of the free space of ``disk``."""
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with open(disk / "filler", "wb") as fh:  # not a database file: no SQLite lock to lose
        fh.write(b"\0" * max(0, free - leave))


# -- a full disk ------------------------------------------------------------------------------
def test_a_full_disk_under_db_gives_its_exit_code_and_leaves_the_database_as_it_was(
    tmp_path: Path,
) -> None:
    with tmpfs(tmp_path / "disk", "size=8m") as disk:
        db = write_pages(disk / "crawl.sqlite", crawl_with_duplicates(60))
        before = dump(db)
        fill(disk, leave=64 * 1024)  # the pages fit; a run's state and WAL do not
        code, err = finish(start("db", str(db)), timeout=300)
        assert code == DiskFull.exit_code == 8, err[-3000:]
        one_line_of_advice(err, "disk is full", "Free space")
        assert integrity(db) == "ok"
        assert dump(db) == before
        (disk / "filler").unlink()  # space again: the next run does the work
        code, err = finish(start("db", str(db)), timeout=300)
        assert code == 0, err[-3000:]


def test_a_full_disk_under_ingest_gives_its_exit_code(tmp_path: Path) -> None:
    warc = SHARED_DATA / "warc" / "datagovuk-crawl1.warc.gz"
    with tmpfs(tmp_path / "disk", "size=4m") as disk:
        db = write_pages(disk / "crawl.sqlite", crawl_with_duplicates(5))
        before = dump(db)
        fill(disk, leave=32 * 1024)
        code, err = finish(start("ingest", str(db), str(warc), "--workers", "1"), timeout=300)
        assert code == DiskFull.exit_code, err[-3000:]
        one_line_of_advice(err, "disk is full", "Free space")
        assert integrity(db) == "ok"
        assert dump(db) == before


def test_sqlite_full_is_translated_without_root(tmp_path: Path) -> None:
    """SQLITE_FULL from a page limit (``PRAGMA max_page_count``, SQLite's own quota) on the
    caller's connection: the API raises DiskFull, and the database is as it was."""
    db = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(60))
    before = dump(db)
    conn = sqlite3.connect(db)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(DiskFull) as caught:
        Deduplicator(workers=1).run_on_db(conn)
    assert caught.value.exit_code == 8
    assert "disk is full" in str(caught.value) and "\n" not in str(caught.value)
    assert not conn.in_transaction
    conn.close()
    assert integrity(db) == "ok"
    assert dump(db) == before


# -- --ray-address that answers, but not as Ray ---------------------------------------------
@contextmanager
def silent_server() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that accepts connections and never says a word."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(sock.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        sock.close()


@contextmanager
def http_server() -> Iterator[int]:
    """A plain HTTP/1 server on 127.0.0.1 (it answers a gRPC hello with 400 Bad Request)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def parquet_pages(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": [1, 2], "url": ["https://a.example/", "https://b.example/"],
                             "content": ["one page", "another page"]}), path)
    return path


@pytest.mark.parametrize("server", [silent_server, http_server], ids=["silent", "http"])
def test_a_ray_address_that_is_not_ray_fails_within_the_connect_timeout(
    tmp_path: Path, server: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in QUIET_ENV.items():
        monkeypatch.setenv(key, value)
    pages = parquet_pages(tmp_path / "in" / "a.parquet")
    out = tmp_path / "out"
    with server() as port:  # type: ignore[operator]
        t0 = time.monotonic()
        proc = start("daft", str(pages), "--out", str(out), "--ray-address", f"127.0.0.1:{port}")
        # Ray itself waited past 120 s on such a port; the interpreter and Daft's import take
        # a few seconds of the margin
        code, err = finish(proc, timeout=RAY_CONNECT_TIMEOUT + 60)
        seconds = time.monotonic() - t0
    assert code == ClusterUnreachable.exit_code == 3, err[-3000:]
    one_line_of_advice(err, f"127.0.0.1:{port}", "Ray", "nothing was written")
    assert seconds < RAY_CONNECT_TIMEOUT + 60
    assert not out.exists()


# -- daft --out on a read-only file system ----------------------------------------------------
@contextmanager
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder nothing can be written into: a read-only tmpfs as root, else mode 0555."""
    if os.geteuid() == 0:
        with tmpfs(tmp_path / "ro", "ro,size=1m") as folder:
            yield folder
        return
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        yield folder
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("sub", ["out", "new/out"], ids=["in-it", "below-it"])
def test_daft_out_on_a_read_only_file_system(
    tmp_path: Path, sub: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in QUIET_ENV.items():
        monkeypatch.setenv(key, value)
    pages = parquet_pages(tmp_path / "in" / "a.parquet")
    with read_only_folder(tmp_path) as folder:
        out = folder / sub
        code, err = finish(start("daft", str(pages), "--out", str(out)), timeout=300)
        assert code == ReadOnlyOutput.exit_code == 5, err[-3000:]
        one_line_of_advice(err, str(folder), "--out")
        assert not out.exists()


def test_daft_out_on_a_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in QUIET_ENV.items():
        monkeypatch.setenv(key, value)
    pages = parquet_pages(tmp_path / "in" / "a.parquet")
    with tmpfs(tmp_path / "disk", "size=64k") as disk:
        fill(disk, leave=0)
        code, err = finish(start("daft", str(pages), "--out", str(disk / "out")), timeout=300)
        assert code == DiskFull.exit_code, err[-3000:]
        one_line_of_advice(err, "--out", "no space left", "free some space")
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]  # no half-written result


# -- SIGTERM and Ctrl-C -----------------------------------------------------------------------
@pytest.mark.parametrize("after", [0.0, 2.0], ids=["as-the-pool-starts", "mid-run"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_run_stops_it_with_the_interrupted_exit_code(
    tmp_path: Path, signum: int, after: float
) -> None:
    """Stopped as its worker pool starts (Python drops an exception raised in its at-fork
    hooks: the stop is sent again) or a while into phase 1."""
    # a run with far more work than it will be let do, so that the stop lands mid-run however
    # fast this machine is: the levenshtein window over 1,000 neighbours of about 960 long
    # texts (each text twice, the second copy edited), 6.7 s here (2026-12-05); with each
    # text once the whole run took 2.4 s, and a stop sent 2 s after the pool came up landed
    # in its write now and then; its writes all come at its end
    pages = crawl_with_duplicates(400)
    pages += [
        make_page(p["url"].replace(".example", ".example-reposted"), p["content"] + " Reposted.")
        for p in pages if p["content"].strip()
    ]
    db = write_pages(tmp_path / "crawl.sqlite", pages)
    rows = crawler_rows(db)
    before = dump(db)
    proc = start("db", str(db), "--workers", "2", "--method", "levenshtein", "--distance", "1000")
    deadline = time.monotonic() + 120
    while not children(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # the pool of phase 1 is up: the run is under way
    time.sleep(after)
    assert proc.poll() is None, "the run ended before it could be stopped"
    t0 = time.monotonic()
    proc.send_signal(signum)
    code, err = finish(proc, timeout=60)
    seconds = time.monotonic() - t0
    assert code == Interrupted.exit_code == 130, err[-3000:]
    name = "SIGTERM" if signum == signal.SIGTERM else "Ctrl-C"
    one_line_of_advice(err, f"stopped by {name}", "run the command again")
    assert seconds < 30
    assert integrity(db) == "ok"
    assert crawler_rows(db) == rows
    assert dump(db) == before  # stopped before its write: nothing of the run was committed
    code, err = finish(start("db", str(db)), timeout=600)
    assert code == 0, err[-3000:]
