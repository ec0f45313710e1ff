"""What language detection costs: per page, and in a whole ``webdedup db`` run.

    python scripts/bench_language.py CORPUS.sqlite [--pages 20000] [--no-run]
    python scripts/bench_language.py corpus-1000000-seed1-short.sqlite --jobs 2 --workers 2

CORPUS.sqlite is made first when missing (``scripts/make_corpus.py --pages N --seed 1``: the
real texts of ../shared/data and pages derived from them); it is only read (each run is on a
copy). Prints

1. unless ``--no-alone``: detection alone: py3langid over every page's text (read from the
   corpus as it goes), in this process or, with ``--jobs J``, split over J processes (wall
   and CPU seconds — user + system of this process and the J processes, since a shared
   machine's wall time says little —, CPU ms a page and the languages found);
2. unless ``--no-run``: a full ``webdedup db`` run on a copy of the corpus with detection,
   and one with detection switched off in this process (``language.detect`` answering "no
   language"), so the difference is what detection adds. ``--workers W`` (default 1: in this
   process) runs them with W worker processes (forked, so the switch holds in them too); their
   CPU is counted with this process's. ``--runs with`` or ``--runs off`` makes only one of
   them (a 1,000,000-page run is long).
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webdedup import Config, Deduplicator  # noqa: E402
from webdedup.algorithms import language  # noqa: E402


def _cpu() -> float:
    """CPU seconds (user + system) of this process and of its children that ended."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + done.ru_utime + done.ru_stime


def _peak_mib() -> tuple[float, float]:
    """Peak RSS so far (MiB) of this process, and of the largest child that ended."""
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--no-run", action="store_true", help="only time detection alone")
    ap.add_argument("--no-alone", action="store_true", help="only the full runs")
    ap.add_argument("--jobs", type=int, default=1, help="processes for detection alone [1]")
    ap.add_argument("--workers", type=int, default=1, help="workers of the full runs [1]")
    ap.add_argument("--runs", default="with,off", help="full runs to make [with,off]")
    args = ap.parse_args()
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    if not runs or set(runs) - {"with", "off"}:
        ap.error("--runs: 'with', 'off' or both")
    corpus = Path(args.corpus)
    if not corpus.exists():
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "make_corpus.py"), str(corpus),
             "--pages", str(args.pages), "--seed", "1", "--no-measure"],
            check=True,
        )
    if not args.no_alone:
        detect_alone(corpus, args.jobs)
    if args.no_run:
        return
    timings = {}
    real_detect = language.detect
    for key, name in (("with", "with detection"), ("off", "detection off")):
        if key not in runs:
            continue
        language.detect = real_detect if name == "with detection" else (  # type: ignore
            lambda text: language.NONE
        )  # (and detect_language: the default run does not detect at all)
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "c.sqlite"
            shutil.copy(corpus, copy)
            t0, c0 = time.perf_counter(), _cpu()
            dedup = Deduplicator(workers=args.workers, detect_language=True, config=Config())
            result = dedup.run_on_db(copy, full=True)
            timings[name] = _cpu() - c0
            wall = time.perf_counter() - t0
            own, child = _peak_mib()
            workers = f", peak RSS so far {own:.0f} MiB"
            if args.workers > 1:
                workers += f" (+{child:.0f} MiB the largest worker)"
            print(f"webdedup db, {name}: {timings[name]:.1f} s CPU, {wall:.1f} s wall"
                  f"{workers}, {result.summary().splitlines()[0]}", flush=True)
    language.detect = real_detect
    if len(timings) == 2:
        extra = timings["with detection"] - timings["detection off"]
        print(f"detection adds {extra:.1f} s CPU to the run "
              f"({100 * extra / timings['detection off']:.0f} %)")


if __name__ == "__main__":
    main()
