"""The readers' scratch folders (webdedup.pipeline.staging): a run killed while it staged
texts leaves its folder to the next run's sweep, a live run's folder is never swept, and a
full TMPDIR stops the run as a full disk that names it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from webdedup import Config, Deduplicator
from webdedup.errors import DiskFull
from webdedup.ingest import ingest
from webdedup.pipeline import staging

#: A child that makes a scratch folder, writes a slice into it, prints the folder and waits.
CHILD = """
import os, sys, time
from webdedup.pipeline import staging
where, owner = staging._scratch()
with open(os.path.join(where, "slice-0"), "wb") as f:
    f.write(b"x" * 1000)
print(where, flush=True)
time.sleep(60)
"""


def _child(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": str(tmp_path)})
    assert child.stdout is not None
    where = Path(child.stdout.readline().strip())
    assert where.parent == tmp_path and (where / "slice-0").exists()
    return child, where


def test_a_killed_runs_folder_is_swept_and_a_live_ones_is_not(tmp_path):
    live, kept = _child(tmp_path)
    killed, left = _child(tmp_path)
    killed.send_signal(signal.SIGKILL)  # no finally, no atexit: only the kernel lets go
    killed.wait()
    older = tmp_path / f"{staging.PREFIX}older"  # no owner file (an older webdedup's)
    older.mkdir()
    try:
        assert staging.sweep(str(tmp_path)) == [str(left)]
        assert not left.exists()
        assert (kept / "slice-0").exists() and older.exists()
        assert staging.sweep(str(tmp_path)) == []
    finally:
        live.kill()
        live.wait()
    assert staging.sweep(str(tmp_path)) == [str(kept)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [older.name]


def test_a_finished_runs_folder_is_gone(tmp_path, monkeypatch):
    monkeypatch.setattr(staging.tempfile, "tempdir", str(tmp_path))
    where, owner = staging._scratch()
    Path(where, "slice-0").write_bytes(b"texts")
    staging._remove(where, owner)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_tmpdir_stops_the_run_as_a_full_disk_naming_it(tmp_path, monkeypatch):
    """The readers' slice files written where every write fails with ENOSPC (the kernel's
    /dev/full): the run stops with DiskFull (exit code 8) naming TMPDIR, and its folder
    is deleted."""
    db = tmp_path / "crawl.sqlite"
    ingest(db, [SHARED_DATA / "html" / "aed", SHARED_DATA / "html" / "aeb"], workers=2)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(staging.tempfile, "tempdir", str(scratch))
    made = staging._scratch

    def full_scratch() -> tuple[str, int]:
        where, owner = made()
        for n in range(10_000):  # every slice file the run may name
            os.symlink("/dev/full", os.path.join(where, f"slice-{n}"))
        return where, owner

    monkeypatch.setattr(staging, "_scratch", full_scratch)
    with pytest.raises(DiskFull, match="TMPDIR") as failed:
        Deduplicator(config=Config(workers=2)).run_on_db(db)
    assert str(scratch) in str(failed.value) and failed.value.exit_code == 8
    assert list(scratch.iterdir()) == []
