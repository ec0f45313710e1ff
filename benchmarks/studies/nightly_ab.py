#!/usr/bin/env python3
"""What a change does to the nightly run's cost: two checkouts, alternating (issue #33).

    python -m benchmarks.speed.bench_scale --pages 1000000 --first-only --keep --work DIR
    python -m benchmarks.studies.nightly_ab DIR/scale-1000000.sqlite --rev HEAD~1 --rev HEAD

The database is one a full run annotated (``bench_scale --keep`` leaves one). Each round
adds ``--new`` pages to it the way ``bench_scale``'s nightly step does (copies of random
pages under new URLs, one in three edited), writes the machine's dirty pages out
(``sync``), and runs one incremental ``webdedup db`` with each checkout in turn, in a child
process measured as ``bench_scale`` measures its runs (CPU of the process and its workers).
Alternating (A B, B A, A B, ...) spreads the machine's drift over both sides; the database
grows by ``--new`` pages a run, so a run sees a slightly larger crawl than the one before
it, and neither side always the larger. A first round,
not counted, warms each side up (a new checkout's numba kernels are compiled on its first
run: numba caches them by source file).

``--rev`` is a git revision of this repository, checked out with ``git worktree`` into a
temporary folder (with its ``sql/`` where the package looks for it) and removed at the end;
``--tree`` is a checkout already on disk. With one side the study repeats one checkout's
nightly run. The child checks that it imported the package and its SQL from that side.

**It writes to the database** (the new pages, the runs' results): give it a copy.
``--copies DIR``: each side runs on its own copy of it (made in ``DIR`` first, removed at
the end), given the same new pages each round: for a change of the state's schema, which a
side's older checkout would refuse to read after the newer one wrote it.

Prints each run and, for each side, the median CPU seconds and the median of each phase.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from benchmarks.speed.bench_scale import RUN, child, copy_pages

REPO = Path(__file__).resolve().parents[2]

#: The child's check of where it imported the package and its SQL from.
WHERE = (
    "import webdedup, importlib.resources as r; "
    "print(webdedup.__file__); print(r.files('webdedup.sql').joinpath('counts.sql'))"
)

#: The phases printed beside the CPU (a run's ``timings``, wall seconds; ``write_lock``: the
#: longest time one write transaction held the lock).
PHASES = ("pages_now", "prepare", "region", "near", "write_back", "counts", "sketch_blocks",
          "checkpoint", "write_lock")


def checkout(rev: str, stack: ExitStack) -> Path:
    """A temporary ``git worktree`` of ``rev`` (removed when ``stack`` closes)."""
    path = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nightly-ab-"))) / "tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(path), rev],
                   check=True)
    stack.callback(subprocess.run, ["git", "-C", str(REPO), "worktree", "remove", "--force",
                                    str(path)], check=False)
    (path / "webdedup" / "sql").symlink_to(path / "sql")  # as the wheel ships it
    return path


def open_sides(revs: list[str], trees: list[Path], stack: ExitStack) -> dict[str, Path]:
    """Each side of a study by name: a ``git worktree`` of each revision (:func:`checkout`,
    removed when ``stack`` closes), then each checkout on disk; each checked to import its
    own package and SQL (:func:`check_imports`)."""
    sides = {rev: checkout(rev, stack) for rev in revs}
    sides |= {str(tree): tree for tree in trees}
    for tree in sides.values():
        check_imports(tree)
    return sides


def check_imports(tree: Path) -> None:
    """Refuse a side whose child would import the package or its SQL from elsewhere."""
    out = subprocess.run([sys.executable, "-c", WHERE], cwd=tree, env=_env(tree),
                         capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{tree}: the package does not import there:\n{out.stderr[-3000:]}")
    for found in out.stdout.split():
        if not Path(found).resolve().is_relative_to(tree.resolve()):
            raise SystemExit(f"{tree}: the child imports {found}, not the checkout's own")


def _env(tree: Path) -> dict[str, str]:
    """The child's environment: ``tree`` first on its path (its working folder too: ``-c``
    puts that first)."""
    return dict(os.environ, PYTHONPATH=str(tree))


def add_pages(db: Path, new: int, seed: int) -> None:
    """``new`` copies of random pages, as ``bench_scale``'s nightly step adds them when its
    corpus has no more pages."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN")
        copy_pages(conn, new, seed)
        conn.execute("COMMIT")
    finally:
        conn.close()


