"""A run killed with SIGKILL leaves the database exactly as it was; the next run completes."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys

import pytest
from conftest import annotations, crawl_with_duplicates, dump

from webdedup import Deduplicator

CHILD = """
import sys, time
from webdedup import Deduplicator
target = sys.argv[2]
def hook(name):
    print(name, flush=True)
    if name == target:
        time.sleep(600)
Deduplicator(on_phase=hook).run_on_db(sys.argv[1])
print("finished", flush=True)
"""


@pytest.mark.parametrize("phase", ["prepare", "elect_exact", "write_back", "commit"])
def test_sigkill_in_any_phase_leaves_database_as_it_was(db_builder, tmp_path, phase):
    path = db_builder(crawl_with_duplicates(30))
    twin = tmp_path / "twin.sqlite"
    shutil.copy(path, twin)
    # an earlier completed run, so the kill also has state and annotations to damage
    Deduplicator().run_on_db(path)
    Deduplicator().run_on_db(twin)
    conn_exec = __import__("sqlite3").connect(path)
    conn_exec.execute("UPDATE pages SET content = content || ' changed' WHERE id % 4 = 0")
    conn_exec.commit()
    conn_exec.close()
    shutil.copy(path, twin)
    before = dump(path)

    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), phase], stdout=subprocess.PIPE, text=True
    )
    seen = []
    for line in child.stdout:
        seen.append(line.strip())
        if line.strip() == phase:
            break
    assert seen[-1] == phase, seen
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL

    assert dump(path) == before  # byte for byte: schema and every row

    Deduplicator().run_on_db(path)  # the next run completes...
    Deduplicator().run_on_db(twin)  # ...and equals an uninterrupted one
    assert annotations(path) == annotations(twin)
