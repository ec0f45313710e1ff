#!/usr/bin/env python3
"""What a nightly run's pass over the stored sketches costs, read row by row or from the
sketch blocks (schema 15), and the band-key comparison after it (issue #33, item 1).

    python -m benchmarks.studies.sketch_pass DB [--new 4000 --new 30000] [--rounds 2]

``DB``: a database a ``minhash`` run annotated (read only; ``bench_scale --keep`` leaves one;
at schema 15 with its blocks, or the row-by-row side alone). For each ``--new`` it takes that
many stored sketches at random as a night's changed pages (their band keys,
:class:`~webdedup.algorithms.bands.NewKeys`) and times, in CPU seconds, reading every stored
sketch from ``_webdedup_sketches`` (``store.work.packed_sketches``, as until schema 14) and
from the blocks (``store.sketch_blocks.stored_sketches``), and the comparison of each chunk
with the new keys (``NewKeys.collisions``, the compiled kernel); it checks both reads find
the same stored pages. Prints one line for each read and ``--new``.
"""

from __future__ import annotations

import argparse
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from webdedup.algorithms.bands import NewKeys
from webdedup.algorithms.sketch import band_matrix, packed_band_matrix, sketch_width
from webdedup.config import Config
from webdedup.store import sketch_blocks
from webdedup.store.work import PackedSketches, packed_sketches


def timed_pass(
    read: Callable[[], Iterator[PackedSketches]], keys: NewKeys, spec
) -> tuple[float, float, int, set[int]]:
    """CPU seconds reading and comparing, the sketches read, and the stored ids found."""
    reading = comparing = 0.0
    rows, found = 0, set[int]()
    chunks = read()
    while True:
        start = time.process_time()
        chunk = next(chunks, None)
        reading += time.process_time() - start
        if chunk is None:
            return reading, comparing, rows, found
        start = time.process_time()
        _, m = keys.collisions(packed_band_matrix(spec, chunk.packed))
        found.update(chunk.ids[np.unique(m)].tolist())
        comparing += time.process_time() - start
        rows += len(chunk.ids)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="an annotated database (minhash; read only)")
    parser.add_argument("--new", type=int, action="append", help="changed pages (repeat)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    conn = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    try:
        spec = Config().near_spec()
        width = sketch_width(spec)
        reads = {"rows": lambda: packed_sketches(conn, "region_stored_sketches", width)}
        if sketch_blocks.have_blocks(conn):
            (held,) = conn.execute("SELECT count(*) FROM _webdedup_sketch_blocks").fetchone()
            (stale,) = conn.execute("SELECT count(*) FROM _webdedup_sketch_stale").fetchone()
            print(f"{held:,} sketch blocks, {stale:,} stale ids")
            reads["blocks"] = lambda: sketch_blocks.stored_sketches(conn, width)
        for new in args.new or [4000]:
            blobs = [b for (b,) in conn.execute(
                "SELECT sketch FROM _webdedup_sketches ORDER BY random() LIMIT ?", (new,))]
            keys = NewKeys(band_matrix(spec, blobs))
            keys.collisions(band_matrix(spec, blobs[:2]))  # the kernel loaded before timing
            founds = []
            for rnd in range(args.rounds):
                for name, read in reads.items():
                    reading, comparing, rows, found = timed_pass(read, keys, spec)
                    founds.append(found)
                    print(f"--new {new:,} round {rnd + 1} {name}: read {reading:.2f} CPU-s, "
                          f"compared {comparing:.2f} CPU-s ({rows:,} sketches, "
                          f"{len(found):,} stored pages found)", flush=True)
            if any(f != founds[0] for f in founds):
                raise SystemExit("the reads found different pages")
    finally:
        conn.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
