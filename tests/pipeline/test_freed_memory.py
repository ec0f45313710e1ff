"""A run gives back what it frees (webdedup.pipeline.context: glibc's mmap threshold kept at
1 MiB, a trim at the end of every step).

Each case runs in a child process of its own, reading its own ``RssAnon`` (the process's own
resident pages): freeing a 16 MiB array first raises glibc's default threshold to 16 MiB, so
that 96 arrays of 2 MiB afterwards come from the heap; one in eight is kept, so the others
leave holes between blocks still in use, which freeing does not give back by itself (glibc
trims only a free top). The test reads how much of the 192 MiB stays resident (24 MiB are
still held).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_page, write_pages

from webdedup.pipeline.context import _glibc

pytestmark = pytest.mark.skipif(_glibc() is None, reason="glibc's malloc only (Linux)")

PATTERN = r"""
import json, sys
import numpy as np

def own():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("RssAnon:")) / 1024

from contextlib import nullcontext
from webdedup import Config, Deduplicator  # (imported before the first reading)
from webdedup.pipeline.context import (
    RunContext, give_back_freed_memory, keep_large_blocks_mapped)

before = sys.argv[1]
if before == "run":  # a run of webdedup on a small database first
    Deduplicator(config=Config()).run_on_db(sys.argv[2])
elif before == "keep":
    keep_large_blocks_mapped()
within = nullcontext()
if before == "step":  # the pattern inside a run's step (a context holding its timings only)
    ctx = RunContext.__new__(RunContext)
    ctx.timings = {}
    within = ctx.step("pattern")
big = np.ones(16 << 17)  # 16 MiB, mapped: freeing it raises the default threshold (to 32 at most)
del big
start = own()
with within:
    arrays = [np.ones(2 << 17) for _ in range(96)]  # 96 x 2 MiB
    held = own() - start
    kept = arrays[7::8]  # 12 of them still in use, between the holes
    del arrays
if before == "trim":
    give_back_freed_memory()
print(json.dumps({"held": held, "kept": own() - start}))
"""


def resident(*args: str, tunables: str | None = None) -> dict[str, float]:
    """What the pattern's child kept resident (MiB) after the arrays were freed, and while
    they were held (``tunables``: glibc's ``GLIBC_TUNABLES`` for the child)."""
    env = {k: v for k, v in os.environ.items()  # (glibc's own settings would change it)
           if k not in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")}
    if tunables is not None:
        env["GLIBC_TUNABLES"] = tunables
    out = subprocess.run(
        [sys.executable, "-c", PATTERN, *args], capture_output=True, text=True, check=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_without_the_settings_the_freed_arrays_stay_resident() -> None:
    """The pattern's premise (glibc's default): what the other cases change."""
    got = resident("none")
    assert got["held"] > 150
    assert got["kept"] > 150  # (24 MiB held: most of the holes stay)


def test_a_run_keeps_large_blocks_mapped(tmp_path: Path) -> None:
    db = tmp_path / "crawl.sqlite"
    write_pages(db, [make_page(f"https://a.example/{i}", f"page {i} words " * 30)
                     for i in range(30)])
    got = resident("run", str(db))
    assert got["held"] > 150
    assert got["kept"] < 40


@pytest.mark.parametrize("before", [
    "keep",  # blocks kept mapped are given back when freed
    "trim",  # a trim gives back what the heap freed
    "step",  # a run's step gives back what was freed in it
])
def test_freed_arrays_are_given_back(before: str) -> None:
    got = resident(before)
    assert got["held"] > 150
    assert got["kept"] < 40


def test_a_threshold_set_in_the_environment_stands() -> None:
    """A user's own threshold (32 MiB here: the arrays come from the heap) is not overridden."""
    got = resident("keep", tunables="glibc.malloc.mmap_threshold=33554432")
    assert got["held"] > 150
    assert got["kept"] > 150
