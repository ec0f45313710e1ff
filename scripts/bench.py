#!/usr/bin/env python3
"""Speed and memory of `webdedup db` per method on a labelled corpus (prints figures).

    python scripts/bench.py                      # 20,000 pages, every method
    python scripts/bench.py --pages 5000 --methods minhash
    python scripts/bench.py --pages 200000 --nightly 2000   # full run, then a nightly run
    python scripts/bench.py --pages 200000 --nightly 2000 --methods levenshtein
    python scripts/bench.py --ingest                         # ingest with extraction, 2 cores

Each run is a fresh copy of the corpus database, run in its own process so its peak memory
(max RSS) can be read; pages/s is pages over the run's wall time end to end (all phases,
write-back included). The share of each phase comes from the run's own timings.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, resource, sys, time
from webdedup import Deduplicator
t0 = time.perf_counter()
r = Deduplicator(method=sys.argv[2]).run_on_db(sys.argv[1])
wall = time.perf_counter() - t0
print(json.dumps({"wall": wall, "timings": r.timings, "pages": r.pages, "mode": r.mode,
                  "processed": r.processed, "near": r.near_duplicates,
                  "candidates": r.candidates, "edges": r.edges,
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def build_corpus(path: Path, pages: int, seed: int) -> None:
    spec = importlib.util.spec_from_file_location(
        "make_corpus", ROOT / "scripts" / "make_corpus.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_corpus"] = module
    spec.loader.exec_module(module)
    module.build_corpus(str(path), pages, seed, measure=False)


def run_method(corpus: Path, method: str, workdir: Path, repeat: int) -> dict:
    """The median run (by wall time) of ``repeat`` runs, each on a fresh copy of the corpus."""
    results = []
    for _ in range(repeat):
        db = workdir / f"bench-{method}.sqlite"
        shutil.copy(corpus, db)
        results.append(run_child(db, method))
        db.unlink()
    results.sort(key=lambda r: r["wall"])
    median = results[len(results) // 2]
    median["all_walls"] = [round(r["wall"], 2) for r in results]
    return median


def run_child(db: Path, method: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), method], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def nightly(corpus: Path, pages: int, new: int, work: Path, method: str) -> None:
    """A full run over the first ``pages`` pages, then one over ``new`` pages added after."""
    db = work / f"nightly-{method}.sqlite"
    shutil.copy(corpus, db)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM pages WHERE id > ?", (pages,))
    full = run_child(db, method)
    with sqlite3.connect(db) as conn:
        conn.execute("ATTACH DATABASE ? AS corpus", (str(corpus),))
        conn.execute(
            "INSERT INTO pages (id, url, title, content, datetime, crawled, category) "
            "SELECT id, url, title, content, datetime, crawled, category FROM corpus.pages "
            "WHERE id > ?",
            (pages,),
        )
        (dups,) = conn.execute(
            "SELECT count(*) FROM corpus.corpus_truth "
            "WHERE page_id > ? AND original_id IS NOT NULL",
            (pages,),
        ).fetchone()
    night = run_child(db, method)
    db.unlink()
    print(
        f"nightly run ({method}): {pages:,} pages, then {new:,} new pages "
        f"({dups:,} of them derived duplicates of other pages)"
    )
    print(f"  full run      {full['wall']:>8.2f} s  ({full['mode']}, {full['processed']:,} pages)")
    print(
        f"  nightly run   {night['wall']:>8.2f} s  ({night['mode']}, {night['processed']:,} pages "
        "recomputed)"
    )
    print(f"  nightly / full = {100 * night['wall'] / full['wall']:.1f}%")
    print("  nightly phases: " + ", ".join(f"{k} {v:.2f} s" for k, v in night["timings"].items()))


def bench_ingest(data: Path, workers: int, work: Path) -> None:
    """Pages/s of `webdedup ingest` (trafilatura extraction included) on real inputs."""
    from webdedup.ingest import ingest

    inputs = {
        "aut-2008-crawl.warc.gz": [data / "warc" / "aut-2008-crawl.warc.gz"],
        "html/ (aeb + aed)": [data / "html" / "aeb", data / "html" / "aed"],
    }
    print(f"ingest with text extraction, {workers} worker processes")
    print(f"{'input':<26} {'pages':>7} {'wall s':>8} {'pages/s':>8}")
    for name, paths in inputs.items():
        db = work / "ingest.sqlite"
        t0 = time.perf_counter()
        report = ingest(db, paths, workers=workers)
        wall = time.perf_counter() - t0
        print(f"{name:<26} {report.pages:>7,} {wall:>8.2f} {report.pages / wall:>8.1f}")
        db.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--methods",
        help="Comma-separated methods (default: all three; minhash alone with --nightly).",
    )
    parser.add_argument(
        "--nightly",
        type=int,
        metavar="NEW",
        default=0,
        help="Measure a nightly run: a full run over --pages, then NEW pages added.",
    )
    parser.add_argument("--repeat", type=int, default=3, help="Runs per method (median shown).")
    parser.add_argument("--ingest", action="store_true", help="Measure webdedup ingest instead.")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args(argv)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.ingest:
            bench_ingest(args.data, 2, work)
            return 0
        corpus = work / "corpus.sqlite"
        build_corpus(corpus, args.pages + args.nightly, args.seed)
        if args.nightly:
            for method in (args.methods or "minhash").split(","):
                nightly(corpus, args.pages, args.nightly, work, method)
            return 0
        print(
            f"corpus: {args.pages:,} pages (scripts/make_corpus.py, seed {args.seed}), "
            f"{corpus.stat().st_size / 1e6:.0f} MB"
        )
        print(f"median of {args.repeat} runs a method (all wall times in the last column)")
        print(
            f"{'method':<12} {'wall s':>8} {'pages/s':>9} {'peak MiB':>9} {'candidates':>11} "
            f"{'edges':>7} {'near':>6}  runs"
        )
        shares = None
        for method in (args.methods or "minhash,simhash,levenshtein").split(","):
            r = run_method(corpus, method, work, args.repeat)
            print(
                f"{method:<12} {r['wall']:>8.2f} {r['pages'] / r['wall']:>9,.0f} "
                f"{r['maxrss_kib'] / 1024:>9.0f} {r['candidates']:>11,} {r['edges']:>7,} "
                f"{r['near']:>6,}  {r['all_walls']}"
            )
            if method == "minhash":
                shares = r["timings"], r["wall"]
        if shares:
            timings, wall = shares
            print("minhash (median run), share of wall time by phase:")
            for phase, seconds in timings.items():
                print(f"  {phase:<12} {seconds:>7.2f} s  {100 * seconds / wall:>5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
