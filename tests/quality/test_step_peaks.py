"""``benchmarks/studies/step_peaks.py`` (docs/benchmarks.md): a full run's peak memory step
by step."""

from __future__ import annotations

import json

from conftest import crawl_with_duplicates, write_pages

from benchmarks.studies import step_peaks
from webdedup import Deduplicator
from webdedup.pipeline import context


def test_every_step_has_its_peak(tmp_path, capsys):
    db = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates())
    Deduplicator().run_on_db(db)
    step = context.RunContext.step
    assert step_peaks.main([str(db)]) == 0
    assert context.RunContext.step is step  # (put back)
    lines = capsys.readouterr().out.splitlines()
    figures = json.loads(lines[-1])
    assert figures["mode"] == "full"
    peaks = figures["step_peaks_mib"]
    assert {"prepare", "near", "near.verify", "assign", "write_back"} <= set(peaks)
    assert all(v > 0 for v in peaks.values())
    assert peaks["near"] >= peaks["near.verify"]  # a phase's peak holds its steps'
    assert any(line.endswith(f"near.verify: peak {peaks['near.verify']} MiB") for line in lines)
