"""``benchmarks/studies/worker_memory.py`` (docs/benchmarks.md): what a run's workers hold,
their own pages and mapped files'."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from benchmarks.studies import worker_memory
from webdedup.ingest import ingest


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_each_worker_s_peaks(tmp_path, capsys):
    db = tmp_path / "crawl.sqlite"  # the real crawls and pages (829): two readers
    ingest(db, [*sorted((SHARED_DATA / "warc").glob("*.warc*")), SHARED_DATA / "html" / "aed",
                SHARED_DATA / "html" / "aeb"], workers=2)
    assert worker_memory.main([str(db), "--work", str(tmp_path), "--every", "0.02",
                               "--workers", "2"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crawl.sqlite"]  # (copy deleted)
    lines = capsys.readouterr().out.splitlines()
    figures = json.loads(lines[-1])
    assert figures["pages"] == 829 and figures["groups"] > 0
    children = figures["children"]
    assert len(children) >= 2  # the readers (sampled while they lived)
    for peak in children.values():
        assert peak["VmRSS"] > 0 and peak["RssAnon"] > 0 and peak["RssFile"] > 0
        assert peak["VmRSS"] <= figures["children_maxrss_kib"] * 1.05  # (sampled: not above)
    assert sum(line.startswith("  child ") for line in lines) == len(children)
