"""What language detection costs: per page, and in a whole ``webdedup db`` run.

    python -m benchmarks.speed.bench_language CORPUS.sqlite [--pages 20000] [--repeat 3] [--no-run]
    python -m benchmarks.speed.bench_language ~/.cache/webdedup-bench/corpus-20000-seed1-real.sqlite

CORPUS.sqlite is made first when missing (``corpus/make_corpus.py --pages N --seed 1``: the
real texts of ../shared/data and pages derived from them); it is only read (each run is on a
copy). Prints

1. unless ``--no-alone``: detection alone: ``language.detect`` over every page's text (read
   from the corpus as it goes), in this process or, with ``--jobs J``, split over J processes
   (wall and CPU seconds — user + system of this process and the J processes, since a shared
   machine's wall time says little —, CPU ms a page and the languages found);
2. unless ``--no-run``: the same command line twice, ``webdedup db COPY -q`` and ``webdedup
   db COPY -q --detect-language``, each on a fresh copy of the corpus, in a process of its own
   (its CPU is user + system of that process and of its worker processes, Python's start and
   imports included), alternated ``--repeat`` times so that both see the same machine; then
   the median CPU seconds of each and their ratio. ``--workers W`` passes ``--workers W``
   (default: webdedup's own, all cores).
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from webdedup.algorithms import language

ROOT = Path(__file__).resolve().parents[2]


def _cpu() -> float:
    """CPU seconds (user + system) of this process and of its children that ended."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + done.ru_utime + done.ru_stime


def detect_range(corpus: str, low: int, high: int) -> tuple[int, int, Counter]:
    """Detect the language of the pages with ``low <= rowid < high``: (pages, characters,
    languages found). Texts are read one by one, so memory does not grow with the corpus."""
    found: Counter = Counter()
    pages = chars = 0
    conn = sqlite3.connect(f"file:{corpus}?mode=ro", uri=True)
    try:
        for (text,) in conn.execute(
            "SELECT content FROM pages WHERE rowid >= ? AND rowid < ? ORDER BY rowid", (low, high)
        ):
            pages += 1
            chars += len(text or "")
            found[language.detect(text).lang] += 1
    finally:
        conn.close()
    return pages, chars, found


def detect_alone(corpus: Path, jobs: int) -> None:
    with sqlite3.connect(f"file:{corpus}?mode=ro", uri=True) as conn:
        low, high = conn.execute("SELECT min(rowid), max(rowid) FROM pages").fetchone()
    t0 = time.perf_counter()
    language.detect("warm up: load the model once")
    print(f"model load: {time.perf_counter() - t0:.2f} s (once per process)", flush=True)
    t0, c0 = time.perf_counter(), _cpu()
    if jobs <= 1:
        parts = [detect_range(str(corpus), low, high + 1)]
    else:  # forked after the warm-up: each process has the model already
        step = (high + 1 - low + jobs - 1) // jobs
        ranges = [(str(corpus), a, min(a + step, high + 1)) for a in range(low, high + 1, step)]
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = pool.starmap(detect_range, ranges)
            pool.close()
            pool.join()  # the workers end before the CPU is read, so their time counts
    spent, cpu = time.perf_counter() - t0, _cpu() - c0
    n = max(1, sum(p[0] for p in parts))
    chars = sum(p[1] for p in parts)
    found: Counter = sum((p[2] for p in parts), Counter())
    print(f"{n:,} pages, {chars / n:,.0f} characters a page")
    print(f"detection alone: {spent:.1f} s wall, {cpu:.1f} s CPU"
          f"{f' over {jobs} processes' if jobs > 1 else ''}; {1000 * cpu / n:.2f} ms CPU "
          f"a page (one core); languages: {dict(found.most_common(8))}")
    print(f"at that rate 1,000,000 pages take {cpu / n * 1e6 / 60:.0f} CPU minutes "
          "(phase 1 spreads them over the workers)", flush=True)


def cli_run(corpus: Path, detect: bool, workers: int | None) -> tuple[float, float, str]:
    """One ``webdedup db`` run on a fresh copy of ``corpus``, in a process of its own:
    (CPU seconds of it and its workers, wall seconds, its summary's first line)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "c.sqlite"
        shutil.copy(corpus, copy)
        cmd = [sys.executable, "-c", "from webdedup.cli import main; main()", "db", str(copy)]
        cmd += ["--detect-language"] if detect else []
        cmd += ["--workers", str(workers)] if workers else []
        t0, c0 = time.perf_counter(), _cpu()
        done = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
        return _cpu() - c0, time.perf_counter() - t0, done.stdout.strip().splitlines()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--no-run", action="store_true", help="only time detection alone")
    ap.add_argument("--no-alone", action="store_true", help="only the full runs")
    ap.add_argument("--jobs", type=int, default=1, help="processes for detection alone [1]")
    ap.add_argument("--workers", type=int, default=0, help="--workers of the runs [webdedup's]")
    ap.add_argument("--repeat", type=int, default=3, help="pairs of runs [3]")
    args = ap.parse_args()
    corpus = Path(args.corpus).expanduser()
    if not corpus.exists():
        subprocess.run(
            [sys.executable, "-m", "benchmarks.corpus.make_corpus", str(corpus),
             "--pages", str(args.pages), "--seed", "1", "--no-measure"],
            check=True, cwd=ROOT,
        )
    if not args.no_alone:
        detect_alone(corpus, args.jobs)
    if args.no_run:
        return
    cpu: dict[bool, list[float]] = {False: [], True: []}
    for i in range(args.repeat):
        for detect in (False, True) if i % 2 == 0 else (True, False):
            spent, wall, summary = cli_run(corpus, detect, args.workers or None)
            cpu[detect].append(spent)
            name = "webdedup db --detect-language" if detect else "webdedup db"
            print(f"run {i + 1}/{args.repeat} {name}: {spent:.1f} s CPU, {wall:.1f} s wall; "
                  f"{summary}", flush=True)
    plain, detecting = statistics.median(cpu[False]), statistics.median(cpu[True])
    print(f"median CPU: {plain:.1f} s plain, {detecting:.1f} s with --detect-language: "
          f"{detecting / plain:.2f} x")


if __name__ == "__main__":
    main()
