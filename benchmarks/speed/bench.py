#!/usr/bin/env python3
"""Speed, memory and disk writes of `webdedup db` on a labelled corpus, beside its peers.

    python -m benchmarks.speed.bench                     # 20,000 real-length pages, minhash + peers
    python -m benchmarks.speed.bench --methods minhash,simhash,levenshtein --no-peers
    python -m benchmarks.speed.bench --lengths short      # the old corpus: 4-10 paragraphs a page
    python -m benchmarks.speed.bench --pages 1000000 --methods minhash --repeat 1 --growth
    python -m benchmarks.speed.bench --pages 200000 --nightly 2000   # full run, then a nightly run
    python -m benchmarks.speed.bench --ingest                      # ingest with extraction, 2 cores

The corpus comes from ``corpus/make_corpus.py`` (``--lengths real`` by default: each
synthesized page as long as a real text drawn at random, mean about 8.5 KB, a tail beyond
300 KB) and is built once and kept in ``--cache`` for later runs. Each run is a fresh copy
of it, run in its own process so that its peak memory, CPU time and the bytes it wrote
(``/proc/self/io``) can be read; pages/s and MB/s (of page text) are over the run's wall time
end to end (all phases, write-back included). The peers (``bench_peers.py``: a plain
rensa and a plain datasketch MinHash-LSH pipeline on word 5-gram shingles, their groups
written into a ``dup_group`` column of ``pages``, one core each) run on the same corpus in
the same invocation, interleaved with webdedup's runs, so that the ratios hold however fast
the machine is that day. So does ``floor``: reading every text and writing webdedup's
annotation columns onto every page row, which is what webdedup's output costs before any
deduplication (a lower bound of any pipeline that annotates ``pages`` with the same
durability, printed as a ratio of each peer too).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
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

from benchmarks.corpus import make_corpus

ROOT = Path(__file__).resolve().parents[2]



def peak_kib(pid: int | str = "self") -> int:
    """A process's own peak RSS in KiB (``VmHWM``). Not ``ru_maxrss``: Linux carries the
    spawning process's peak into it through exec (a bench that had just built its corpus
    gave every run its 756 MiB)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))


#: :func:`peak_kib` for the code of a child process (``python -c``), which cannot import this
#: script.
PEAK_KIB = "\n" + inspect.getsource(peak_kib) + "\n"

CHILD = PEAK_KIB + """
import json, os, resource, sys, time
from webdedup import Config, Deduplicator
t0, c0 = time.perf_counter(), time.process_time()
r = Deduplicator(method=sys.argv[2], config=Config()).run_on_db(sys.argv[1])
wall = time.perf_counter() - t0
io = dict(line.split(": ") for line in open("/proc/self/io").read().splitlines())
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "timings": r.timings, "pages": r.pages, "mode": r.mode,
                  "processed": r.processed, "near": r.near_duplicates, "groups": r.groups,
                  "candidates": r.candidates, "edges": r.edges,
                  "cpu": time.process_time() - c0 + children.ru_utime + children.ru_stime,
                  "write_bytes": int(io["write_bytes"]),
                  "maxrss_kib": peak_kib(), "worker_maxrss_kib": children.ru_maxrss}))
"""


def build_corpus(path: Path, pages: int, seed: int, lengths: str = "real",
                 sentences: str = "pool") -> None:
    summary = make_corpus.build_corpus(str(path), pages, seed, measure=False, lengths=lengths,
                                       sentences=sentences)
    print(f"  rows copied into id order in {summary['reorder_seconds']:.0f} s", flush=True)


def cached_corpus(cache: Path, pages: int, seed: int, lengths: str,
                  sentences: str = "pool") -> Path:
    """The corpus file for these parameters, built once and kept in ``cache`` (``sentences``:
    make_corpus's; a ``fresh`` corpus's name ends in ``-fresh``)."""
    cache.mkdir(parents=True, exist_ok=True)
    tail = "" if sentences == "pool" else f"-{sentences}"
    path = cache / f"corpus-{pages}-seed{seed}-{lengths}{tail}.sqlite"
    if not path.exists():
        t0 = time.perf_counter()
        print(f"building the corpus {path} (once) ...", flush=True)
        partial = path.with_suffix(".partial")
        build_corpus(partial, pages, seed, lengths, sentences)
        partial.rename(path)
        print(f"  built in {time.perf_counter() - t0:.0f} s", flush=True)
    return path


