"""``benchmarks/studies/lock_holds.py`` (docs/benchmarks.md): one line for each write
transaction of a batched write-back, and a summary that adds them up."""

from __future__ import annotations

import json
import re

from benchmarks.studies import lock_holds
from tests.conftest import make_page, real_texts, write_pages


def test_every_write_transaction_is_a_line(tmp_path, capsys):
    texts = [t["text"] for t in real_texts(limit=40)]
    pages = [make_page(f"https://a{i % 4}.example/p{i}", t) for i, t in enumerate(texts)]
    corpus = write_pages(tmp_path / "corpus.sqlite", pages)
    before = corpus.read_bytes()
    lines = tmp_path / "holds.jsonl"
    assert lock_holds.main([str(corpus), "--work", str(tmp_path / "work"), "--write-lock",
                            "1e-9", "--jsonl", str(lines)]) == 0
    out = capsys.readouterr().out
    assert corpus.read_bytes() == before  # the corpus is copied, never written
    raw = [json.loads(line) for line in lines.read_text().splitlines()]
    annotations = [r for r in raw if r[1] == "annotations"]
    assert len(annotations) > 1 and sum(r[3] for r in annotations) == len(pages)
    printed = re.findall(r"^ +[\d.]+ +([\d.]+) +([\d,]+) +[\d.]+$", out, re.M)
    assert [int(rows.replace(",", "")) for _, rows in printed] == [r[3] for r in annotations]
    total = re.search(r"all holds ([\d.]+) s in (\d+) transactions", out)
    assert total and int(total[2]) == len(raw) > len(annotations)
