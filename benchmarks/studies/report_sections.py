#!/usr/bin/env python3
"""Where ``export --json``'s time goes: each list of the report timed as it is written
(issue #33, item 1: the readers at ten million pages).

    python -m benchmarks.studies.report_sections DB [--out FILE] [--rounds 2]

``DB``: an annotated database (read only; ``bench_scale --keep`` leaves one). Writes the
report as ``webdedup export --json`` does (``output.json_report.write_report``) into ``--out``
(a temporary file by default, removed afterwards), ``--rounds`` times, and prints for each list
(``documents``, ``near_duplicate_pairs``, the groups by kind, ``thin_pages``) its items, wall
seconds and CPU seconds, then the whole report's.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from webdedup.output import json_report


def timed_report(db: Path, out: Path) -> list[tuple[str, int, float, float]]:
    """(list, items, wall s, CPU s) for each list of one report of ``db`` written to ``out``,
    then ``("report", bytes, wall, CPU)`` for the whole of it."""
    sections: list[tuple[str, int, float, float]] = []
    write_list = json_report._write_list

    def timed(out_: TextIO, key: str, items: Iterable[Any], *, last: bool = False) -> int:
        wall, cpu = time.perf_counter(), time.process_time()
        n = write_list(out_, key, items, last=last)
        sections.append((key, n, time.perf_counter() - wall, time.process_time() - cpu))
        return n

    json_report._write_list = timed  # (the module's own writer, each call timed)
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        json_report.write_report(db, out)
        whole = (time.perf_counter() - wall, time.process_time() - cpu)
    finally:
        json_report._write_list = write_list
    return [*sections, ("report", out.stat().st_size, *whole)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, help="an annotated database (read only)")
    parser.add_argument("--out", type=Path, help="where to write the report (default: a "
                        "temporary file, removed afterwards)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="webdedup-report-") as tmp:  # (empty with --out)
        out = args.out or Path(tmp) / "report.json"
        for round_ in range(1, args.rounds + 1):
            for key, n, wall, cpu in timed_report(args.db, out):
                what = f"{n:,} bytes" if key == "report" else f"{n:,} items"
                print(f"round {round_} {key:<24} {what:>20} {wall:8.2f} s {cpu:8.2f} CPU-s",
                      flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
