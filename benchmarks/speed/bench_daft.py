#!/usr/bin/env python3
"""Daft's native runner against `webdedup db` on the same labelled corpus (prints figures).

    python -m benchmarks.speed.bench_daft                              # 100,000 pages
    python -m benchmarks.speed.bench_daft --pages 100000 300000     # several sizes: the cost growth
    python -m benchmarks.speed.bench_daft --pages 1000000 --steps daft --work /big/disk
    python -m benchmarks.speed.bench_daft --pages 100000 --steps daft --ray-nodes 2  # on Ray

For each size: a corpus (corpus/make_corpus.py --lengths short, seed 1, built once and kept in
``--cache``, shared with bench.py), then, each in its own process so its CPU time and
peak memory can be read (max RSS of the process and its children, ``RUSAGE_CHILDREN``):
`webdedup db --whole-text` on a copy (a full run comparing whole texts, as Daft does),
`webdedup export --parquet`, `webdedup daft` (native runner, all cores) and `webdedup db
--assignments`. Prints wall time, CPU time (user + system, children included), the peak RSS
of the largest process and the peak PSS of the whole process tree (Daft's and Ray's children
included), checks that Daft's groups equal db's, and the growth of each step's CPU time and
memory from one size to the next (x2.0 per doubling is linear). On a shared machine quote the
CPU time: the wall time depends on the load.

With ``--ray-nodes N`` the ``daft`` step runs on a Ray cluster that the bench starts on
127.0.0.1 (benchmarks/speed/ray_cluster.py: a head and N worker nodes, each ``ray start`` with
its own ``--ray-cpus`` and ``--object-store-mib``) and stops; it prints each node's peak memory (the
PSS of its raylet, workers and, on the head, the GCS) beside the driver's.
"""

from __future__ import annotations

import argparse
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

from benchmarks.corpus import make_corpus

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ("canonical_url", "content_hash", "exact_group_size", "dup_group", "dup_group_size",
          "canonical_id", "is_canonical", "dup_kind", "dup_score")

MEASURE = """
import json, os, resource, subprocess, sys, tempfile, threading, time

def tree(root):
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out

def pss_kib(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0

err = tempfile.TemporaryFile()
t0 = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=err)
peak = 0
while proc.poll() is None:
    peak = max(peak, sum(pss_kib(p) for p in tree(proc.pid)))
    time.sleep(0.5)
wall = time.perf_counter() - t0
if proc.returncode:
    err.seek(0)
    sys.stderr.write(err.read().decode(errors="replace")[-4000:])
    sys.exit(proc.returncode)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                  "maxrss_kib": usage.ru_maxrss, "tree_pss_kib": peak}))
"""


def measure(*cmd: str) -> dict[str, float]:
    """Wall time, CPU time (user + system of ``cmd`` and the children it waited for), the
    peak RSS of its largest process, and the peak sum of the PSS of its whole process tree
    (sampled every 0.5 s: worker processes included, shared pages counted once), of ``cmd``
    run by a fresh process that only watches it."""
    env = os.environ | {"DAFT_PROGRESS_BAR": "0"}
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, env=env
    )
    if out.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def cached_corpus(cache: Path, pages: int) -> Path:
    """The corpus of ``pages`` pages (short lengths, seed 1), built once and kept in ``cache``
    (the name bench.py uses, so both share it); runs only ever read copies of it."""
    path = cache / f"corpus-{pages}-seed1-short.sqlite"
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    make_corpus.build_corpus(partial, pages, seed=1, measure=False, lengths="short")
    partial.rename(path)
    print(f"  corpus of {pages:,} pages built in {time.perf_counter() - t0:.0f} s", flush=True)
    return path


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


STEPS = ("db", "export", "daft", "assignments")
NAMES = {"db": "db (SQLite, full run)", "export": "export --parquet",
         "daft": "daft (native runner)", "assignments": "db --assignments"}


def on_ray(daft: list[str], root: Path, nodes: int, cpus: int, store_mib: int) -> dict:
    """``measure`` of the ``daft`` command on a local Ray cluster of a head and ``nodes``
    worker nodes, started here and stopped; with each node's peak memory (MiB)."""
    from benchmarks.speed import ray_cluster as mod
    short = Path(tempfile.mkdtemp(prefix="wd-ray.", dir="/tmp"))  # Ray's sockets: 107 bytes
    try:
        with mod.LocalCluster(short, workers=nodes, cpus=cpus, object_store_mib=store_mib) as c:
            os.environ.update(mod.ENV)
            result = measure(*daft, "--ray-address", c.address)
        result["nodes_mib"] = c.peaks_mib()
        result["cluster"] = {"workers": nodes, "cpus": cpus, "object_store_mib": store_mib}
    finally:
        shutil.rmtree(short, ignore_errors=True)
    return result


