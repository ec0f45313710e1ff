#!/usr/bin/env python3
"""Peak memory and time of phase 4's band collisions (``near.candidates``) over spilled band
columns, before and after the packed sort of 2026-12-04.

    python -m benchmarks.studies.band_memory                  # 10,000,000 rows, 37 bands
    python -m benchmarks.studies.band_memory --rows 1000000

Synthetic 32-bit band keys, a third of the rows sharing one band's key with others (a few
pages each), spilled to disk as a run spills them (:class:`~webdedup.store.spool.
BandColumns`), then :func:`~webdedup.algorithms.bands.candidate_pairs` with one exact group
a row. "before" is the run-finding of before, written out below as it was (an argsort of
the column, its sorted copy, and every run's start and end); "after" is the module's. Each
runs in a child process of its own: its peak resident memory (VmHWM, which counts the
mapped columns' pages too) above what it held before, its time, and its pairs, which must
be the same. Linux only.
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import time
from collections.abc import Iterator

import numpy as np

from webdedup.algorithms import bands
from webdedup.store.spool import BandColumns

BANDS = 37


def equal_runs_before(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``bands._equal_runs`` as it was before the packed sort."""
    order = np.argsort(column, kind="stable")
    ordered = column[order]
    size = len(ordered)
    if size < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    ends = np.append(starts[1:], size)
    long = (ends - starts) > 1
    if not long.any():
        return np.empty(0, np.int64), np.empty(0, np.int64)
    starts, ends = starts[long], ends[long]
    lengths = ends - starts
    pos = np.repeat(starts, lengths) + bands._ramp(lengths)
    end = np.repeat(ends, lengths)
    a: list[np.ndarray] = []
    b: list[np.ndarray] = []
    d = 1
    while pos.size:
        inside = pos + d < end
        pos, end = pos[inside], end[inside]
        a.append(order[pos])
        b.append(order[pos + d])
        d += 1
    return np.concatenate(a).astype(np.int64), np.concatenate(b).astype(np.int64)


def _blocks(rows: int, seed: int) -> Iterator[np.ndarray]:
    rng = np.random.default_rng(seed)
    for start in range(0, rows, 1_000_000):
        size = min(1_000_000, rows - start)
        block = rng.integers(0, 2**32 - 1, (size, BANDS), dtype=np.uint64).astype(np.uint32)
        shared = rng.random(size) < 1 / 3
        block[shared, rng.integers(0, BANDS)] = rng.integers(0, size // 3 + 1, shared.sum())
        yield block


def _status(key: str) -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":")) / 1024


def _measure(which: str, rows: int, seed: int, out: multiprocessing.Queue) -> None:
    if which == "before":
        bands._equal_runs = equal_runs_before
    with tempfile.TemporaryDirectory() as scratch:
        tempfile.tempdir = scratch
        columns = BandColumns(BANDS, np.uint32)
        for block in _blocks(rows, seed):
            columns.append(block)
        groups = np.arange(rows, dtype=np.int64)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # VmHWM from here
        held, t0 = _status("VmRSS"), time.perf_counter()
        lo, hi = bands.candidate_pairs(columns, groups)
        seconds = time.perf_counter() - t0
        out.put((_status("VmHWM") - held, seconds, int(len(lo)),
                 int(lo.sum() % 1_000_003), int(hi.sum() % 1_000_003)))
        columns.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    found = {}
    context = multiprocessing.get_context("fork")
    for which in ("before", "after"):
        queue = context.Queue()
        child = context.Process(target=_measure, args=(which, args.rows, args.seed, queue))
        child.start()
        found[which] = queue.get()
        child.join()
        mib, seconds, pairs, *_ = found[which]
        print(f"{which:>6}: {args.rows:,} rows x {BANDS} bands, {pairs:,} pairs: "
              f"{mib:,.0f} MiB above the start, {seconds:.1f} s")
    if found["before"][2:] != found["after"][2:]:
        print("the pairs differ")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
