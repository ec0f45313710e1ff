#!/usr/bin/env python3
"""Where in a run does the main process's memory peak? A full run on an annotated database,
with the peak resident memory of every step and phase.

    python -m benchmarks.studies.step_peaks ANNOTATED.sqlite [--buckets] [--workers N]

``bench_scale`` gives the peak of each phase (phase 4 is one); this gives each step inside
them too (``near.own``, ``near.candidates``, ``near.verify``...): VmHWM is read and reset
(``/proc/self/clear_refs``) at every step's start and end, and each reading counts for every
step open then. A step's peak includes what the steps before it left allocated (Python keeps
some freed memory; glibc's heap is trimmed at each step's end since `d2ef961`), so a step's
own cost is its peak less the one before (``live_heap`` gives what each step holds). The run is
full (``--full``): it recomputes and verifies everything again, and rewrites only the
annotations that change (none, on a database its own last run annotated). Linux only.
``--buckets`` also gives the texts each of the verification's staged buckets held (what the
main process holds at once: ``webdedup.pipeline.staging``). Prints a line a step as it ends,
then the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from webdedup import Config, Deduplicator
from webdedup.pipeline import context, staging


def _hwm_then_reset() -> float:
    with open("/proc/self/status") as f:
        value = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM back to the current RSS
    return value / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, help="a database webdedup db annotated")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (default: webdedup's, by the crawl's size)")
    parser.add_argument("--buckets", action="store_true",
                        help="also the MiB of texts of each of the verification's buckets "
                             "(read by the workers)")
    args = parser.parse_args(argv)
    bucket_mib: list[float] = []
    real_buckets = staging.pair_buckets

    def logged(buckets: Iterator[tuple[int, int, staging.Located]]
               ) -> Iterator[tuple[int, int, staging.Located]]:
        for start, end, located in buckets:
            bucket_mib.append(located.size() / 2**20)  # (read by the workers)
            yield start, end, located

    @contextmanager
    def logged_buckets(*a: object, **k: object) -> Iterator[Iterator[tuple[int, int,
                                                                          staging.Located]]]:
        with real_buckets(*a, **k) as buckets:  # type: ignore[arg-type]
            yield logged(buckets)

    open_steps: list[str] = []
    peaks: dict[str, float] = {}
    real_step = context.RunContext.step.__wrapped__  # type: ignore[attr-defined]

    @contextmanager
    def step(self: context.RunContext, name: str) -> Iterator[None]:
        value = _hwm_then_reset()
        for s in open_steps:
            peaks[s] = max(peaks.get(s, 0.0), value)
        open_steps.append(name)
        try:
            with contextmanager(real_step)(self, name):
                yield
        finally:
            value = _hwm_then_reset()
            for s in open_steps:
                peaks[s] = max(peaks.get(s, 0.0), value)
            open_steps.pop()
            print(f"{time.strftime('%H:%M:%S')} {name}: peak {peaks[name]:.0f} MiB", flush=True)

    original = context.RunContext.step
    context.RunContext.step = step  # type: ignore[method-assign]
    if args.buckets:
        staging.pair_buckets = logged_buckets
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        config = Config() if args.workers is None else Config(workers=args.workers)
        result = Deduplicator(config=config).run_on_db(args.db, full=True)
    finally:
        context.RunContext.step = original  # type: ignore[method-assign]
        staging.pair_buckets = real_buckets
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "wall": time.perf_counter() - t0,
        "cpu": time.process_time() - c0 + children.ru_utime + children.ru_stime,
        "mode": result.mode, "candidates": result.candidates, "groups": result.groups,
        "worker_peak_mib": children.ru_maxrss / 1024,
        "step_peaks_mib": {k: round(v) for k, v in peaks.items()},
        "bucket_mib": ({"buckets": len(bucket_mib), "min": round(min(bucket_mib), 3),
                        "median": round(sorted(bucket_mib)[len(bucket_mib) // 2], 3),
                        "max": round(max(bucket_mib), 3)} if bucket_mib else None),
        "timings": result.timings,
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
