"""Measure WARC reading with warcio and fastwarc: speed on the real crawls, and robustness on
the broken ones (records read and errors raised). Prints the figures.

Usage::

    python -m benchmarks.speed.bench_ingest [--data /work/shared/data/warc] [--repeat 5]

fastwarc is optional (``pip install fastwarc``); without it only warcio is measured.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path


def read_warcio(path: Path) -> tuple[int, int, str]:
    """(records, payload bytes, error) with warcio, reading every record's content."""
    from warcio.archiveiterator import ArchiveIterator

    n = size = 0
    try:
        with path.open("rb") as fh:
            for record in ArchiveIterator(fh, arc2warc=True):
                size += len(record.content_stream().read())
                n += 1
    except Exception as exc:  # noqa: BLE001 - robustness is what is measured
        return n, size, type(exc).__name__
    return n, size, ""


def read_fastwarc(path: Path) -> tuple[int, int, str]:
    """(records, payload bytes, error) with fastwarc, reading every record's content."""
    from fastwarc.warc import ArchiveIterator

    n = size = 0
    try:
        # fastwarc 2.x detects gzip itself; 'all' decodes chunked and gzip/brotli bodies as
        # warcio's content_stream() does, so both read the same payload.
        for record in ArchiveIterator(str(path), parse_http=True, auto_decode="all"):
            size += len(record.reader.read())
            n += 1
    except Exception as exc:  # noqa: BLE001 - robustness is what is measured
        return n, size, type(exc).__name__
    return n, size, ""


def timed(reader: Callable[[Path], tuple[int, int, str]], files: list[Path], repeat: int):
    best = float("inf")
    records = size = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        records = size = 0
        for path in files:
            n, s, _ = reader(path)
            records += n
            size += s
        best = min(best, time.perf_counter() - t0)
    return best, records, size


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/work/shared/data/warc", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    files = sorted(p for p in args.data.iterdir() if p.is_file())
    broken = sorted((args.data / "malformed").iterdir())
    readers: dict[str, Callable[[Path], tuple[int, int, str]]] = {"warcio": read_warcio}
    try:
        import fastwarc  # noqa: F401

        readers["fastwarc"] = read_fastwarc
        fw_version = _version("fastwarc")
    except ImportError:
        fw_version = "not installed"
    print(f"warcio {_version('warcio')}, fastwarc {fw_version}")
    mb = sum(p.stat().st_size for p in files) / 1e6
    print(f"\nspeed: {len(files)} real crawl files, {mb:.1f} MB on disk, best of {args.repeat}")
    for name, reader in readers.items():
        secs, records, size = timed(reader, files, args.repeat)
        print(f"  {name:9s} {secs * 1000:8.1f} ms  {records:5d} records  "
              f"{size / 1e6:6.1f} MB payload  {records / secs:9.0f} records/s")
    print(f"\nrobustness: {len(broken)} broken/unusual files (records read, error raised)")
    print(f"  {'file':40s}" + "".join(f"{n:>24s}" for n in readers))
    for path in broken:
        cells = []
        for reader in readers.values():
            n, _, err = reader(path)
            cells.append(f"{n:3d} {err or 'ok':>20s}")
        print(f"  {path.name:40s}" + "".join(f"{c:>24s}" for c in cells))


if __name__ == "__main__":
    main()
