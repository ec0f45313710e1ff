"""``benchmarks/studies/live_heap.py`` (docs/benchmarks.md): the live heap of a run, step by
step, and where it was allocated."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED_DATA

from benchmarks.studies import live_heap
from webdedup.ingest import ingest
from webdedup.pipeline import context

pytest.importorskip("memray")


def test_each_step_has_its_live_heap_and_sites(tmp_path, capsys):
    db = tmp_path / "crawl.sqlite"  # the real crawls and pages (829)
    ingest(db, [*sorted((SHARED_DATA / "warc").glob("*.warc*")), SHARED_DATA / "html" / "aed",
                SHARED_DATA / "html" / "aeb"], workers=2)
    step = context.RunContext.step
    trace = tmp_path / "run.bin"
    assert live_heap.main([str(db), "--top", "3", "--out", str(trace)]) == 0  # (a first run)
    assert context.RunContext.step is step  # (put back)
    assert trace.stat().st_size > 0  # (kept where asked)
    lines = capsys.readouterr().out.splitlines()
    figures = json.loads(lines[-1])
    assert figures["mode"] == "full" and figures["pages"] == 829
    steps = figures["steps"]
    assert {"prepare", "near", "write_back"} <= set(steps)
    for name, got in steps.items():
        assert got["live_mib"] > 0
        assert 1 <= len(got["sites_mib"]) <= 3
        # the sites are parts of what was live then (rounded to the MiB)
        assert sum(got["sites_mib"].values()) <= got["live_mib"] + 1
        assert any(line == f"{name}: live heap at most {got['live_mib']} MiB" for line in lines)
    # a site is a frame of the package where the run allocated (its file and line)
    sites = {s for got in steps.values() for s in got["sites_mib"]}
    assert any(s.split(":")[0].endswith(".py") and "/" in s for s in sites)
