#!/usr/bin/env python3
"""What a run's worker processes hold in memory: each child's peak resident memory, split
into its own (anonymous) pages and the pages of mapped files.

    python -m benchmarks.studies.worker_memory CORPUS.sqlite [--work DIR] [--every 0.2]
                                               [--workers N]

A first run of ``webdedup db`` (minhash) on a copy of ``CORPUS`` (in ``--work``, deleted
afterwards), with a thread sampling ``/proc/PID/status`` of every child process of the run
every ``--every`` seconds: the peaks of ``VmRSS``, ``RssAnon`` (the process's own pages and
those it shares with the process that forked it) and ``RssFile`` (pages of mapped files:
the shared libraries, and the database where the readers map it: ``store/snapshot.py``).
``ru_maxrss`` of the children, what ``bench_scale`` prints as the largest worker, is the
peak of ``VmRSS``. The peaks are sampled: a spike shorter than ``--every`` can be missed.
Linux only. To measure another commit, run it from a checkout of that commit with
``PYTHONPATH`` set to the checkout (the run imports ``webdedup`` from there).
``--workers``: the run's (``Config.workers``; 0, the default, lets the run decide: a small
crawl has no workers).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import tempfile
import threading
import time
from pathlib import Path

from webdedup import Config, Deduplicator

FIELDS = ("VmRSS", "RssAnon", "RssFile")


def children_status(parent: int) -> dict[int, dict[str, int]]:
    """Each child process of ``parent``: its ``FIELDS`` in KiB."""
    out: dict[int, dict[str, int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as status:
                lines = status.read().splitlines()
        except OSError:  # (ended meanwhile)
            continue
        values = {}
        for line in lines:
            key, _, rest = line.partition(":")
            words = rest.split()
            if words:
                values[key] = words[0]
        if values.get("PPid") == str(parent):
            out[int(name)] = {k: int(values[k]) for k in FIELDS if k in values}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a crawl database (copied, never changed)")
    parser.add_argument("--work", type=Path, default=None, help="where the copy goes")
    parser.add_argument("--every", type=float, default=0.2, help="seconds between samples")
    parser.add_argument("--workers", type=int, default=0, help="the run's workers (0: its own)")
    args = parser.parse_args(argv)
    if not Path("/proc/self/status").exists():
        parser.error("this study reads /proc (Linux)")
    work = Path(tempfile.mkdtemp(dir=args.work))
    try:
        db = work / "run.sqlite"
        shutil.copy(args.corpus, db)
        peaks: dict[int, dict[str, int]] = {}
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                for pid, values in children_status(os.getpid()).items():
                    peak = peaks.setdefault(pid, {})
                    for k, v in values.items():
                        peak[k] = max(peak.get(k, 0), v)
                time.sleep(args.every)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        t0 = time.perf_counter()
        result = Deduplicator(method="minhash", config=Config(workers=args.workers)).run_on_db(db)
        wall = time.perf_counter() - t0
        done.set()
        sampler.join()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    maxrss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"{result.pages:,} pages, {result.groups:,} groups, {wall:.0f} s; the children's "
          f"ru_maxrss {maxrss / 1024:.0f} MiB")
    for pid, peak in sorted(peaks.items()):
        print(f"  child {pid}: peak " + ", ".join(
            f"{k} {peak.get(k, 0) / 1024:.0f} MiB" for k in FIELDS))
    print(json.dumps({"pages": result.pages, "groups": result.groups, "wall": wall,
                      "children_maxrss_kib": maxrss,
                      "children": {str(p): v for p, v in sorted(peaks.items())}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
