#!/usr/bin/env python3
"""What Linux counts as a process's bytes written, against what reaches the disk (issue #33,
item 1: bytes written at most 3x the database).

    python -m benchmarks.studies.dirty_folios --work DIR

Writes a file of ``--mib`` MiB into ``DIR``, then rewrites ``--writes`` random 4 KiB blocks
of it twice: once with the file out of the page cache, once after reading it whole (as a
run reads a crawl: the kernel's read-ahead may then keep it in large folios). Prints, for
each, the process's ``write_bytes`` (``/proc/self/io``) and the bytes the kernel wrote to the
directory's device (``/sys/dev/block/MAJ:MIN/stat``, from a ``sync`` before to one after:
the whole machine's, so run it on a quiet one). On tmpfs Linux counts nothing: give a
directory on a disk.

On Linux 6.18 with ext4 (2026-11-28 08:31), 500 blocks: 1.96 MiB counted and 1.96 MiB on
the disk uncached; 179.7 MiB counted and 1.96 MiB on the disk after the read. A dirtied
folio is counted whole; the file system writes its dirty blocks only.
``benchmarks/speed/bench_scale.py`` therefore gives both figures (in its whole runs they
agreed, less the TEMP pages never written out); docs/benchmarks.md reads the bytes-written
target as the disk's.
"""

from __future__ import annotations

import argparse
import os
import random
from pathlib import Path

BLOCK = 4096


def counted() -> int:
    """This process's ``write_bytes``: each page (or folio) of page cache it dirtied."""
    from benchmarks.studies.lock_holds import written

    return written()


def on_disk(path: Path) -> int | None:
    """Bytes written to the device holding ``path`` since boot (None when unknown)."""
    from benchmarks.speed.bench_scale import device_written

    return device_written(path)


def rewrite(fd: int, offsets: list[int], path: Path) -> tuple[int, int | None]:
    """Rewrite a block at each offset; (bytes counted, bytes on the disk) from sync to sync."""
    os.sync()
    before, disk = counted(), on_disk(path)
    for offset in offsets:
        os.pwrite(fd, b"w" * BLOCK, offset)
    os.fsync(fd)
    os.sync()
    after = on_disk(path)
    return counted() - before, None if disk is None or after is None else after - disk


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="where the file goes")
    parser.add_argument("--mib", type=int, default=200, help="the file's size")
    parser.add_argument("--writes", type=int, default=500, help="blocks rewritten each time")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    path = args.work / "dirty-folios.bin"
    with path.open("wb") as f:
        for _ in range(args.mib):
            f.write(os.urandom(2**20))
    blocks = args.mib * 2**20 // BLOCK
    rng = random.Random(args.seed)
    fd = os.open(path, os.O_RDWR)
    try:
        print(f"{args.writes} blocks of 4 KiB rewritten in a file of {args.mib} MiB:")
        for read_first in (False, True):
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # out of the page cache
            if read_first:
                with path.open("rb") as f:
                    while f.read(2**20):
                        pass
            offsets = [b * BLOCK for b in rng.sample(range(blocks), min(args.writes, blocks))]
            count, disk = rewrite(fd, offsets, args.work)
            shown = "not known here" if disk is None else f"{disk / 2**20:,.2f} MiB"
            print(f"  {'after reading it whole' if read_first else 'not in the page cache':24}"
                  f" counted {count / 2**20:9,.2f} MiB, on the disk {shown}")
    finally:
        os.close(fd)
        path.unlink()
    print(f"  (the blocks themselves: {args.writes * BLOCK / 2**20:,.2f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
