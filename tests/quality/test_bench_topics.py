"""``benchmarks/speed/bench_topics.py`` (README, "Topic clusters"): it reads the cluster sizes
from the report's end, so a 1,000,000-page report is not loaded whole, and they add up to the
canonical pages."""

from __future__ import annotations

import json
import re

import pytest

from benchmarks.speed import bench_topics


def test_cluster_sizes_reads_the_last_list_from_the_end(tmp_path):
    clusters = [{"id": k, "size": 10 - k, "top_terms": ["x"]} for k in range(3)]
    report = tmp_path / "r.json"
    docs = ",\n  ".join(json.dumps({"id": i, "text": "é" * 50}) for i in range(3000))
    report.write_text(
        '{\n"meta": {},\n"documents": [\n  ' + docs + '\n],\n"topic_clusters": [\n  '
        + ",\n  ".join(map(json.dumps, clusters)) + "\n]\n}\n",
        encoding="utf-8",
    )
    assert bench_topics.cluster_sizes(report, tail=100) == [10, 9, 8]  # grows its window
    (tmp_path / "none.json").write_text('{"documents": []}\n', encoding="utf-8")
    with pytest.raises(ValueError):
        bench_topics.cluster_sizes(tmp_path / "none.json")


def test_the_script_prints_sizes_that_add_up_to_the_canonical_pages(capsys):
    assert bench_topics.main(["--pages", "600", "--topics", "4"]) == 0
    out = capsys.readouterr().out
    canonical = int(re.search(r"\(([\d,]+) canonical\)", out).group(1).replace(",", ""))
    sizes = re.search(r"4 clusters, sizes \[([\d, ]+)\]", out)
    assert sizes, out
    assert sum(map(int, sizes.group(1).split(","))) == canonical