def bench(
    pages: int, cache: Path, work: Path, steps: tuple[str, ...], keep: bool = False,
    ray: tuple[int, int, int] | None = None,
) -> dict[str, dict]:
    webdedup = str(Path(sys.executable).parent / "webdedup")
    corpus = cached_corpus(cache, pages)
    db, assigned = work / f"db-{pages}.sqlite", work / f"assigned-{pages}.sqlite"
    parquet, out = work / f"pages-{pages}", work / f"assignments-{pages}"
    mine: list[Path] = []  # what this invocation made (kept with --keep, for a later compare)
    results: dict[str, dict] = {}
    try:
        if "db" in steps:
            mine += [db, _done(db)]
            _done(db).unlink(missing_ok=True)
            shutil.copy(corpus, db)
            results["db"] = measure(webdedup, "db", str(db), "-q", "--whole-text")
            _done(db).touch()
        if {"export", "daft", "assignments"} & set(steps):
            mine += [assigned, _done(assigned), parquet, out]
            _done(assigned).unlink(missing_ok=True)
            for d in (parquet, out):
                shutil.rmtree(d, ignore_errors=True)
            shutil.copy(corpus, assigned)  # the cached corpus itself is never opened
            results["export"] = measure(
                webdedup, "export", str(assigned), "--parquet", str(parquet), "-q"
            )
        if {"daft", "assignments"} & set(steps):
            daft = [webdedup, "daft", f"{parquet}/*.parquet", "--out", str(out), "-q"]
            if ray is None:
                results["daft"] = measure(*daft)
            else:
                results["daft"] = on_ray(daft, work / f"ray-{pages}", *ray)
            manifest = json.loads((out / "_webdedup_manifest.json").read_text())
            results["daft"]["phases"] = manifest["result"]["timings"]
        if "assignments" in steps:
            results["assignments"] = measure(
                webdedup, "db", str(assigned), "--assignments", str(out), "-q"
            )
            _done(assigned).touch()
        checks = []  # against the other steps' results, this invocation's or a kept one's
        done = (out / "_webdedup_manifest.json").exists()
        if _done(db).exists() and done and ("db" in results or "daft" in results):
            same = annotations_daft(out) == annotations_db(db)
            checks.append(f"Daft's groups equal db's: {same}")
        if _done(db).exists() and _done(assigned).exists() and ("db" in results or
                                                                "assignments" in results):
            same = annotations_db(assigned) == annotations_db(db)
            checks.append(f"after --assignments: {same}")
    finally:
        for path in [] if keep else mine:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    print(f"\n{pages:,} pages ({'; '.join(checks) or 'no comparison'})")
    print(f"  {'step':<24} {'wall s':>8} {'CPU s':>8} {'pages/CPU s':>12} "
          f"{'RSS MiB':>8} {'all MiB':>8}")
    for name, r in results.items():
        label = "daft (Ray, the driver)" if "nodes_mib" in r else NAMES[name]
        print(f"  {label:<24} {r['wall']:>8.1f} {r['cpu']:>8.1f} "
              f"{pages / r['cpu']:>12,.0f} {r['maxrss_kib'] / 1024:>8,.0f} "
              f"{r['tree_pss_kib'] / 1024:>8,.0f}")
    print("  (RSS: peak of the largest process; all: peak PSS of all its processes)")
    if "daft" in results:
        phases = ", ".join(f"{k} {v:.1f}" for k, v in results["daft"]["phases"].items())
        print(f"  daft phases (wall s): {phases}", flush=True)
    if "nodes_mib" in results.get("daft", {}):
        c = results["daft"]["cluster"]
        print(f"  Ray cluster (head + {c['workers']} workers, {c['cpus']} CPU and "
              f"{c['object_store_mib']} MiB object store each), peak PSS of each node: "
              + ", ".join(f"{k} {v:,.0f} MiB" for k, v in results["daft"]["nodes_mib"].items())
              + f"; the driver: {results['daft']['tree_pss_kib'] / 1024:,.0f} MiB", flush=True)
    return results


def _done(path: Path) -> Path:
    """The marker of a step that finished with ``path`` (another invocation may read it)."""
    return path.with_name(path.name + ".done")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[100_000])
    parser.add_argument(
        "--steps", nargs="+", choices=STEPS, default=list(STEPS),
        help="Steps to run (default: all; 'daft' needs 'export', which it runs anyway)",
    )
    parser.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache" / "webdedup-bench",
        help="Where corpora are built once and kept (default: ~/.cache/webdedup-bench)",
    )
    parser.add_argument("--work", type=Path, default=None,
                        help="Directory for the copies and Parquet files (default: a temp dir)")
    parser.add_argument("--json", type=Path, default=None, help="Also write the figures here")
    parser.add_argument(
        "--keep", action="store_true",
        help="Keep the databases and outputs in --work, so that an invocation with the other "
        "--steps compares its results with them (e.g. db and daft run at the same time)",
    )
    parser.add_argument(
        "--ray-nodes", type=int, default=None, metavar="N",
        help="Run the daft step on a Ray cluster of a head and N worker nodes started on "
        "127.0.0.1 (default: Daft's native runner)",
    )
    parser.add_argument("--ray-cpus", type=int, default=1, help="CPUs of each Ray node")
    parser.add_argument("--object-store-mib", type=int, default=512,
                        help="Object store of each Ray node (MiB)")
    args = parser.parse_args()
    ray = None if args.ray_nodes is None else (args.ray_nodes, args.ray_cpus,
                                               args.object_store_mib)
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.1f}")
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_daft."))
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    try:
        for n in sorted(args.pages):
            results[n] = bench(n, args.cache, work, tuple(args.steps), args.keep, ray)
            if args.json is not None:
                args.json.write_text(json.dumps(results, indent=2) + "\n")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    sizes = sorted(results)
    for small, big in zip(sizes, sizes[1:], strict=False):
        doublings = math.log2(big / small)
        print(f"\ncost growth {small:,} -> {big:,} pages (CPU time ratio; x2.00 a doubling "
              "is linear):")
        for name in results[big]:
            ratio = results[big][name]["cpu"] / results[small][name]["cpu"]
            mem = results[big][name]["tree_pss_kib"] / results[small][name]["tree_pss_kib"]
            print(f"  {NAMES[name]:<24} CPU x{ratio:.2f} in all, x{ratio ** (1 / doublings):.2f} "
                  f"a doubling; peak memory (all processes) x{mem:.2f}")


if __name__ == "__main__":
    main()
