#!/usr/bin/env python3
"""What ``webdedup export --topics K`` costs: wall time and peak memory, with and without.

    python scripts/bench_topics.py [--pages 20000] [--topics 20]

Builds an annotated database as ``scripts/bench_export.py`` does (one canonical in every
block of ten pages has three duplicates, six are singletons: 70 % of the pages are
canonical), with real page texts: the 3,780 texts of ``../shared/data/texts.jsonl.gz`` in
turn (so a million pages repeat each text about 265 times). Then it runs ``webdedup export
--json`` in a subprocess twice, without and with ``--topics K``, and prints each one's wall
time and peak resident memory.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_export import build

ROOT = Path(__file__).resolve().parents[1]


def add_texts(db: Path, data: Path) -> int:
    """Give every page a real text (the texts in turn); returns how many distinct texts."""
    with gzip.open(data / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("BEGIN")
    conn.execute("CREATE TEMP TABLE t (k INTEGER PRIMARY KEY, text TEXT)")
    conn.executemany("INSERT INTO temp.t VALUES (?, ?)", enumerate(texts))
    conn.execute(
        "UPDATE pages SET content = (SELECT text FROM temp.t WHERE k = pages.id % ?)",
        (len(texts),),
    )
    conn.execute("COMMIT")
    conn.close()
    return len(texts)


#: Runs the CLI and prints its own peak RSS (KiB) as the last line of stderr.
CHILD = """
import resource, sys
from webdedup.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
finally:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def export(db: Path, out: Path, topics: int | None) -> tuple[float, float]:
    """Run ``webdedup export`` in a subprocess: (wall seconds, its peak RSS in MiB)."""
    cmd = [sys.executable, "-c", CHILD, "export", str(db), "--json", str(out), "--quiet"]
    if topics:
        cmd += ["--topics", str(topics)]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, check=True, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    return wall, int(done.stderr.strip().splitlines()[-1]) / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_topics_") as tmp:
        work = Path(tmp)
        db = work / "bench.sqlite"
        built = build(db, args.pages)
        add_texts(db, args.data)
        canonical = sqlite3.connect(db).execute(
            "SELECT count(*) FROM pages WHERE is_canonical = 1"
        ).fetchone()[0]
        print(f"built {args.pages:,} annotated pages ({canonical:,} canonical) in {built:.1f} s")
        wall, peak = export(db, work / "plain.json", None)
        print(f"export --json:               {wall:8.1f} s, peak RSS {peak:6.0f} MiB")
        wall_t, peak_t = export(db, work / "topics.json", args.topics)
        report = json.loads((work / "topics.json").read_text(encoding="utf-8"))
        sizes = [c["size"] for c in report["topic_clusters"]]
        print(
            f"export --json --topics {args.topics:<4} {wall_t:8.1f} s, peak RSS {peak_t:6.0f} MiB,"
            f" {len(sizes)} clusters, sizes "
            f"{sizes[:5]}{'...' if len(sizes) > 5 else ''}"
        )
        print(f"topics cost: {wall_t - wall:.1f} s, {(wall_t - wall) / canonical * 1e6:.0f} µs "
              "a canonical page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
