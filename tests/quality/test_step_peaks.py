"""``benchmarks/studies/step_peaks.py`` (docs/benchmarks.md): a full run's peak memory step
by step."""

from __future__ import annotations

import json

from conftest import SHARED_DATA

from benchmarks.studies import step_peaks
from webdedup import Deduplicator
from webdedup.ingest import ingest
from webdedup.pipeline import context, staging


def test_every_step_has_its_peak(tmp_path, capsys):
    db = tmp_path / "crawl.sqlite"  # the real crawls and pages (829): the readers stage texts
    ingest(db, [*sorted((SHARED_DATA / "warc").glob("*.warc*")), SHARED_DATA / "html" / "aed",
                SHARED_DATA / "html" / "aeb"], workers=2)
    Deduplicator().run_on_db(db)
    step, pair_buckets = context.RunContext.step, staging.pair_buckets
    assert step_peaks.main([str(db), "--buckets", "--workers", "2"]) == 0
    assert context.RunContext.step is step  # (put back)
    assert staging.pair_buckets is pair_buckets
    lines = capsys.readouterr().out.splitlines()
    figures = json.loads(lines[-1])
    assert figures["mode"] == "full"
    peaks = figures["step_peaks_mib"]
    assert {"prepare", "near", "near.verify", "assign", "write_back"} <= set(peaks)
    assert all(v > 0 for v in peaks.values())
    assert peaks["near"] >= peaks["near.verify"]  # a phase's peak holds its steps'
    buckets = figures["bucket_mib"]  # the verification's texts, staged by the readers
    assert buckets["buckets"] >= 1 and 0 < buckets["min"] <= buckets["median"] <= buckets["max"]
    assert any(line.endswith(f"near.verify: peak {peaks['near.verify']} MiB") for line in lines)
