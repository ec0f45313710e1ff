"""What every corpus generator shares: the SQLite file it writes (``pages`` with the
crawler's columns, ``corpus_truth`` with the labels ``evaluate.py`` reads) and the
command line (``OUT --pages N --seed S --data DIR``)."""

from __future__ import annotations

import argparse
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

TRUTH = (
    "CREATE TABLE corpus_truth (page_id INTEGER PRIMARY KEY, cluster INTEGER NOT NULL,"
    " kind TEXT NOT NULL, original_id INTEGER, negative_group INTEGER)"
)


def write_corpus(
    path: str | Path,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    truth: Iterable[Sequence[Any]],
) -> None:
    """(Re)create ``pages`` (``id INTEGER PRIMARY KEY`` then ``columns``, all TEXT) and
    ``corpus_truth`` in ``path`` and fill them."""
    con = sqlite3.connect(path)
    defs = ", ".join(f"{c} TEXT" for c in columns)
    con.executescript(
        "DROP TABLE IF EXISTS pages; DROP TABLE IF EXISTS corpus_truth;"
        f"CREATE TABLE pages (id INTEGER PRIMARY KEY, {defs}); {TRUTH};"
    )
    marks = ",".join("?" * (len(columns) + 1))
    con.executemany(f"INSERT INTO pages VALUES ({marks})", rows)
    con.executemany("INSERT INTO corpus_truth VALUES (?,?,?,?,?)", truth)
    con.commit()
    con.close()


def main(
    build: Callable[[str, int, int, Path], Mapping[str, int]],
    description: str,
    data: Path,
    argv: list[str] | None = None,
    what: str = "",
) -> int:
    """``OUT --pages N --seed S --data DIR``: build the corpus and print its kinds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("out")
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=data)
    args = parser.parse_args(argv)
    counts = build(args.out, args.pages, args.seed, args.data)
    print(f"{args.out}: {sum(counts.values())} pages{what}")
    for kind, n in sorted(counts.items()):
        print(f"  {kind:<20} {n:>6}")
    return 0
