#!/usr/bin/env python3
"""Measure ``Deduplicator.run_on_list`` on the pages of a labelled corpus.

``run_on_list`` runs the same pipeline as ``run_on_db`` on an in-memory SQLite database.
This prints its wall time (the median of ``--repeat`` runs) for the first ``--pages`` pages
of a corpus made by ``corpus/make_corpus.py``. Run it with another checkout on
``PYTHONPATH`` to compare two versions on the same corpus::

    python -m benchmarks.corpus.make_corpus /tmp/c10k.sqlite --pages 10000 --seed 1 --no-measure
    python -m benchmarks.speed.bench_run_on_list /tmp/c10k.sqlite
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import time

import webdedup
from webdedup import Config, Deduplicator


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", help="an SQLite corpus from corpus/make_corpus.py")
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    conn = sqlite3.connect(args.corpus)
    cols = [r[1] for r in conn.execute("PRAGMA table_info(pages)")]
    keep = [c for c in ("url", "content", "title", "datetime", "crawled", "category") if c in cols]
    rows = conn.execute(
        f"SELECT rowid, {', '.join(keep)} FROM pages ORDER BY rowid LIMIT ?", (args.pages,)
    ).fetchall()
    pages = [dict(zip(("id", *keep), r, strict=True)) for r in rows]
    chars = sum(len(p.get("content") or "") for p in pages)
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        out = Deduplicator(config=Config()).run_on_list(pages)
        times.append(time.perf_counter() - t0)
    groups = len({r["dup_group"] for r in out if r["dup_group"] is not None})
    wall = statistics.median(times)
    print(
        f"webdedup {webdedup.__file__}: run_on_list over {len(pages):,} pages "
        f"({chars / len(pages) / 1000:.1f} KB of text a page): median {wall:.2f} s of "
        f"{', '.join(f'{t:.2f}' for t in times)}; {groups:,} groups"
    )


if __name__ == "__main__":
    main()
