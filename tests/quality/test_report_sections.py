"""``benchmarks/studies/report_sections.py`` (docs/benchmarks.md): each list of the report is
timed with the items ``export --json`` writes, the report is the one ``export`` writes, and the
database is only read."""

from __future__ import annotations

import json
import re

from benchmarks.studies import report_sections
from tests.conftest import crawl_with_duplicates, dump, make_page, real_texts, write_pages
from webdedup import Deduplicator
from webdedup.output import json_report


def test_each_list_is_timed_with_the_reports_items(tmp_path, capsys):
    edited = [  # near duplicates: each text with its last words changed
        make_page(f"https://copies.example/{i}", " ".join(t["text"].split()[:-3] + ["a", "b"]))
        for i, t in enumerate(real_texts(12))
    ]
    db = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates() + edited)
    Deduplicator().run_on_db(db)
    before = dump(db)
    out = tmp_path / "report.json"
    assert report_sections.main([str(db), "--out", str(out), "--rounds", "1"]) == 0
    printed = capsys.readouterr().out
    assert dump(db) == before  # only read
    assert json_report._write_list.__name__ == "_write_list"  # the module's writer put back
    report = json.loads(out.read_text(encoding="utf-8"))
    lines = dict(re.findall(r"round 1 (\w+)\s+([\d,]+) (?:items|bytes)", printed))
    lists = [k for k in report if k != "meta"]
    assert list(lines) == [*lists, "report"]
    assert {k: int(v.replace(",", "")) for k, v in lines.items() if k != "report"} == {
        k: len(report[k]) for k in lists}
    assert int(lines["report"].replace(",", "")) == out.stat().st_size
    assert len(report["near_duplicate_pairs"]) > 0 and len(report["documents"]) > 0
