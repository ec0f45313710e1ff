#!/usr/bin/env python3
"""Does ``--strip-segments`` help on real site templates? (README, "Repeated segments")

Builds a crawl from the real html/aed news pages (``fixtures/aed-template-texts.jsonl.gz``:
each of about 210 sites has two different articles, each with the site's real header and
footer text around it):

- ``s/a1`` and ``s/a2``: the site's two articles in its own template. Different stories in one
  template: they must **never** be near-duplicates (the same-template trap);
- ``t/syndicated-s``: the first article of site ``s`` in the template of the next site ``t``
  (one article under two templates, as a syndicated copy is): it **should** be a
  near-duplicate of ``s/a1``.

So every host has three pages and its template lines are on all three. The script runs
webdedup (minhash, defaults) without and with ``strip_segments`` and prints, for each, the
false merges among the same-template pairs, the syndicated pairs found, and the CPU time of
the run::

    python -m benchmarks.studies.measure_segments [--min-pages 3] [--json]

``--cost DB`` measures instead what segments cost on a corpus (e.g. the 20,000 real-length
pages of ``speed/bench.py``, ``~/.cache/webdedup-bench/corpus-20000-seed1-real.sqlite``):
the median CPU time (this process's children: the run and its workers) of full ``webdedup db``
runs on fresh copies: by default, with ``--count-segments`` and with ``--strip-segments``;
with ``--baseline SRC`` also of the webdedup source tree SRC (e.g. a checkout from before
segments were counted), as ratios, beside each kind's median wall time and the peak RSS of
its largest process (the run or one of its workers). Each run is also reported on stderr as
it ends, with its phases. ``--runs`` picks some of the kinds (a 1,000,000-page run takes a
while)::

    python -m benchmarks.studies.measure_segments --cost CORPUS.sqlite [--baseline SRC] [--repeat 3]
    python -m benchmarks.studies.measure_segments --cost corpus-1000000-seed1-short.sqlite \
        --repeat 1
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "aed-template-texts.jsonl.gz"


def _page(row: dict, body: str) -> str:
    return "\n".join(x for x in (row["header"], row["title"], body, row["footer"]) if x)


def build(path: Path) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Write the crawl; returns (same-template pairs, syndicated pairs) as page ids."""
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    sites: dict[str, list[dict]] = {}
    for row in rows:
        sites.setdefault(row["site"], []).append(row)
    pairs = [sorted(v, key=lambda r: r["key"]) for _, v in sorted(sites.items()) if len(v) == 2]
    pages: list[tuple[str, str]] = []
    same, syndicated = [], []
    for i, (a1, a2) in enumerate(pairs):
        host = f"site{i}.example"
        pages += [(f"https://{host}/a1", _page(a1, a1["body"])),
                  (f"https://{host}/a2", _page(a2, a2["body"]))]
        same.append((len(pages) - 1, len(pages)))
    for i, (a1, _) in enumerate(pairs):  # site i's first article in site i+1's template
        j = (i + 1) % len(pairs)
        t = pairs[j][0]
        pages.append((f"https://site{j}.example/syndicated-{i}", _page(t, a1["body"])))
        syndicated.append((2 * i + 1, len(pages)))
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
    conn.executemany("INSERT INTO pages (url, content) VALUES (?, ?)", pages)
    conn.commit()
    conn.close()
    return same, syndicated


def score(path: Path, same: list, syndicated: list) -> dict[str, int]:
    conn = sqlite3.connect(path)
    group = dict(conn.execute("SELECT id, dup_group FROM pages"))
    conn.close()

    def together(a: int, b: int) -> bool:
        return group[a] is not None and group[a] == group[b]

    return {
        "same_template_pairs": len(same),
        "same_template_merged": sum(together(a, b) for a, b in same),
        "syndicated_pairs": len(syndicated),
        "syndicated_found": sum(together(a, b) for a, b in syndicated),
    }


