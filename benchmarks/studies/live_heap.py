#!/usr/bin/env python3
"""What a run holds, step by step: the live heap (memory allocated and not yet freed) of the
main process at its largest in each step and phase, and where it was allocated.

    python -m benchmarks.studies.live_heap DB [--out FILE.bin] [--top N] [--full]

The run is traced by memray (``pip install memray``; Linux and macOS) in this process: every
allocation and free, with the Python stack that made it (its worker processes are not
traced). ``bench_scale`` and ``step_peaks`` give the resident memory, which also counts what
the process freed and the C library kept; the live heap is what the run's own data takes. A
step's sites are named by the first frame of the ``webdedup`` package in the allocation's
stack (SQLite's page cache and sorters are named by the statement that made them grow;
Python's small objects by what first filled their arena). ``--full`` makes the run full on a
database a run already annotated (as ``step_peaks``); the traced run is slower than an
untraced one. Prints the figures as JSON on the last line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from webdedup import Config, Deduplicator
from webdedup.pipeline import context


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--out", type=Path, help="keep memray's trace in this file")
    parser.add_argument("--top", type=int, default=8, help="sites listed a step")
    parser.add_argument("--full", action="store_true", help="a full run (webdedup db --full)")
    parser.add_argument("--workers", type=int)
    args = parser.parse_args(argv)
    import memray

    with tempfile.TemporaryDirectory() as scratch:
        trace = args.out or Path(scratch) / "run.bin"
        trace.unlink(missing_ok=True)
        spans: list[tuple[str, float, float]] = []  # (step, start, end) in seconds from t0
        real_step = context.RunContext.step.__wrapped__  # type: ignore[attr-defined]
        t0 = time.time()

        @contextmanager
        def step(self: context.RunContext, name: str) -> Iterator[None]:
            start = time.time() - t0
            try:
                with contextmanager(real_step)(self, name):
                    yield
            finally:
                spans.append((name, start, time.time() - t0))

        original = context.RunContext.step
        context.RunContext.step = step  # type: ignore[method-assign]
        try:
            config = Config() if args.workers is None else Config(workers=args.workers)
            with memray.Tracker(trace):
                t0 = time.time()
                result = Deduplicator(config=config).run_on_db(args.db, full=args.full)
        finally:
            context.RunContext.step = original  # type: ignore[method-assign]
        figures = live_by_step(memray.FileReader(trace), spans, args.top)
    for name, step_figures in figures.items():
        print(f"{name}: live heap at most {step_figures['live_mib']} MiB")
        for site, mib in step_figures["sites_mib"].items():
            print(f"    {mib:8.1f}  {site}")
    print(json.dumps({"mode": result.mode, "pages": result.pages, "steps": figures}))
    return 0


def live_by_step(
    reader: Any, spans: list[tuple[str, float, float]], top: int
) -> dict[str, dict[str, Any]]:
    """For each step (in the order they start): the live heap at its largest snapshot inside
    it (MiB), and the ``top`` sites of what was live then."""
    snapshots = list(reader.get_memory_snapshots())
    if not snapshots:
        return {}
    start_ms = reader.metadata.start_time.timestamp() * 1000
    widest: dict[str, tuple[int, int]] = {}  # step -> (heap, snapshot index)
    for name, begin, end in sorted(spans, key=lambda s: s[1]):
        for index, snap in enumerate(snapshots):
            at = (snap.time - start_ms) / 1000
            if begin <= at <= end and snap.heap > widest.get(name, (-1, 0))[0]:
                widest[name] = (snap.heap, index)
    records, _ = reader.get_temporal_high_water_mark_allocation_records(merge_threads=True)
    records = list(records)
    out: dict[str, dict[str, Any]] = {}
    for name, (heap, index) in widest.items():
        sites: Counter[str] = Counter()
        for record in records:
            live = sum(
                interval.n_bytes for interval in record.intervals
                if interval.allocated_before_snapshot <= index
                and (interval.deallocated_before_snapshot is None
                     or interval.deallocated_before_snapshot > index)
            )
            if live:
                sites[_site(record.stack_trace(max_stacks=64))] += live
        out[name] = {
            "live_mib": round(heap / 2**20),
            "sites_mib": {s: round(b / 2**20, 1) for s, b in sites.most_common(top)},
        }
    return out


def _site(stack: list[tuple[str, str, int]]) -> str:
    """The first frame of the package in a stack (innermost first), else the innermost."""
    for function, filename, line in stack:
        if "/webdedup/" in filename:
            return f"{filename.rsplit('/webdedup/', 1)[1]}:{line} {function}"
    if stack:
        function, filename, line = stack[0]
        return f"{Path(filename).name}:{line} {function}"
    return "(no Python stack)"


if __name__ == "__main__":
    raise SystemExit(main())
