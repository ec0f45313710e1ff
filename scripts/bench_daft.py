#!/usr/bin/env python3
"""Daft's native runner against `webdedup db` on the same labelled corpus (prints figures).

    python scripts/bench_daft.py                       # 100,000 pages
    python scripts/bench_daft.py --pages 20000 100000  # several sizes: the cost growth
    python scripts/bench_daft.py --pages 1000000 --keep /big/disk

For each size: a corpus (scripts/make_corpus.py, seed 1), then, each in its own process so
its peak memory can be read (max RSS of the process and its children, ``RUSAGE_CHILDREN``):
`webdedup db` on a copy (a full run), `webdedup export --parquet`, `webdedup daft` (native
runner, all cores) and `webdedup db --assignments`. Prints wall time, pages/s and peak RSS
of each, checks that Daft's groups equal db's, and the growth of each step's time from one
size to the next (x2.0 per doubling is linear).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
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
OUTPUT = ("canonical_url", "content_hash", "exact_group_size", "dup_group", "dup_group_size",
          "canonical_id", "is_canonical", "dup_kind", "dup_score")

MEASURE = """
import resource, subprocess, sys, time, json
t0 = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - t0
if done.returncode:
    sys.stderr.write(done.stderr.decode()[-4000:])
    sys.exit(done.returncode)
print(json.dumps({"wall": wall,
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def measure(*cmd: str) -> dict[str, float]:
    """Wall time and peak RSS of ``cmd`` (run by a fresh process that only waits for it)."""
    env = os.environ | {"DAFT_PROGRESS_BAR": "0"}
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, env=env
    )
    if out.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def make_corpus(path: Path, pages: int) -> None:
    spec = importlib.util.spec_from_file_location("_make_corpus", ROOT / "scripts/make_corpus.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    mod.build_corpus(path, pages, seed=1, measure=False)


def annotations_db(path: Path) -> dict[int, tuple]:
    conn = sqlite3.connect(path)
    try:
        cols = ", ".join(OUTPUT)
        return {r[0]: tuple(r[1:]) for r in conn.execute(f"SELECT rowid, {cols} FROM pages")}
    finally:
        conn.close()


def annotations_daft(out: Path) -> dict[int, tuple]:
    import pyarrow.parquet as pq

    rows = pq.read_table(out / "pages", columns=["id", *OUTPUT]).to_pylist()
    return {r["id"]: tuple(r[c] for c in OUTPUT) for r in rows}


def bench(pages: int, work: Path) -> dict[str, dict[str, float]]:
    webdedup = str(Path(sys.executable).parent / "webdedup")
    corpus = work / f"corpus-{pages}.sqlite"
    if not corpus.exists():
        t0 = time.perf_counter()
        make_corpus(corpus, pages)
        print(f"  corpus of {pages:,} pages built in {time.perf_counter() - t0:.0f} s", flush=True)
    db = work / f"db-{pages}.sqlite"
    shutil.copy(corpus, db)
    parquet, out = work / f"pages-{pages}", work / f"assignments-{pages}"
    shutil.rmtree(parquet, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    assigned = work / f"assigned-{pages}.sqlite"
    shutil.copy(corpus, assigned)
    steps = {
        "db (SQLite, full run)": measure(webdedup, "db", str(db), "-q"),
        "export --parquet": measure(webdedup, "export", str(corpus), "--parquet", str(parquet),
                                    "-q"),
        "daft (native runner)": measure(webdedup, "daft", f"{parquet}/*.parquet", "--out",
                                        str(out), "-q"),
        "db --assignments": measure(webdedup, "db", str(assigned), "--assignments", str(out),
                                    "-q"),
    }
    same = annotations_daft(out) == annotations_db(db)
    same_db = annotations_db(assigned) == annotations_db(db)
    manifest = json.loads((out / "_webdedup_manifest.json").read_text())
    print(f"\n{pages:,} pages (Daft's groups equal db's: {same}; after --assignments: "
          f"{same_db})")
    print(f"  {'step':<24} {'wall s':>8} {'pages/s':>9} {'peak RSS MiB':>13}")
    for name, r in steps.items():
        print(f"  {name:<24} {r['wall']:>8.1f} {pages / r['wall']:>9,.0f} "
              f"{r['maxrss_kib'] / 1024:>13,.0f}")
    phases = ", ".join(f"{k} {v:.1f}" for k, v in manifest["result"]["timings"].items())
    print(f"  daft phases (s): {phases}", flush=True)
    for path in (db, assigned):
        path.unlink()
    shutil.rmtree(parquet)
    shutil.rmtree(out)
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[100_000])
    parser.add_argument("--keep", type=Path, default=None,
                        help="Directory for the corpora (kept between runs); default: a temp dir")
    args = parser.parse_args()
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench_daft."))
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    try:
        for n in sorted(args.pages):
            results[n] = bench(n, work)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    sizes = sorted(results)
    for small, big in zip(sizes, sizes[1:], strict=False):
        doublings = math.log2(big / small)
        print(f"\ncost growth {small:,} -> {big:,} pages (time ratio per doubling of pages):")
        for name in results[big]:
            ratio = results[big][name]["wall"] / results[small][name]["wall"]
            print(f"  {name:<24} x{ratio:.2f} in all, x{ratio ** (1 / doublings):.2f} a doubling")


if __name__ == "__main__":
    main()
