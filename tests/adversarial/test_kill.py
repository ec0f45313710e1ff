"""SIGKILL at seeded random moments: of ``webdedup db`` (first run, incremental run, with
``--prune``), of ``webdedup ingest`` and of ``webdedup restore``. Afterwards the file passes
``PRAGMA integrity_check``, no page is lost or changed, and a rerun equals an uninterrupted
run on a twin (also when the write is split into many transactions: ``--write-lock``).
And a killed main process leaves none of its pool workers behind.

The moments are drawn between the start of the process and the end of an uninterrupted run
of the same command (timed on the twin), so they land in every phase, imports included.
``test_torture.py`` (slow) runs the same at larger counts.
"""

from __future__ import annotations

import random
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from conftest import SHARED_DATA, crawl_with_duplicates, write_pages
from crashkit import (
    alive,
    annotations,
    children,
    completed_runs,
    crawler_rows,
    integrity,
    kill_after,
    run,
    start,
)

KILLS = 3  # per scenario here; TORTURE=--kills N test_torture.py for more
WARCS = [
    SHARED_DATA / "warc" / name
    for name in ("iana-dupes.warc.gz", "shop-sort-variants.warc.gz", "datagovuk-crawl2.warc.gz",
                 "wikipedia-blackout.warc.gz")
]


def change_pages(path: Path) -> None:
    """What a crawler does between two runs: update, insert, delete."""
    conn = sqlite3.connect(path)
    conn.execute("UPDATE pages SET content = content || ' updated' WHERE id % 7 = 0")
    conn.execute(
        "INSERT INTO pages (url, content) SELECT url || '?copy=1', content FROM pages "
        "WHERE id % 11 = 0"
    )
    conn.execute("DELETE FROM pages WHERE id % 13 = 0")
    conn.commit()
    conn.close()


def twins(tmp_path: Path, originals: int = 200) -> tuple[Path, Path]:
    path = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(originals))
    twin = tmp_path / "twin.sqlite"
    shutil.copy(path, twin)
    return path, twin


def kill_repeatedly(rng: random.Random, seconds: float, kills: int, *args: str,
                    check=None) -> int:
    """SIGKILL ``webdedup ARGS`` ``kills`` times at random moments; returns how many landed
    before it finished. ``check()`` runs after each."""
    landed = 0
    for _ in range(kills):
        landed += kill_after(rng.uniform(0.0, seconds), *args)
        if check is not None:
            check()
    return landed


@pytest.mark.parametrize("scenario", ["first", "incremental", "prune", "batched"])
def test_sigkill_db_at_random_moments(tmp_path, scenario):
    rng = random.Random(f"db-{scenario}")
    path, twin = twins(tmp_path)
    extra = {"prune": ["--prune"], "batched": ["--write-lock", "0.000001"]}.get(scenario, [])
    if scenario == "incremental":
        for p in (path, twin):
            run("db", str(p))
            change_pages(p)
    rows = crawler_rows(path)
    seconds = run("db", str(twin), *extra)  # the uninterrupted run

    def unharmed() -> None:
        assert integrity(path) == "ok"
        assert crawler_rows(path) == rows  # no page lost or changed (pruned ones kept aside)

    kill_repeatedly(rng, seconds * 1.1, KILLS, "db", str(path), *extra, check=unharmed)
    run("db", str(path), *extra)
    assert crawler_rows(path) == rows
    # a kill that came after the commit left a completed run: --prune runs again over what
    # the first one kept, so the twin takes as many runs
    for _ in range(completed_runs(path) - completed_runs(twin)):
        run("db", str(twin), *extra)
    assert annotations(path) == annotations(twin)


def test_sigkill_restore_at_random_moments(tmp_path):
    rng = random.Random("restore")
    path, twin = twins(tmp_path)
    for p in (path, twin):
        run("db", str(p), "--prune")
    rows = crawler_rows(path)
    seconds = run("restore", str(twin))

    def unharmed() -> None:
        assert integrity(path) == "ok"
        assert crawler_rows(path) == rows

    kill_repeatedly(rng, seconds * 1.1, KILLS, "restore", str(path), check=unharmed)
    run("restore", str(path))
    assert crawler_rows(path) == rows == crawler_rows(twin)
    assert annotations(path) == annotations(twin)


def test_sigkill_ingest_at_random_moments(tmp_path):
    rng = random.Random("ingest")
    path, twin = tmp_path / "crawl.sqlite", tmp_path / "twin.sqlite"
    inputs = [str(w) for w in WARCS]
    seconds = run("ingest", str(twin), *inputs)
    complete = crawler_rows(twin)
    assert len(complete) > 30

    def unharmed() -> None:
        if path.exists() and path.stat().st_size:
            assert integrity(path) == "ok"
            got = crawler_rows(path) if _has_pages(path) else {}
            # what is there is whole: each page as the uninterrupted ingest wrote it
            assert {k: complete.get(k) for k in got} == got

    kill_repeatedly(rng, seconds * 1.1, KILLS, "ingest", str(path), *inputs, check=unharmed)
    run("ingest", str(path), *inputs)
    assert crawler_rows(path) == complete


def _has_pages(path: Path) -> bool:
    conn = sqlite3.connect(path)
    try:
        found = conn.execute("SELECT 1 FROM sqlite_schema WHERE name = 'pages'").fetchone()
        return found is not None
    finally:
        conn.close()


@pytest.mark.parametrize("command", ["db", "ingest"])
def test_pool_workers_die_with_a_killed_main_process(tmp_path, command):
    if command == "db":
        path, _ = twins(tmp_path)
        proc = start("db", str(path), "--workers", "2")
    else:
        proc = start("ingest", str(tmp_path / "new.sqlite"), "--workers", "2",
                     *[str(w) for w in WARCS])
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
        workers |= children(proc.pid)
        time.sleep(0.005)
    assert len(workers) >= 2, "the pool never started"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 5
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [w for w in workers if alive(w)]
    for w in left:  # don't leave them running on the machine when the test fails
        __import__("os").kill(w, signal.SIGKILL)
    assert left == []
