#!/usr/bin/env python3
"""What ``--method vectors`` costs beside ``minhash``: wall time, CPU time and peak memory.

    python scripts/bench_vectors.py [--pages 20000] [--methods minhash,vectors]
    python scripts/bench_vectors.py --corpus corpus.sqlite   # an existing make_corpus.py file

Builds a labelled corpus with ``scripts/make_corpus.py`` (seed 1) unless one is given, then
runs each method once on a fresh copy in its own process and prints its wall time, its CPU
time (user + system: on a machine shared with other work the wall time grows, the CPU time
much less) and its peak resident memory, with the time of phase 4 (``near``).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import build_corpus

CHILD = """
import json, resource, sys
from webdedup import Deduplicator
r = Deduplicator(method=sys.argv[2]).run_on_db(sys.argv[1])
print(json.dumps({"timings": r.timings, "pages": r.pages, "near": r.near_duplicates,
                  "candidates": r.candidates, "edges": r.edges,
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def run(db: Path, method: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), method], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result | {"wall": wall, "cpu": cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--corpus", type=Path, default=None, help="an existing corpus file")
    parser.add_argument("--methods", default="minhash,vectors")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_vectors_") as tmp:
        work = Path(tmp)
        corpus = args.corpus
        if corpus is None:
            corpus = work / "corpus.sqlite"
            build_corpus(corpus, args.pages, 1)
        print(f"corpus: {corpus}")
        print(f"{'method':<10} {'pages':>8} {'wall s':>8} {'CPU s':>8} {'near s':>8} "
              f"{'peak MiB':>9} {'candidates':>11} {'edges':>7}")
        for method in args.methods.split(","):
            db = work / f"run-{method}.sqlite"
            shutil.copy(corpus, db)
            r = run(db, method)
            db.unlink()
            print(f"{method:<10} {r['pages']:>8,} {r['wall']:>8.1f} {r['cpu']:>8.1f} "
                  f"{r['timings'].get('near', 0.0):>8.1f} {r['maxrss_kib'] / 1024:>9.0f} "
                  f"{r['candidates']:>11,} {r['edges']:>7,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
