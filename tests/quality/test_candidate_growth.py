"""``benchmarks/studies/candidate_growth.py`` (docs/benchmarks.md, "What the candidates
are"): its figures are the verified pairs of a run, by score, on a real annotated database."""

from __future__ import annotations

import sqlite3

from benchmarks.studies import candidate_growth
from tests.conftest import make_page, real_texts, write_pages
from webdedup import Config, Deduplicator


def test_the_figures_count_the_runs_verified_pairs_by_score(tmp_path, capsys):
    texts = [t["text"] for t in real_texts(limit=60)]
    pages = [make_page(f"https://a{i % 5}.example/p{i}", t) for i, t in enumerate(texts)]
    # near copies (one edit), a page framed by other text, and pages sharing one paragraph
    pages += [make_page(f"https://b.example/c{i}", t.replace(" ", "  x ", 1))
              for i, t in enumerate(texts[:20])]
    pages += [make_page(f"https://c.example/s{i}", texts[i][:300] + " " + texts[i + 30])
              for i in range(20)]
    db = write_pages(tmp_path / "crawl.sqlite", pages)
    Deduplicator(config=Config(threshold=0.85)).run_on_db(db)

    got = candidate_growth.figures(db)
    conn = sqlite3.connect(db)
    scores = [s for (s,) in conn.execute("SELECT score FROM _webdedup_verified")]
    conn.close()
    assert got["pages"] == len(pages) and got["threshold"] == 0.85
    assert got["candidates"] == len(scores) > 0
    assert got["edges"] == sum(s >= 0.85 for s in scores) > 0
    assert got["low"] == sum(s < 0.1 for s in scores) > 0
    assert got["low"] + got["middle"] + got["edges"] == got["candidates"]
    assert got["low_same_host"] <= got["low"]

    assert candidate_growth.main([str(db), str(db)]) == 0  # (no growth between equal sizes)
    out = capsys.readouterr().out
    assert f"{len(pages):,}" in out and "none to measure" in out
