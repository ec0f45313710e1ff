"""Heavy load and unlucky operators, at larger counts than the other tests of tests/adversarial
(a slow test; prints figures). Its options come from ``$TORTURE``; from the checkout:

    .venv/bin/python -m pytest -m slow tests/adversarial/test_torture.py   # ~10 min, 2 cores
    TORTURE="--kills 40 --writer-runs 20 --pages 200000 --identical 200000" \\
        .venv/bin/python -m pytest -m slow tests/adversarial/test_torture.py
    TORTURE="--skip-large" ...           # kills and the writer only (~3 min)
    TORTURE="--lock-only --pages 200000" ...   # the write lock only (~4 min)

1. SIGKILL of ``webdedup db`` (first run, incremental run, ``--prune``), ``webdedup restore``
   and ``webdedup ingest`` at seeded random moments; after each: ``integrity_check`` ok, no
   page lost or changed; then a rerun must equal an uninterrupted run on a twin.
2. A crawler process (Python's default 5 s timeout) inserting, updating and deleting pages in
   transactions while ``webdedup db`` runs again and again: its failed transactions, the rows
   it committed that are missing, and whether the last incremental state equals a full run.
3. A full run on a ``--pages`` corpus (benchmarks/corpus/make_corpus.py), with the crawler
   writing: how long the run held the write lock (``timings['write_lock']``) and the
   crawler's failures.
4. ``--identical`` pages with one text (one exact group): the run's time.

The test fails when a kill left a problem, a rerun differs from an uninterrupted run, the
crawler lost a committed row or the last incremental state differs from a full run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import ROOT, SHARED_DATA, crawl_with_duplicates, real_texts, write_pages
from crashkit import (
    annotations,
    completed_runs,
    crawler_rows,
    integrity,
    kill_after,
    run,
)

WRITER = ROOT / "tests" / "adversarial" / "writer.py"
WARCS = [
    SHARED_DATA / "warc" / name
    for name in ("iana-dupes.warc.gz", "shop-sort-variants.warc.gz", "datagovuk-crawl2.warc.gz",
                 "wikipedia-blackout.warc.gz")
]
CHILD = """
import json, sys, time
from webdedup import Config, Deduplicator
t0 = time.perf_counter()
r = Deduplicator(write_lock=float(sys.argv[2]), config=Config()).run_on_db(sys.argv[1])
print(json.dumps({"wall": time.perf_counter() - t0, "timings": r.timings, "pages": r.pages,
                  "exact": r.exact_duplicates, "write": r.phases.get("write_back", {})}))
