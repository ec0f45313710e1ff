#!/usr/bin/env python3
"""What ``webdedup export --topics K`` costs: wall time and peak memory, with and without.

    python -m benchmarks.speed.bench_topics [--pages 20000] [--topics 20] [--workdir DIR]

Builds an annotated database as ``bench_export.py`` does (one canonical in every
block of ten pages has three duplicates, six are singletons: 70 % of the pages are
canonical), with real page texts: the 3,780 texts of ``../shared/data/texts.jsonl.gz`` in
turn (so a million pages repeat each text about 265 times). Then it runs ``webdedup export
--json`` in a subprocess twice, without and with ``--topics K``, and prints each one's wall
time, CPU time (user + system: the figure to read on a shared machine) and peak resident
memory. ``--workdir DIR`` puts the database there (it needs about 8.5 KB a page: 8.5 GB for
a million pages) instead of the system's temporary directory.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.speed.bench import PEAK_KIB
from benchmarks.speed.bench_export import build

ROOT = Path(__file__).resolve().parents[2]


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


def cluster_sizes(report: Path, tail: int = 1 << 20) -> list[int]:
    """The sizes of the report's ``topic_clusters``, its last list, read from the file's end
    (a 1,000,000-page report is not loaded whole: its documents come first)."""
    key = b'"topic_clusters": '
    with open(report, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        while True:
            fh.seek(max(0, size - tail))
            data = fh.read()
            at = data.rfind(key)
            if at >= 0:
                text = data[at + len(key) :].decode("utf-8")
                clusters, _ = json.JSONDecoder().raw_decode(text)
                return [c["size"] for c in clusters]
            if tail >= size:
                raise ValueError(f"{report} has no topic_clusters")
            tail *= 4


#: Runs the CLI and prints its own peak RSS (KiB) as the last line of stderr.
CHILD = PEAK_KIB + """
import sys
from webdedup.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
finally:
    print(peak_kib(), file=sys.stderr)
"""


def export(db: Path, out: Path, topics: int | None) -> tuple[float, float, float]:
    """Run ``webdedup export`` in a subprocess: (wall seconds, CPU seconds — user + system —,
    its peak RSS in MiB)."""
    cmd = [sys.executable, "-c", CHILD, "export", str(db), "--json", str(out), "--quiet"]
    if topics:
        cmd += ["--topics", str(topics)]
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)  # this export's own CPU time
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().strip().splitlines()
    if proc.returncode:
        sys.stderr.write("\n".join(lines) + "\n")
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return wall, usage.ru_utime + usage.ru_stime, int(lines[-1]) / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--workdir", type=Path, default=None, help="where the database goes")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_topics_", dir=args.workdir) as tmp:
        work = Path(tmp)
        db = work / "bench.sqlite"
        built = build(db, args.pages)
        add_texts(db, args.data)
        canonical = sqlite3.connect(db).execute(
            "SELECT count(*) FROM pages WHERE is_canonical = 1"
        ).fetchone()[0]
        print(f"built {args.pages:,} annotated pages ({canonical:,} canonical) in {built:.1f} s")
        wall, cpu, peak = export(db, work / "plain.json", None)
        print(f"export --json:               {wall:8.1f} s, {cpu:8.1f} s CPU, "
              f"peak RSS {peak:6.0f} MiB", flush=True)
        (work / "plain.json").unlink()
        wall_t, cpu_t, peak_t = export(db, work / "topics.json", args.topics)
        sizes = cluster_sizes(work / "topics.json")
        print(
            f"export --json --topics {args.topics:<4} {wall_t:8.1f} s, {cpu_t:8.1f} s CPU, "
            f"peak RSS {peak_t:6.0f} MiB, {len(sizes)} clusters, sizes "
            f"{sizes[:5]}{'...' if len(sizes) > 5 else ''}"
        )
        print(f"topics cost: {wall_t - wall:.1f} s wall, {cpu_t - cpu:.1f} s CPU, "
              f"{(cpu_t - cpu) / canonical * 1e6:.0f} µs CPU a canonical page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
