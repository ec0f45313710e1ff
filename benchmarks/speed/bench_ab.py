"""Two versions of webdedup on one corpus, their runs interleaved: is the change faster?

This machine's speed drifts by up to 2x from hour to hour, so two benchmarks run minutes apart
cannot tell a 5% change. This runs ``webdedup db`` on a fresh copy of the corpus with the
code of ``--base`` (a git revision, checked out in a temporary worktree) and with the code of
this checkout (the installed package), one after the other, ``--runs`` times each, the
order swapped every round, and prints each run's wall and CPU seconds (the process and its
workers) and the medians.

    python -m benchmarks.speed.bench_ab ~/.cache/webdedup-bench/corpus-20000-seed1-real.sqlite \\
        --base 4e3d441 --runs 5

Each side's compiled kernels are loaded once before the first timed run (numba compiles a
checkout's kernels on first use).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WARM = (
    "import webdedup, webdedup.sql; from webdedup.algorithms.text import compiled; "
    "compiled().warm_up(); print('  code:', webdedup.__file__, 'sql:', *webdedup.sql.__path__)"
)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def environment(code: Path | None) -> dict[str, str]:
    """The environment of a side: ``code`` first on the path, or the installed package."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return env if code is None else {**env, "PYTHONPATH": str(code)}


def this_checkout() -> Path | None:
    """The code of this checkout: the installed package when it is this checkout (an editable
    install maps webdedup.sql to the top-level sql/ folder, which a plain PYTHONPATH would
    not find), else this checkout first on the path (a git worktree beside the installed
    one), with the ``webdedup/sql`` link the wheel's layout has, made if missing."""
    found = subprocess.run(
        [sys.executable, "-c", "import webdedup; print(webdedup.__file__)"],
        capture_output=True,
        text=True,
        env=environment(None),
        cwd=tempfile.gettempdir(),
    ).stdout.strip()
    if found and Path(found).resolve().parent == (ROOT / "webdedup").resolve():
        return None
    link = ROOT / "webdedup" / "sql"
    if not link.is_symlink() and not link.exists():
        link.symlink_to(Path("..") / "sql")  # ignored by git (.gitignore)
        print(f"made {link} -> ../sql")
    return ROOT


def timed_run(code: Path | None, corpus: Path, work: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of ``webdedup db`` with the package at ``code`` on a copy."""
    db = work / "run.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copy(corpus, db)
    env = environment(code)
    cpu0, t0 = children_cpu(), time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "webdedup.cli", "db", str(db)],
        check=True,
        env=env,
        cwd=work,  # not a checkout: python -m puts the working directory first on the path
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0, children_cpu() - cpu0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="an SQLite crawl (it is copied, never changed)")
    parser.add_argument("--base", required=True, help="the git revision to compare with")
    parser.add_argument("--runs", type=int, default=5, help="timed runs a side (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="webdedup-ab-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base],
            check=True,
            capture_output=True,
        )
        try:
            (base / "webdedup" / "sql").symlink_to(base / "sql")  # as the wheel lays it out
            sides: dict[str, Path | None] = {args.base: base, "this checkout": this_checkout()}
            for name, code in sides.items():
                print(f"{name}:", flush=True)
                subprocess.run(
                    [sys.executable, "-c", WARM], check=True, env=environment(code), cwd=tmp
                )
            results: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
            for i in range(args.runs):
                order = list(sides.items())
                for name, code in order if i % 2 == 0 else order[::-1]:  # A B, B A, ...
                    wall, cpu = timed_run(code, args.corpus, Path(tmp))
                    results[name].append((wall, cpu))
                    line = f"run {i + 1} {name:>14}: {wall:6.2f} s wall {cpu:6.2f} s CPU"
                    print(line, flush=True)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                check=False,
                capture_output=True,
            )
    medians = {
        name: (statistics.median(w for w, _ in rs), statistics.median(c for _, c in rs))
        for name, rs in results.items()
    }
    for name, (wall, cpu) in medians.items():
        print(f"median {name:>14}: {wall:6.2f} s wall {cpu:6.2f} s CPU")
    (base_wall, base_cpu), (new_wall, new_cpu) = medians.values()
    print(
        f"this checkout / {args.base}: {new_wall / base_wall:.3f} x wall, "
        f"{new_cpu / base_cpu:.3f} x CPU"
    )


if __name__ == "__main__":
    main()
