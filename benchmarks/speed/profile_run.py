#!/usr/bin/env python3
"""Where a one-process `webdedup db` run spends its time: a py-spy sampling profile.

    pip install py-spy
    python -m benchmarks.speed.profile_run ~/.cache/webdedup-bench/corpus-20000-seed1-real.sqlite

Runs ``Deduplicator(workers=1, config=Config()).run_on_db`` on a copy of the corpus under
``py-spy record`` (50 samples a second) and prints the functions with the most samples of
their own (C calls count for the Python function that made them) and the share of a few
whole steps.
"""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = (
    "import sys; from webdedup import Config, Deduplicator; "
    "Deduplicator(workers=1, config=Config()).run_on_db(sys.argv[1])"
)
STEPS = ("prepare_batch", "normalize_text", "sketch_texts", "_banded_run", "verify_chunk",
         "store_sketches", "run_script")


def main(argv: list[str]) -> int:
    corpus = Path(argv[0])
    with tempfile.TemporaryDirectory() as tmp:
        db, raw = Path(tmp) / "run.sqlite", Path(tmp) / "spy.txt"
        shutil.copy(corpus, db)
        subprocess.run(
            ["py-spy", "record", "-r", "50", "-f", "raw", "-o", str(raw), "--",
             sys.executable, "-c", CHILD, str(db)],
            check=True, capture_output=True,
        )
        own: collections.Counter[str] = collections.Counter()
        whole: collections.Counter[str] = collections.Counter()
        total = 0
        for line in raw.read_text().splitlines():
            stack, n = line.rsplit(" ", 1)
            frames = [f.split(" (")[0] for f in stack.split(";")]
            total += int(n)
            own[frames[-1]] += int(n)
            for name in set(frames):
                whole[name] += int(n)
    print(f"{total} samples")
    for name, n in own.most_common(12):
        print(f"own    {100 * n / total:5.1f}%  {name}")
    for name in STEPS:
        print(f"whole  {100 * whole[name] / total:5.1f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
