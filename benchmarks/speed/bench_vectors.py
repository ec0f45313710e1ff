#!/usr/bin/env python3
"""What ``--method vectors`` costs beside ``minhash``: wall time, CPU time and peak memory.

    python -m benchmarks.speed.bench_vectors [--pages 20000] [--methods minhash,vectors]
    python -m benchmarks.speed.bench_vectors --corpus corpus.sqlite  # a make_corpus.py file
    python -m benchmarks.speed.bench_vectors --corpus corpus-300000-seed1-short.sqlite \
        --limit 50000 --progress --timeout 3600

Builds a labelled corpus with ``corpus/make_corpus.py`` (seed 1) unless one is given, then
runs each method once on a fresh copy in its own process and prints its wall time, its CPU
time (user + system of the run and its worker processes: on a machine shared with other work
the wall time grows, the CPU time much less) and its peak resident memory (``peak MiB``: the
run's own process; ``workers MiB``: its largest worker process), with the time of phase 4
(``near``).

``--limit N`` runs on the first N pages of the corpus (copied into a new file; the corpus is
only read). ``--progress`` lets the runs print their progress lines on stderr (phase 4 of
``vectors``: ``vectors`` pages, then ``verify`` pairs), which shows the rate of each step of a
long run; ``--timeout S`` ends a run after S seconds of wall time and prints what it had
used by then (CPU, peak memory) instead of its result.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.speed.bench import PEAK_KIB, build_corpus, peak_kib

CHILD = PEAK_KIB + """
import json, resource, sys
from webdedup import Config, Deduplicator
d = Deduplicator(method=sys.argv[2], progress=sys.argv[3] == "1", config=Config())
r = d.run_on_db(sys.argv[1])
print(json.dumps({"timings": r.timings, "pages": r.pages, "near": r.near_duplicates,
                  "candidates": r.candidates, "edges": r.edges,
                  "maxrss_kib": peak_kib(),
                  "workers_maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def run(db: Path, method: str, progress: bool = False, timeout: float | None = None) -> dict:
    """One run in its own process: its result, wall and CPU seconds (``wait4``: the run and
    its workers), or, past ``timeout`` seconds, what it had used when it was ended."""
    with tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(db), method, "1" if progress else "0"],
            stdout=out, text=True,
        )
        peak_at_kill = {"kib": 0}

        def end() -> None:  # the run's own peak first (wait4's ru_maxrss carries this bench's)
            try:
                peak_at_kill["kib"] = peak_kib(proc.pid)
            except (OSError, StopIteration):  # it ended meanwhile
                pass
            proc.kill()

        timer = threading.Timer(timeout, end) if timeout else None
        if timer is not None:
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        if timer is not None:
            timer.cancel()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
        if proc.returncode == -signal.SIGKILL and timeout and wall >= timeout:
            return {"timed_out": True, "wall": wall, "cpu": cpu,
                    "maxrss_kib": peak_at_kill["kib"]}
        if proc.returncode:
            raise subprocess.CalledProcessError(proc.returncode, proc.args)
        out.seek(0)
        result = json.loads(out.read().strip().splitlines()[-1])
    return result | {"wall": wall, "cpu": cpu}


def first_pages(corpus: Path, db: Path, limit: int) -> None:
    """A new database ``db`` with the first ``limit`` pages of ``corpus`` (same schema)."""
    conn = sqlite3.connect(db)
    conn.execute("ATTACH DATABASE ? AS src", (f"file:{corpus}?mode=ro",))
    schema = conn.execute(
        "SELECT sql FROM src.sqlite_master WHERE name = 'pages' AND type = 'table'"
    ).fetchone()[0]
    conn.execute(schema)
    conn.execute("INSERT INTO main.pages SELECT * FROM src.pages ORDER BY rowid LIMIT ?", (limit,))
    conn.commit()
    conn.execute("DETACH DATABASE src")
    conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--corpus", type=Path, default=None, help="an existing corpus file")
    parser.add_argument("--methods", default="minhash,vectors")
    parser.add_argument("--limit", type=int, default=None, help="the first N pages only")
    parser.add_argument("--progress", action="store_true", help="the runs' progress on stderr")
    parser.add_argument("--timeout", type=float, default=None, help="end a run after S s")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_vectors_") as tmp:
        work = Path(tmp)
        corpus = args.corpus
        if corpus is None:
            corpus = work / "corpus.sqlite"
            build_corpus(corpus, args.pages, 1)
        if args.limit is not None:
            first = work / "first.sqlite"
            first_pages(corpus, first, args.limit)
            print(f"corpus: the first {args.limit:,} pages of {corpus}")
            corpus = first
        else:
            print(f"corpus: {corpus}")
        print(f"{'method':<10} {'pages':>8} {'wall s':>8} {'CPU s':>8} {'near s':>8} "
              f"{'peak MiB':>9} {'workers MiB':>12} {'candidates':>11} {'edges':>7}")
        for method in args.methods.split(","):
            db = work / f"run-{method}.sqlite"
            shutil.copy(corpus, db)
            r = run(db, method, args.progress, args.timeout)
            db.unlink()
            if r.get("timed_out"):
                print(f"{method:<10} {'':>8} {r['wall']:>8.1f} {r['cpu']:>8.1f} {'':>8} "
                      f"{r['maxrss_kib'] / 1024:>9.0f}  ended after --timeout {args.timeout:.0f} s",
                      flush=True)
                continue
            print(f"{method:<10} {r['pages']:>8,} {r['wall']:>8.1f} {r['cpu']:>8.1f} "
                  f"{r['timings'].get('near', 0.0):>8.1f} {r['maxrss_kib'] / 1024:>9.0f} "
                  f"{r['workers_maxrss_kib'] / 1024:>12.0f} "
                  f"{r['candidates']:>11,} {r['edges']:>7,}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
