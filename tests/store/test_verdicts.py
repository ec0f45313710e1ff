"""Reviewer verdicts (``_webdedup_verdicts``) are honoured by every later run.

A "not a duplicate" pair never meets in one near group again; a page chosen as canonical
stays its group's canonical while it is in the group and not deleted. Incremental runs
re-open the region around a page whose verdict changed and agree with a full run.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import annotations, make_page, real_texts, write_pages

from webdedup import Deduplicator
from webdedup.output import explain_pair, format_explanation
from webdedup.store import connect, migrate, transaction
from webdedup.store.verdicts import add_verdict, read_verdicts, withdraw_verdict

# annotations() columns: canonical_url, content_hash, exact_group_size, dup_group,
# dup_group_size, canonical_id, is_canonical, dup_kind, dup_score
GROUP, CANONICAL, KIND = 3, 5, 7


def near_family(path: Path) -> Path:
    """An original (ids 1), three edited copies on other hosts (2-4), and 8 unrelated pages.

    The original is the newest, so the election makes it canonical.
    """
    words = real_texts()[5]["text"].split()[:300]
    copies = []
    for k, at in enumerate((60, 150, 240)):
        edited = list(words)
        edited[at] = "EDITED"
        edited[at + 7] = f"word{k}"
        copies.append(" ".join(edited))
    pages = [make_page("https://origin.example/story", " ".join(words), datetime="2024-05-01")]
    pages += [
        make_page(f"https://copy{k}.example/story", text, datetime="2024-01-01")
        for k, text in enumerate(copies)
    ]
    pages += [
        make_page(f"https://other{i}.example/", real_texts()[40 + i]["text"]) for i in range(8)
    ]
    return write_pages(path, pages)


def give(path: Path, kind: str, a: int, b: int | None = None) -> int:
    conn = connect(path)
    try:
        with transaction(conn):
            migrate(conn)
            return add_verdict(conn, kind, a, b)
    finally:
        conn.close()


def full_twin(path: Path, tmp: Path, method: str = "minhash") -> dict:
    twin = tmp / "twin.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    shutil.copy(path, twin)
    Deduplicator(method=method).run_on_db(twin, full=True)
    return annotations(twin)


@pytest.fixture
def family(tmp_path: Path) -> Path:
    path = near_family(tmp_path / "crawl.sqlite")
    Deduplicator().run_on_db(path)
    rows = annotations(path)
    assert {rows[i][CANONICAL] for i in (1, 2, 3, 4)} == {1}  # one near group around #1
    assert [rows[i][KIND] for i in (2, 3, 4)] == ["near"] * 3
    return path


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
def test_not_a_duplicate_is_never_grouped_again(family, tmp_path, full):
    give(family, "not_duplicate", 3, 1)
    result = Deduplicator().run_on_db(family, full=full)
    assert result.mode == ("full" if full else "incremental")
    rows = annotations(family)
    assert rows[3][GROUP] != rows[1][GROUP]  # #3 left #1's group...
    assert rows[2][CANONICAL] == rows[4][CANONICAL] == 1  # ...the others stayed
    if not full:
        assert result.processed < 12  # only the region around the verdict's pages
        assert rows == full_twin(family, tmp_path)
    # a later plain run keeps it apart (the verdict stays in force)
    Deduplicator().run_on_db(family, full=True)
    assert annotations(family)[3][GROUP] != annotations(family)[1][GROUP]


def test_a_common_neighbour_does_not_bring_a_cannot_link_pair_together(family):
    # #2 and #3 are both linked to #1 (and to each other): dropping their own edge alone
    # would leave them in #1's star; the verdict must evict one of them
    give(family, "not_duplicate", 2, 3)
    Deduplicator().run_on_db(family)
    rows = annotations(family)
    assert rows[2][GROUP] != rows[3][GROUP]


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
def test_chosen_canonical_stays_canonical(family, tmp_path, full):
    give(family, "canonical", 4, 1)
    Deduplicator().run_on_db(family, full=full)
    rows = annotations(family)
    assert {rows[i][CANONICAL] for i in (1, 2, 3, 4)} == {4}
    assert rows[4][KIND] is None and rows[1][KIND] == "near"
    if not full:
        assert rows == full_twin(family, tmp_path)
    # a newer copy of the original arrives: the reviewer's choice still wins the election
    conn = sqlite3.connect(family)
    with conn:
        conn.execute(
            "INSERT INTO pages (url, content, datetime) SELECT url || '?v=2', content, "
            "'2025-01-01' FROM pages WHERE id = 1"
        )
    conn.close()
    Deduplicator().run_on_db(family)
    assert annotations(family)[13][CANONICAL] == 4


def test_withdrawn_verdict_restores_the_election(family):
    vid = give(family, "canonical", 4, 1)
    Deduplicator().run_on_db(family)
    conn = connect(family)
    with transaction(conn):
        assert withdraw_verdict(conn, vid)
    conn.close()
    result = Deduplicator().run_on_db(family)
    assert result.mode == "incremental"
    assert annotations(family)[4][CANONICAL] == 1


def test_verdicts_on_a_deleted_page_are_ignored(family, tmp_path):
    give(family, "canonical", 4, 1)
    give(family, "not_duplicate", 2, 1)
    Deduplicator().run_on_db(family)
    conn = sqlite3.connect(family)
    with conn:
        conn.execute("DELETE FROM pages WHERE id IN (4, 2)")
    conn.close()
    result = Deduplicator().run_on_db(family)
    assert result.mode == "incremental"
    rows = annotations(family)
    assert 4 not in rows and 2 not in rows
    assert rows[3][CANONICAL] == 1 and rows[1][KIND] is None  # the election decides again
    assert rows == full_twin(family, tmp_path)


def test_explain_names_the_verdict_that_decided(family):
    give(family, "not_duplicate", 3, 1)
    give(family, "canonical", 4, 1)
    Deduplicator().run_on_db(family)
    apart = format_explanation(explain_pair(family, "3", "1"))
    assert "not a duplicate of #1" in apart and "reviewer verdict" in apart
    chosen = explain_pair(family, "4", "1")
    assert any(d["key"] == "reviewer" for d in chosen["election"]["decisions"])
    assert "chosen as canonical by a reviewer" in format_explanation(chosen)


def test_the_levenshtein_window_honours_both_verdicts(tmp_path):
    path = near_family(tmp_path / "crawl.sqlite")
    d = Deduplicator(method="levenshtein")
    d.run_on_db(path)
    assert {annotations(path)[i][CANONICAL] for i in (1, 2, 3, 4)} == {1}
    give(path, "not_duplicate", 3, 1)
    give(path, "canonical", 2, 1)
    assert d.run_on_db(path).mode == "incremental"
    rows = annotations(path)
    assert rows[3][GROUP] != rows[2][GROUP]
    assert rows[1][CANONICAL] == rows[4][CANONICAL] == 2
    assert rows == full_twin(path, tmp_path, "levenshtein")


def test_a_chosen_canonical_wins_the_url_and_exact_elections_too(tmp_path):
    text = " ".join(real_texts()[9]["text"].split()[:200])
    path = write_pages(
        tmp_path / "crawl.sqlite",
        [
            make_page("https://site.example/a", text, datetime="2024-05-01"),
            make_page("http://site.example/a?utm_source=x", text, datetime="2024-01-01"),
            make_page("https://mirror.example/a", text.upper(), datetime="2024-01-01"),
        ],
    )
    Deduplicator().run_on_db(path)
    rows = annotations(path)
    assert [rows[i][KIND] for i in (1, 2, 3)] == [None, "url", "exact"]
    give(path, "canonical", 2, 1)  # the URL variant
    Deduplicator().run_on_db(path)
    rows = annotations(path)
    assert [rows[i][CANONICAL] for i in (1, 2, 3)] == [2, 2, 2]
    assert [rows[i][KIND] for i in (1, 2, 3)] == ["url", None, "exact"]
    give(path, "canonical", 3, 2)  # the later choice wins
    Deduplicator().run_on_db(path, full=True)
    assert [annotations(path)[i][CANONICAL] for i in (1, 2, 3)] == [3, 3, 3]


def test_verdicts_of_schema_9_survive_the_upgrade_to_labels(family):
    """Schema 10 rebuilds the table (a third kind, a score): the verdicts already given, and
    the trigger that queues their pages, are kept."""
    give(family, "not_duplicate", 3, 1)
    conn = sqlite3.connect(family)
    with conn:  # the table as schema 9 left it
        conn.executescript(
            "CREATE TABLE old AS SELECT id, kind, page_a, page_b, created_at, note "
            "FROM _webdedup_verdicts; DROP TABLE _webdedup_verdicts; "
            "CREATE TABLE _webdedup_verdicts (id INTEGER PRIMARY KEY, kind TEXT NOT NULL "
            "CHECK (kind IN ('not_duplicate', 'canonical')), page_a INTEGER NOT NULL, "
            "page_b INTEGER, created_at TEXT NOT NULL, note TEXT); "
            "INSERT INTO _webdedup_verdicts SELECT * FROM old; DROP TABLE old; "
            "UPDATE _webdedup_meta SET value = '9' WHERE key = 'schema_version';"
        )
        columns = [r[1] for r in conn.execute("PRAGMA table_info(_webdedup_verdicts)")]
    conn.close()
    assert "score" not in columns
    Deduplicator().run_on_db(family)  # migrates
    assert give(family, "duplicate", 2, 1) == 2
    conn = connect(family)
    try:
        kept = read_verdicts(conn)
        queued = conn.execute("SELECT count(*) FROM _webdedup_changes WHERE op = 'verdict'")
        assert queued.fetchone()[0] == 2  # the new verdict's two pages
    finally:
        conn.close()
    assert [(v.kind, v.page_a, v.page_b, v.score) for v in kept] == [
        ("not_duplicate", 3, 1, None), ("duplicate", 2, 1, None)]
    rows = annotations(family)
    assert rows[3][GROUP] != rows[1][GROUP] and rows[2][CANONICAL] == 1
