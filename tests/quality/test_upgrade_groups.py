"""``benchmarks/studies/upgrade_groups.py`` (docs/nightly.md): the upgrade to schema 14 timed
on a copy set back to schema 13, and the copy's tables then what a run leaves."""

from __future__ import annotations

import re
import sqlite3

from benchmarks.studies import upgrade_groups
from tests.conftest import make_page, real_texts, write_pages
from webdedup import Deduplicator


def test_the_upgrade_is_timed_on_a_copy_set_back_to_schema_13(tmp_path, capsys):
    texts = [t["text"] for t in real_texts(limit=30)]
    pages = [make_page(f"https://a.example/p{i}", t) for i, t in enumerate(texts)]
    pages += [make_page(f"https://b.example/p{i}", t) for i, t in enumerate(texts[:10])]
    db = write_pages(tmp_path / "crawl.sqlite", pages)
    Deduplicator().run_on_db(db)
    before = db.read_bytes()
    seen = []
    back = upgrade_groups.back_to_13

    def watched(conn: sqlite3.Connection) -> None:
        back(conn)
        seen.append(sorted(r[0] for r in conn.execute(
            "SELECT name FROM sqlite_schema WHERE name LIKE '\\_webdedup\\_group%' ESCAPE '\\'")))

    upgrade_groups.back_to_13 = watched
    try:
        assert upgrade_groups.main([str(db), "--work", str(tmp_path / "work")]) == 0
    finally:
        upgrade_groups.back_to_13 = back
    out = capsys.readouterr().out
    assert db.read_bytes() == before  # the database is copied, never written
    upgraded = r"round \d: schema 13 -> 15 in ([\d.]+) s .*\((\d+) groups rows\)"
    rounds = re.findall(upgraded, out)
    assert len(rounds) == 2 and all(int(n) == len(pages) for _, n in rounds)
    # each round starts from what schema 13 left: the indexes, no tables by group and kind
    assert seen == [["_webdedup_groups", "_webdedup_groups_group", "_webdedup_groups_kind"]] * 2
    assert not list((tmp_path / "work").iterdir())  # the copy is gone