"""


def say_lock(lock: dict) -> None:
    say(f"full run on {lock['pages']:,} pages: {lock['wall']:.1f} s, write lock held "
        f"at most {lock['write_lock']:.2f} s at a time ({lock['write_transactions']} "
        f"write transactions, {lock['write_lock_total']:.2f} s in all); crawler "
        f"meanwhile: {lock['writer_transactions']} transactions, "
        f"{lock['writer_failed']} failed {lock['writer_errors']}")


def say(text: str) -> None:
    print(text, flush=True)


def change_pages(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE pages SET content = content || ' updated' WHERE id % 7 = 0")
    conn.execute("INSERT INTO pages (url, content) SELECT url || '?copy=1', content FROM pages "
                 "WHERE id % 11 = 0")
    conn.execute("DELETE FROM pages WHERE id % 13 = 0")
    conn.commit()
    conn.close()


def kill_scenario(work: Path, name: str, kills: int, originals: int) -> dict:
    """One scenario: ``kills`` SIGKILLs, the checks after each, the rerun against a twin."""
    rng = random.Random(f"torture-{name}")
    path, twin = work / f"{name}.sqlite", work / f"{name}-twin.sqlite"
    for p in (path, twin):
        p.unlink(missing_ok=True)
    inputs = [str(w) for w in WARCS]
    if name == "ingest":
        seconds = run("ingest", str(twin), *inputs)
        args = ["ingest", str(path), *inputs]
        complete = crawler_rows(twin)
    else:
        write_pages(path, crawl_with_duplicates(originals))
        shutil.copy(path, twin)
        if name == "db-incremental":
            for p in (path, twin):
                run("db", str(p))
                change_pages(p)
        if name == "restore":
            for p in (path, twin):
                run("db", str(p), "--prune")
        args = {"db-first": ["db"], "db-incremental": ["db"], "db-prune": ["db", "--prune"],
                "restore": ["restore"]}[name]
        args = [args[0], str(path), *args[1:]]
        rows = crawler_rows(path)
        seconds = run(*args[:1], str(twin), *args[2:])
    landed = problems = 0
    for _ in range(kills):
        landed += kill_after(rng.uniform(0.0, seconds * 1.1), *args)
        if not path.exists() or not path.stat().st_size:
            continue
        if integrity(path) != "ok":
            problems += 1
        if name == "ingest":
            got = crawler_rows(path) if _has(path, "pages") else {}
            problems += sum(complete.get(k) != v for k, v in got.items())
        elif crawler_rows(path) != rows:
            problems += 1
    run(*args)
    if name == "ingest":
        equal = crawler_rows(path) == complete
    else:
        if name == "db-prune":
            for _ in range(completed_runs(path) - completed_runs(twin)):
                run("db", str(twin), "--prune")
        equal = crawler_rows(path) == rows and annotations(path) == annotations(twin)
    return {"kills": kills, "landed": landed, "problems": problems, "rerun_equal": equal}


def _has(path: Path, table: str) -> bool:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT 1 FROM sqlite_schema WHERE name = ?", (table,)).fetchone() \
            is not None
    finally:
        conn.close()


def start_writer(path: Path, seed: str, stop: Path) -> subprocess.Popen:
    stop.unlink(missing_ok=True)
    return subprocess.Popen([sys.executable, str(WRITER), str(path), seed, str(stop)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stop_writer(writer: subprocess.Popen, stop: Path) -> dict:
    stop.touch()
    out, err = writer.communicate(timeout=600)
    if writer.returncode != 0:
        raise RuntimeError(err)
    return json.loads(out)


def lost_rows(path: Path, believed: dict) -> int:
    conn = sqlite3.connect(path)
    stored = {str(r[0]): [r[1], r[2]] for r in conn.execute("SELECT id, url, content FROM pages")}
    conn.close()
    return sum(stored.get(k) != v for k, v in believed.items()) + len(set(stored) - set(believed))


def writer_scenario(work: Path, runs: int, originals: int) -> dict:
    path = write_pages(work / "writer.sqlite", crawl_with_duplicates(originals))
    stop = work / "writer.stop"
    writer = start_writer(path, "torture", stop)
    try:
        for _ in range(runs):
            run("db", str(path))
    finally:
        report = stop_writer(writer, stop)
    lost = lost_rows(path, report["pages"])
    run("db", str(path))
    twin = work / "writer-twin.sqlite"
    shutil.copy(path, twin)
    run("db", str(twin), "--full")
    return {"runs": runs, "transactions": report["committed"], "failed": report["failures"],
            "errors": report["errors"], "rows_lost": lost,
            "incremental_equals_full": annotations(path) == annotations(twin)}


def child_run(path: Path, write_lock: float = 1.0) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(write_lock)],
                         capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def lock_scenario(work: Path, pages: int, corpus: Path | None, write_lock: float = 1.0) -> dict:
    path = work / "large.sqlite"
    if corpus is None:
        corpus = work / f"corpus-{pages}.sqlite"
        if not corpus.exists():
            subprocess.run([sys.executable, "-m", "benchmarks.corpus.make_corpus", str(corpus),
                            "--pages", str(pages), "--no-measure"], check=True,
                           stdout=subprocess.DEVNULL, cwd=ROOT)
    shutil.copy(corpus, path)
    stop = work / "large.stop"
    writer = start_writer(path, "large", stop)
    try:
        result = child_run(path, write_lock)
    finally:
        report = stop_writer(writer, stop)
    path.unlink()
    return {"pages": result["pages"], "wall": result["wall"],
            "write_lock": result["timings"]["write_lock"],
            "write_lock_total": result["timings"]["write_lock_total"],
            "write_transactions": result["write"].get("transactions", 1),
            "write_back": result["timings"]["write_back"],
            "writer_transactions": report["committed"], "writer_failed": report["failures"],
            "writer_errors": report["errors"][:2]}


def identical_scenario(work: Path, count: int) -> dict:
    path = work / "identical.sqlite"
    path.unlink(missing_ok=True)
    text = real_texts()[0]["text"]
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
    conn.executemany("INSERT INTO pages (url, content) VALUES (?, ?)",
                     ((f"https://mirror{i % 997}.example.net/copy/{i}", text)
                      for i in range(count)))
    conn.commit()
    conn.close()
    result = child_run(path)
    path.unlink()
    return {"pages": result["pages"], "exact_duplicates": result["exact"], "wall": result["wall"],
            "elect_exact": result["timings"]["elect_exact"]}


@pytest.mark.slow
def test_torture(capsys) -> None:
    with capsys.disabled():  # the figures are the point: printed without -s
        figures = torture(shlex.split(os.environ.get("TORTURE", "")))
    for name, k in figures.get("kills", {}).items():
        assert k["problems"] == 0 and k["rerun_equal"], (name, k)
    if "writer" in figures:
        w = figures["writer"]
        assert w["rows_lost"] == 0 and w["incremental_equals_full"], w


def torture(argv: list[str]) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], prog="TORTURE=")
    ap.add_argument("--kills", type=int, default=10, help="SIGKILLs per scenario (5 scenarios)")
    ap.add_argument("--originals", type=int, default=200,
                    help="real texts in the kill and writer corpora (about 1.7 pages each)")
    ap.add_argument("--writer-runs", type=int, default=10,
                    help="db runs while the crawler writes")
    ap.add_argument("--pages", type=int, default=200_000, help="pages of the write-lock run")
    ap.add_argument("--corpus", type=Path, help="an existing make_corpus.py file to use")
    ap.add_argument("--identical", type=int, default=200_000, help="pages with one text")
    ap.add_argument("--skip-large", action="store_true", help="no --pages/--identical runs")
    ap.add_argument("--write-lock", type=float, default=1.0,
                    help="the write-lock run's --write-lock (0: one transaction)")
    ap.add_argument("--lock-only", action="store_true",
                    help="only the write-lock run on --pages (with the crawler writing)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = ap.parse_args(argv)
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="webdedup-torture-") as tmp:
        work = Path(tmp)
        if args.lock_only:
            lock = lock_scenario(work, args.pages, args.corpus, args.write_lock)
            figures["lock"] = lock
            say_lock(lock)
            if args.json:
                print(json.dumps(figures, indent=1))
            return figures
        t0 = time.perf_counter()
        scenarios = ("db-first", "db-incremental", "db-prune", "restore", "ingest")
        kills = {name: kill_scenario(work, name, args.kills, args.originals)
                 for name in scenarios}
        figures["kills"] = kills
        for name, k in kills.items():
            say(f"kill {name:15} {k['kills']} SIGKILLs ({k['landed']} before the end): "
                f"{k['problems']} problems, rerun equals uninterrupted run: {k['rerun_equal']}")
        landed = sum(k["landed"] for k in kills.values())
        ok = [k for k in kills.values() if not k["problems"] and k["rerun_equal"]]
        survived = sum(k["landed"] for k in ok)
        say(f"kills survived: {survived} of {landed} that landed before the command ended "
            f"({sum(k['kills'] for k in kills.values())} sent, {time.perf_counter() - t0:.0f} s)")
        t0 = time.perf_counter()
        w = writer_scenario(work, args.writer_runs, args.originals)
        figures["writer"] = w
        say(f"writer: {w['transactions']} transactions during {w['runs']} db runs, "
            f"{w['failed']} failed, rows lost: {w['rows_lost']}, final incremental state equals "
            f"a full run: {w['incremental_equals_full']}  ({time.perf_counter() - t0:.0f} s)")
        if not args.skip_large:
            lock = lock_scenario(work, args.pages, args.corpus)
            figures["lock"] = lock
            say_lock(lock)
            same = identical_scenario(work, args.identical)
            figures["identical"] = same
            say(f"{same['pages']:,} identical pages: {same['wall']:.1f} s "
                f"({same['exact_duplicates']:,} exact duplicates, exact election "
                f"{same['elect_exact']:.2f} s)")
    if args.json:
        print(json.dumps(figures, indent=1))
    return figures
