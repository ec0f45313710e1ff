"""``benchmarks/studies/sketch_pass.py`` (docs/benchmarks.md): the stored sketches read row by
row and from their blocks find the same pages, and the database is only read."""

from __future__ import annotations

import re

from benchmarks.studies import sketch_pass
from tests.conftest import dump, make_page, real_texts, write_pages
from webdedup import Deduplicator


def test_both_reads_are_timed_and_find_the_same_pages(tmp_path, capsys):
    texts = [t["text"] for t in real_texts(limit=40)]
    pages = [make_page(f"https://a.example/p{i}", t) for i, t in enumerate(texts)]
    pages += [make_page(f"https://b.example/p{i}", t + " more") for i, t in enumerate(texts[:9])]
    db = write_pages(tmp_path / "crawl.sqlite", pages)
    Deduplicator().run_on_db(db)
    before = dump(db)
    assert sketch_pass.main([str(db), "--new", "5", "--new", "12", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert dump(db) == before  # only read
    lines = re.findall(r"--new (\d+) round 1 (rows|blocks): .*\(([\d,]+) sketches, ([\d,]+) "
                       r"stored pages found\)", out)
    assert [(n, side) for n, side, *_ in lines] == [
        ("5", "rows"), ("5", "blocks"), ("12", "rows"), ("12", "blocks")]
    assert {int(s.replace(",", "")) for _, _, s, _ in lines} == {len(pages)}
    # each changed page finds itself at least (its own sketch is stored)
    assert [int(f) >= int(n) for n, _, _, f in lines] == [True] * 4
    assert "1 sketch blocks, 0 stale ids" in out