def text_bytes(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        (n,) = conn.execute("SELECT sum(length(CAST(content AS BLOB))) FROM pages").fetchone()
    return int(n or 0)


def state_bytes(db: Path) -> int:
    """Bytes of webdedup's own tables and indexes in ``db`` (SQLite's dbstat)."""
    with sqlite3.connect(db) as conn:
        (n,) = conn.execute(
            "SELECT sum(pgsize) FROM dbstat WHERE name LIKE '\\_webdedup%' ESCAPE '\\'"
        ).fetchone()
    return int(n or 0)


def state_tables(db: Path) -> dict[str, int]:
    """Bytes of each of webdedup's tables (its indexes counted with it), largest first."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT coalesce(m.tbl_name, d.name), sum(d.pgsize) FROM dbstat AS d "
            "LEFT JOIN sqlite_schema AS m ON m.name = d.name "
            "WHERE d.name LIKE '\\_webdedup%' ESCAPE '\\' GROUP BY 1 ORDER BY 2 DESC"
        ).fetchall()
    return {name: int(n) for name, n in rows}


def run_webdedup(corpus: Path, method: str, workdir: Path) -> dict:
    """One run on a fresh copy of the corpus, with its database's sizes."""
    from benchmarks.speed.bench_scale import device_written, run_devices

    db = workdir / f"bench-{method}.sqlite"
    shutil.copy(corpus, db)
    before = db.stat().st_size
    os.sync()  # (not timed) the copy written out: the device's count from here is the run's
    disk = device_written(*run_devices(workdir))
    result = run_child(db, method)
    os.sync()
    after = device_written(*run_devices(workdir))
    result["disk_bytes"] = None if disk is None or after is None else after - disk
    result["db_before"] = before
    result["db_after"] = db.stat().st_size
    result["state_bytes"] = state_bytes(db)
    result["state_tables"] = state_tables(db)
    db.unlink()
    return result


def run_peer(corpus: Path, peer: str, workdir: Path) -> dict:
    db = workdir / f"bench-{peer}.sqlite"
    shutil.copy(corpus, db)
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.speed.bench_peers", peer, str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    db.unlink()
    return json.loads(out.stdout.strip().splitlines()[-1])


def median(results: list[dict]) -> dict:
    ordered = sorted(results, key=lambda r: r["wall"])
    out = dict(ordered[len(ordered) // 2])
    out["all_walls"] = [round(r["wall"], 2) for r in results]
    return out


#: Compiles (or loads) webdedup's numba kernels, as a run's start does.
WARM = (
    "from webdedup.algorithms import bands; from webdedup.algorithms.text import compiled; "
    "compiled().warm_up(); bands.warm_up()"
)


def warm_kernels() -> None:
    """Compile webdedup's kernels before the timed runs, untimed: numba caches them by
    source file, so the first run in a new checkout compiled them (about 10 s) and counted it
    (on `fd9d546`, in a new worktree: runs of 14.19, 3.16 and 3.07 s)."""
    subprocess.run([sys.executable, "-c", WARM], cwd=ROOT, check=True)


def run_child(db: Path, method: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), method], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def available_peers(names: list[str]) -> list[str]:
    found = []
    for name in names:
        if name != "floor" and importlib.util.find_spec(name) is None:
            print(f"peer {name}: not installed (pip install -e '.[bench]'), skipped")
        else:
            found.append(name)
    return found


def subset(corpus: Path, pages: int, workdir: Path) -> Path:
    """A copy of the corpus with its first ``pages`` page ids only."""
    db = workdir / f"subset-{pages}.sqlite"
    shutil.copy(corpus, db)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM pages WHERE id > ?", (pages,))
    with sqlite3.connect(db) as conn:
        conn.execute("VACUUM")
    return db


def growth(corpus: Path, total: int, work: Path) -> None:
    """How time and memory grow with the number of pages (minhash, one run each)."""
    sizes = [n for n in (20_000, 100_000, 300_000) if n < total] + [total]
    print("growth (minhash, full run on the first N pages of the corpus)")
    print(
        f"{'pages':>10} {'wall s':>8} {'CPU s':>8} {'pages/s':>8} {'peak MiB':>9} "
        f"{'CPU vs first':>13} {'CPU/page vs first':>18} {'written/DB':>11} {'state/text':>11}"
    )
    first = first_cpu = None
    for n in sizes:
        db = corpus if n == total else subset(corpus, n, work)
        text = text_bytes(db)
        r = run_webdedup(db, "minhash", work)
        if db != corpus:
            db.unlink()
        per_page = r["cpu"] / n
        first = first or per_page
        first_cpu = first_cpu or r["cpu"]
        print(
            f"{n:>10,} {r['wall']:>8.1f} {r['cpu']:>8.1f} {n / r['wall']:>8,.0f} "
            f"{r['maxrss_kib'] / 1024:>9.0f} {r['cpu'] / first_cpu:>12.1f}x "
            f"{per_page / first:>17.2f}x "
            f"{r['write_bytes'] / r['db_after']:>10.2f}x {100 * r['state_bytes'] / text:>10.0f}%",
            flush=True,
        )
        print("    phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in r["timings"].items()))
        pairs = r["candidates"]
        print(f"    near-duplicate candidates {pairs:,} ({pairs / n:.2f} a page)")
        print(
            "    state, bytes a page: "
            + ", ".join(f"{k} {v / n:,.0f}" for k, v in list(r["state_tables"].items())[:4])
        )


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
    print(
        f"  full run      {full['wall']:>8.2f} s, {full['cpu']:>8.1f} CPU s  ({full['mode']}, "
        f"{full['processed']:,} pages)"
    )
    print(
        f"  nightly run   {night['wall']:>8.2f} s, {night['cpu']:>8.1f} CPU s  ({night['mode']}, "
        f"{night['processed']:,} pages recomputed)"
    )
    print(
        f"  nightly / full = {100 * night['wall'] / full['wall']:.1f}% of the wall time, "
        f"{100 * night['cpu'] / full['cpu']:.1f}% of the CPU time"
    )
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
        "--lengths",
        choices=("real", "short"),
        default="real",
        help="text lengths of the corpus (make_corpus.py --lengths; default: real)",
    )
    parser.add_argument(
        "--methods", default="minhash", help="Comma-separated methods (default: minhash)."
    )
    parser.add_argument(
        "--peers",
        default="rensa,datasketch,floor",
        help="Peer pipelines run beside webdedup (bench_peers.py); floor: read the "
        "texts and annotate every page row, nothing else.",
    )
    parser.add_argument("--no-peers", action="store_true", help="Run webdedup alone.")
    parser.add_argument(
        "--nightly",
        type=int,
        metavar="NEW",
        default=0,
        help="Measure a nightly run: a full run over --pages, then NEW pages added.",
    )
    parser.add_argument(
        "--growth",
        action="store_true",
        help="One minhash run each on the first 20k, 100k and 300k pages and on all of them "
        "(instead of the table above): how CPU, memory, bytes written and state grow.",
    )
    parser.add_argument("--repeat", type=int, default=3, help="Runs per method (median shown).")
    parser.add_argument("--ingest", action="store_true", help="Measure webdedup ingest instead.")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "webdedup-bench",
        help="Where corpora are built once and kept (default: ~/.cache/webdedup-bench).",
    )
    args = parser.parse_args(argv)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.ingest:
            bench_ingest(args.data, 2, work)
            return 0
        corpus = cached_corpus(args.cache, args.pages + args.nightly, args.seed, args.lengths)
        if args.nightly:
            for method in args.methods.split(","):
                nightly(corpus, args.pages, args.nightly, work, method)
            return 0
        if args.growth:  # its table has the run over every page too
            growth(corpus, args.pages, work)
            return 0
        text = text_bytes(corpus)
        mb = text / 1e6
        print(
            f"corpus: {args.pages:,} pages (make_corpus.py --lengths {args.lengths}, seed "
            f"{args.seed}), {mb:,.0f} MB of text (mean {text / args.pages / 1000:.1f} KB a page), "
            f"database {corpus.stat().st_size / 1e6:,.0f} MB"
        )
        methods = args.methods.split(",")
        peers = [] if args.no_peers else available_peers(args.peers.split(","))
        runs: dict[str, list[dict]] = {name: [] for name in methods + peers}
        if {"minhash", "simhash"} & set(methods):
            warm_kernels()
        for _ in range(args.repeat):  # interleaved: drift hits every contender alike
            for method in methods:
                runs[method].append(run_webdedup(corpus, method, work))
            for peer in peers:
                runs[peer].append(run_peer(corpus, peer, work))
        print(f"median of {args.repeat} runs each, interleaved (all wall times in the last column)")
        print(
            f"{'pipeline':<20} {'wall s':>7} {'CPU s':>7} {'pages/s':>8} {'MB/s':>6} "
            f"{'peak MiB':>9} {'groups':>7}  runs"
        )
        best = {name: median(rs) for name, rs in runs.items()}
        for name, r in best.items():
            label = f"webdedup {name}" if name in methods else f"{name} (peer)"
            if name == "floor":
                label = "floor (annotate)"
            peak = r["maxrss_kib"] / 1024
            extra = ""
            if "worker_maxrss_kib" in r:
                extra = f" (+{r['worker_maxrss_kib'] / 1024:.0f} a worker)"
            print(
                f"{label:<20} {r['wall']:>7.2f} {r['cpu']:>7.1f} {args.pages / r['wall']:>8,.0f} "
                f"{mb / r['wall']:>6.1f} {peak:>9.0f} {r['groups']:>7,}  {r['all_walls']}{extra}"
            )
        if "floor" in best:
            for peer in peers:
                if peer != "floor":
                    ratio = best["floor"]["wall"] / best[peer]["wall"]
                    print(
                        f"floor / {peer}: {ratio:.2f} x the peer's wall time (reading the texts "
                        "and annotating every page row, no deduplication)"
                    )
        for method in methods:
            r = best[method]
            for peer in peers:
                ratio = r["wall"] / best[peer]["wall"]
                whose = "the floor's" if peer == "floor" else "the peer's"
                print(f"webdedup {method} / {peer}: {ratio:.2f} x {whose} wall time")
            disk = r.get("disk_bytes")
            on_disk = (
                f"wrote {disk / 1e6:,.0f} MB to the disk = {disk / r['db_after']:.2f} x the "
                "database (as Linux counts the process's writes: "
                if disk is not None else "wrote (as Linux counts the process's writes) "
            )
            print(
                f"webdedup {method}: {on_disk}{r['write_bytes'] / 1e6:,.0f} MB = "
                f"{r['write_bytes'] / r['db_after']:.2f} x{')' if disk is not None else ''} "
                f"({r['db_before'] / 1e6:,.0f} MB before, {r['db_after'] / 1e6:,.0f} MB after); "
                f"its state {r['state_bytes'] / 1e6:,.0f} MB = "
                f"{100 * r['state_bytes'] / text:.0f}% of the text"
            )
            print(f"webdedup {method} (median run), by phase:")
            for phase, seconds in r["timings"].items():
                if phase.startswith("write_lock"):
                    continue
                rate = f"{args.pages / seconds:>9,.0f} pages/s" if seconds > 0 else ""
                print(f"  {phase:<14} {seconds:>7.2f} s {100 * seconds / r['wall']:>5.1f}% {rate}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