def copy_database(source: Path, target: Path) -> Path:
    """``source`` copied by SQLite's backup (what a WAL file still holds too); returns
    ``target``."""
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    return target


def nightly(tree: Path, db: Path) -> dict:
    """One incremental run with ``tree``'s package: ``bench_scale``'s figures of it."""
    return child(RUN, str(db.resolve()), cwd=tree, env=_env(tree))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, help="an annotated database (a copy: it is written)")
    parser.add_argument("--rev", action="append", default=[], help="a git revision (repeat)")
    parser.add_argument("--tree", action="append", default=[], type=Path,
                        help="a checkout on disk (repeat)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side")
    parser.add_argument("--new", type=int, default=1000, help="pages added before each run")
    parser.add_argument("--copies", type=Path, default=None,
                        help="a folder for a copy of the database for each side")
    args = parser.parse_args(argv)
    if not args.rev and not args.tree:
        parser.error("give at least one --rev or --tree")
    names = args.rev + [str(tree) for tree in args.tree]
    if len(set(names)) < len(names):
        parser.error("a side is named twice")
    if args.rounds < 1 or args.new < 1:
        parser.error("--rounds and --new take 1 or more")
    if not args.db.exists():
        parser.error(f"{args.db}: no such database")
    with ExitStack() as stack:
        sides = open_sides(args.rev, args.tree, stack)
        runs: dict[str, list[dict]] = {name: [] for name in sides}
        dbs = {name: args.db for name in sides}
        if args.copies is not None:
            dbs = {name: args.copies / f"side{i}-{args.db.name}" for i, name in enumerate(sides)}
            for db in dbs.values():
                stack.callback(db.unlink, missing_ok=True)
                copy_database(args.db, db)
        # a first run of each side, not counted: a new checkout's numba kernels are compiled
        # then (numba caches them by source file), and the page cache is warmed
        for k in range(-1, args.rounds):
            # A B, then B A: neither side always runs on the larger database
            order = reversed(sides.items()) if k % 2 else sides.items()
            for j, (name, tree) in enumerate(order):
                # other pages copied each run; with copies the same to each side in a round
                seed = 1001 + len(sides) * (k + 1) + (0 if args.copies else j)
                add_pages(dbs[name], args.new, seed)
                t = time.perf_counter()
                os.sync()
                synced = time.perf_counter() - t
                r = nightly(tree, dbs[name])
                if r["mode"] != "incremental":
                    raise SystemExit(f"the run with {name} was {r['mode']}, not incremental")
                if k >= 0:
                    runs[name].append(r)
                print(f"{f'round {k + 1}' if k >= 0 else 'warm-up'} {name}: {r['cpu']:.2f} "
                      f"CPU-s, {r['wall']:.2f} s wall, {r['processed']:,} pages recomputed "
                      f"(after {synced:.1f} s of sync); "
                      + ", ".join(f"{p} {r['timings'].get(p, 0):.2f}" for p in PHASES),
                      flush=True)
        print()
        for name, rs in runs.items():
            cpus = ", ".join(f"{r['cpu']:.2f}" for r in rs)
            print(f"{name}: median {statistics.median(r['cpu'] for r in rs):.2f} CPU-s over "
                  f"{len(rs)} runs ({cpus}); median s: "
                  + ", ".join(f"{p} {statistics.median(r['timings'].get(p, 0) for r in rs):.2f}"
                              for p in PHASES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