def _run(db: Path, tmp: Path, flags: list[str], src: Path) -> dict:
    """One full ``webdedup db`` on a fresh copy of ``db`` (code from ``src``): its CPU
    seconds (user + system of the run and its worker processes), wall seconds, peak RSS of
    its largest process (MiB, ``wait4``) and the run's phase timings."""
    copy = tmp / "copy.sqlite"
    shutil.copy(db, copy)
    env = dict(os.environ, PYTHONPATH=str(src))
    with open(tmp / "out.json", "w+", encoding="utf-8") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", "from webdedup.cli import main; main()", "db", str(copy),
             "--quiet", "--json", *flags],
            stdout=out,
            env=env,
            cwd=tmp,  # not the current directory: it may hold another webdedup package
        )
        _, status, usage = os.wait4(proc.pid, 0)  # this run's own rusage, workers included
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        if proc.returncode:
            raise subprocess.CalledProcessError(proc.returncode, proc.args)
        out.seek(0)
        result = json.load(out)
    copy.unlink()
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall,
            "peak_mib": usage.ru_maxrss / 1024, "timings": result.get("timings", {}),
            "pages": result.get("pages"), "groups": result.get("groups")}


#: The kinds of run ``--cost`` compares (``--runs`` picks some, in this order).
RUNS = ("default", "--count-segments", "--strip-segments")


def cost(db: Path, baseline: Path | None, min_pages: int, repeat: int = 1,
         runs: tuple[str, ...] = RUNS) -> dict[str, dict[str, float]]:
    """The median CPU seconds, wall seconds and peak RSS of each kind of run (interleaved,
    ``repeat`` times each); every run is reported on stderr as it ends."""
    flags = {"default": [], "--count-segments": ["--count-segments"],
             "--strip-segments": ["--strip-segments", "--set", f"segment_min_pages={min_pages}"]}
    todo = {name: (ROOT, flags[name]) for name in runs}
    if baseline is not None:
        todo = {"baseline": (baseline, [])} | todo
    found: dict[str, list[dict]] = {name: [] for name in todo}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeat):
            for name, (src, extra) in todo.items():
                r = _run(db, Path(tmp), extra, src)
                found[name].append(r)
                phases = ", ".join(f"{k} {v:.0f}" for k, v in r["timings"].items()
                                   if isinstance(v, (int, float)) and v >= 1)
                print(f"  run {i + 1}/{repeat} {name}: {r['cpu']:.1f} s CPU, {r['wall']:.1f} s "
                      f"wall, peak {r['peak_mib']:.0f} MiB; {r['pages']:,} pages, "
                      f"{r['groups']:,} groups; phases (s): {phases}", file=sys.stderr,
                      flush=True)
    return {name: {key: round(statistics.median(r[key] for r in rs), 2)
                   for key in ("cpu", "wall", "peak_mib")} for name, rs in found.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-pages", type=int, default=3, help="segment_min_pages [3]")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cost", type=Path, metavar="DB", help="measure the CPU cost on DB")
    ap.add_argument("--baseline", type=Path, metavar="SRC", help="with --cost: also this tree")
    ap.add_argument("--repeat", type=int, default=3, help="with --cost: runs of each [3]")
    ap.add_argument("--runs", default=",".join(RUNS),
                    help=f"with --cost: which runs, comma-separated [{','.join(RUNS)}]")
    args = ap.parse_args(argv)
    if args.cost is not None:
        runs = tuple(r.strip() for r in args.runs.split(",") if r.strip())
        if not runs or set(runs) - set(RUNS):
            ap.error(f"--runs: choose among {', '.join(RUNS)}")
        found = cost(args.cost, args.baseline, args.min_pages, args.repeat, runs)
        first = next(iter(found.values()))["cpu"]
        for name, r in found.items():
            print(f"{name:<18}{r['cpu']:>9.2f} s CPU  {r['cpu'] / first:>6.2f} x"
                  f"{r['wall']:>10.1f} s wall{r['peak_mib']:>7.0f} MiB peak (largest process)")
        return 0
    from webdedup import Config, Deduplicator

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, options in (
            ("keep", {}),
            ("strip", {"strip_segments": True, "segment_min_pages": args.min_pages}),
        ):
            path = Path(tmp) / f"{name}.sqlite"
            same, syndicated = build(path)
            cpu = time.process_time()
            Deduplicator(workers=1, config=Config(), **options).run_on_db(str(path))
            out[name] = score(path, same, syndicated) | {
                "cpu_seconds": round(time.process_time() - cpu, 2)
            }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{'run':<8}{'same-template merged':>22}{'syndicated found':>18}{'CPU s':>8}")
    for name, r in out.items():
        print(f"{name:<8}{r['same_template_merged']:>12} of {r['same_template_pairs']:<6}"
              f"{r['syndicated_found']:>8} of {r['syndicated_pairs']:<6}{r['cpu_seconds']:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
