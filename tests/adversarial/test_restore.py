"""``webdedup restore`` keeps its promise, pages back under their original ids, or says which
pages it can't put back and why, and writes nothing: when the crawler reused a pruned page's
id, or re-crawled a pruned URL into a ``UNIQUE`` column (``ON CONFLICT REPLACE`` included,
which must not delete the crawler's newer row).

Real SQLite files: ``webdedup db --prune``, then a "crawler" writes, then ``restore``.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import crawl_with_duplicates, dump
from crashkit import integrity

from webdedup.cli import cli
from webdedup.errors import RestoreConflict

CRAWLER_COLUMNS = ("url", "title", "content", "datetime", "crawled", "category")


def crawl(path: Path, *, integer_pk: bool = True, url_clause: str = "") -> Path:
    """A crawl whose last row is a duplicate (so pruning frees the highest id)."""
    pages = crawl_with_duplicates(20)
    pages.append(dict(pages[0], url=pages[0]["url"] + "?utm_source=last"))
    conn = sqlite3.connect(path)
    pk = "id INTEGER PRIMARY KEY, " if integer_pk else ""
    cols = ", ".join(f"{c} TEXT{' ' + url_clause if c == 'url' else ''}" for c in CRAWLER_COLUMNS)
    conn.execute(f"CREATE TABLE pages ({pk}{cols})")
    conn.executemany(
        f"INSERT INTO pages ({', '.join(CRAWLER_COLUMNS)}) VALUES ({', '.join('?' * 6)})",
        [tuple(p.get(c) for c in CRAWLER_COLUMNS) for p in pages],
    )
    conn.commit()
    conn.close()
    return path


def cli_run(*args: Any) -> Any:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def rows(path: Path) -> dict[int, tuple[Any, ...]]:
    """``{rowid: the crawler's columns}`` of pages."""
    conn = sqlite3.connect(path)
    try:
        names = ", ".join(CRAWLER_COLUMNS)
        return {r[0]: r[1:] for r in conn.execute(f"SELECT rowid, {names} FROM pages")}
    finally:
        conn.close()


def pruned(path: Path) -> dict[int, tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        names = ", ".join(CRAWLER_COLUMNS)
        return {r[0]: r[1:] for r in conn.execute(f"SELECT _rowid, {names} FROM _webdedup_pruned")}
    finally:
        conn.close()


def prune(path: Path) -> tuple[dict[int, tuple[Any, ...]], dict[int, tuple[Any, ...]]]:
    """``db --prune``; the crawler's rows before it, and the pruned ones."""
    before = rows(path)
    result = cli_run("db", path, "--prune", "--quiet")
    assert result.exit_code == 0, result.output
    gone = pruned(path)
    assert gone and max(gone) == max(before)  # the highest id was pruned: free for reuse
    return before, gone


def crawler_insert(path: Path, url: str, content: str) -> int:
    """A crawler's new row, its id chosen by SQLite (no AUTOINCREMENT: max(rowid) + 1)."""
    conn = sqlite3.connect(path, timeout=10)
    cur = conn.execute("INSERT INTO pages (url, content) VALUES (?, ?)", (url, content))
    conn.commit()
    conn.close()
    return int(cur.lastrowid or 0)


def test_a_reused_id_is_refused_with_a_listing_and_nothing_written(tmp_path: Path) -> None:
    path = crawl(tmp_path / "crawl.sqlite", integer_pk=True)
    _, gone = prune(path)
    reused = crawler_insert(path, "https://new.example.org/fresh", "a page crawled after")
    assert reused == max(gone)  # the crawler took a pruned page's id
    before = dump(path)
    result = cli_run("restore", path)
    assert result.exit_code == RestoreConflict.exit_code == 3, result.output
    assert "nothing was restored" in result.output
    assert f"page {reused} ({gone[reused][0]}): its id is taken" in result.output
    assert "https://new.example.org/fresh" in result.output
    assert "Traceback" not in result.output
    assert dump(path) == before
    assert integrity(path) == "ok"


@pytest.mark.parametrize("clause", ["UNIQUE", "UNIQUE ON CONFLICT REPLACE"])
def test_a_recrawled_url_in_a_unique_column_is_refused_and_nothing_written(
    tmp_path: Path, clause: str
) -> None:
    path = crawl(tmp_path / "crawl.sqlite", url_clause=clause)
    before_prune, gone = prune(path)
    victim = min(gone)
    url = gone[victim][0]
    new_id = crawler_insert(path, url, "the same URL, crawled again")  # re-crawled
    before = dump(path)
    result = cli_run("restore", path)
    assert result.exit_code == 3, result.output
    assert f"page {victim} ({url}): UNIQUE constraint failed: pages.url" in result.output
    assert f"row {new_id} holds that value" in result.output
    assert "nothing was restored" in result.output
    # the crawler's newer row is there (ON CONFLICT REPLACE did not delete it), nothing moved
    assert dump(path) == before
    assert rows(path)[new_id][2] == "the same URL, crawled again"
    assert integrity(path) == "ok"


def test_restore_after_the_crawler_wrote_unrelated_pages_puts_every_page_back_under_its_id(
    tmp_path: Path,
) -> None:
    path = crawl(tmp_path / "crawl.sqlite", url_clause="UNIQUE")
    before, gone = prune(path)
    conn = sqlite3.connect(path)  # a crawler that picks ids beyond the pruned ones
    conn.execute("INSERT INTO pages (id, url, content) VALUES (1000, 'https://n.example/', 'x')")
    conn.commit()
    conn.close()
    result = cli_run("restore", path)
    assert result.exit_code == 0, result.output
    assert f"restored {len(gone):,} pages" in result.output
    after = rows(path)
    assert {k: v for k, v in after.items() if k != 1000} == before
    assert pruned(path) == {}


def test_without_an_integer_primary_key_a_taken_rowid_is_said_and_the_page_restored(
    tmp_path: Path,
) -> None:
    """A plain rowid is no stable id (VACUUM renumbers it): the page whose rowid the crawler
    took goes back under a new rowid, every page comes back, and the command says so."""
    path = crawl(tmp_path / "crawl.sqlite", integer_pk=False)
    before_prune, gone = prune(path)
    reused = crawler_insert(path, "https://new.example.org/fresh", "a page crawled after")
    assert reused == max(gone)
    result = cli_run("restore", path)
    assert result.exit_code == 0, result.output
    assert "1 page went back under a new rowid" in result.output
    back = rows(path)
    assert sorted(back.values()) == sorted([*before_prune.values(), back[reused]])
    assert integrity(path) == "ok"


def test_restore_after_a_deduplicator_call_leaves_the_crawlers_newer_rows_alone(
    tmp_path: Path,
) -> None:
    """``Deduplicator()(db)`` rewrote row 1's URL to its canonical form; the crawler then
    moved row 1 elsewhere and wrote a new row at that canonical URL. With an INTEGER PRIMARY
    KEY, ids are stable: restore puts back what is under row 1's id only, and the crawler's
    new row keeps its URL."""
    from webdedup import Deduplicator

    path = tmp_path / "crawl.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
    text = " ".join(f"word{i}" for i in range(80))
    conn.executemany("INSERT INTO pages (id, url, content) VALUES (?, ?, ?)", [
        (1, "http://www.a.org/x/?utm_source=feed", text),
        (2, "http://b.org/y", " ".join(f"other{i}" for i in range(80))),
    ])
    conn.commit()
    Deduplicator()(conn)
    (rewritten,) = conn.execute("SELECT url FROM pages WHERE id = 1").fetchone()
    assert rewritten != "http://www.a.org/x/?utm_source=feed"
    conn.execute("UPDATE pages SET url = 'https://a.org/moved' WHERE id = 1")
    conn.execute("INSERT INTO pages (id, url, content) VALUES (9, ?, 'the crawler')",
                 (rewritten,))
    conn.commit()
    conn.close()
    result = cli_run("restore", path)
    assert result.exit_code == 0, result.output
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT url FROM pages WHERE id = 9").fetchone()[0] == rewritten
        assert conn.execute("SELECT url FROM pages WHERE id = 1").fetchone()[0] == (
            "https://a.org/moved"
        )
    finally:
        conn.close()


def copies(path: Path) -> list[tuple[int, int, str, str]]:
    """``(_pruned_seq, _rowid, url, content)`` of every pruned copy, in order."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT _pruned_seq, _rowid, url, content FROM _webdedup_pruned ORDER BY _pruned_seq"
        ).fetchall()
    finally:
        conn.close()


def prune_a_reused_id_again(path: Path) -> tuple[dict[int, tuple[Any, ...]], int]:
    """Prune, let the crawler reuse the highest pruned id for another duplicate (the same
    URL again, a new text), prune again; the rows before the first prune and the id."""
    before, gone = prune(path)
    url, content = gone[max(gone)][0], gone[max(gone)][2]
    reused = crawler_insert(path, url, content + " crawled again")
    assert reused == max(gone)
    result = cli_run("db", path, "--prune", "--quiet")
    assert result.exit_code == 0, result.output
    return before, reused


def to_the_old_layout(path: Path) -> None:
    """The pruned table as webdedup made it before its copies had their own key: one row an
    id, ``_rowid INTEGER PRIMARY KEY``."""
    conn = sqlite3.connect(path)
    cols = [r[1] for r in conn.execute("PRAGMA table_info(_webdedup_pruned)")
            if r[1] not in ("_pruned_seq", "_rowid", "_pruned_at")]
    names = ", ".join(f'"{c}"' for c in cols)
    conn.executescript(f"""
        CREATE TABLE old (_rowid INTEGER PRIMARY KEY, _pruned_at TEXT NOT NULL, {names});
        INSERT INTO old SELECT _rowid, _pruned_at, {names} FROM _webdedup_pruned;
        DROP TABLE _webdedup_pruned;
        ALTER TABLE old RENAME TO _webdedup_pruned;
    """)
    conn.close()


def test_a_page_pruned_twice_under_one_id_keeps_both_copies_and_restore_asks_which(
    tmp_path: Path,
) -> None:
    """The crawler reused a pruned page's id (SQLite's max + 1) for a page that is pruned
    too. The second prune used to fail on ``_webdedup_pruned``'s key, stopping the run; now
    both copies are kept, restore lists both and writes nothing, and once one is dropped
    the other goes back under the id."""
    path = crawl(tmp_path / "crawl.sqlite")
    before, reused = prune_a_reused_id_again(path)
    twice = [c for c in copies(path) if c[1] == reused]
    assert len(twice) == 2 and twice[0][3] + " crawled again" == twice[1][3]
    snapshot = dump(path)
    result = cli_run("restore", path)
    assert result.exit_code == RestoreConflict.exit_code, result.output
    assert f"page {reused}: pruned 2 times" in result.output
    assert f"copies {twice[0][0]} ({twice[0][2]}, pruned " in result.output
    assert f"{twice[1][0]} ({twice[1][2]}, pruned " in result.output
    assert "nothing was restored" in result.output
    assert dump(path) == snapshot
    # what the message tells the user to run: it drops the older copy, keeps the last
    (delete,) = re.findall(r"\((DELETE FROM _webdedup_pruned WHERE [^)]*\))\)", result.output)
    assert delete == f"DELETE FROM _webdedup_pruned WHERE _pruned_seq IN ({twice[0][0]})"
    conn = sqlite3.connect(path)
    conn.execute(delete)
    conn.commit()
    conn.close()
    result = cli_run("restore", path)
    assert result.exit_code == 0, result.output
    after = rows(path)
    assert after[reused][2] == twice[1][3]  # the copy kept, under its id
    assert {k: v for k, v in after.items() if k != reused} == {
        k: v for k, v in before.items() if k != reused}
    assert copies(path) == []
    assert integrity(path) == "ok"


def test_without_an_integer_primary_key_both_copies_of_a_rowid_come_back(
    tmp_path: Path,
) -> None:
    path = crawl(tmp_path / "crawl.sqlite", integer_pk=False)
    before, reused = prune_a_reused_id_again(path)
    texts = [c[3] for c in copies(path) if c[1] == reused]
    assert len(texts) == 2
    result = cli_run("restore", path)
    assert result.exit_code == 0, result.output
    assert "1 page went back under a new rowid" in result.output
    back = sorted(r[2] for r in rows(path).values())
    assert back == sorted([*(r[2] for r in before.values()), texts[1]])
    assert integrity(path) == "ok"


def test_an_older_pruned_table_is_rebuilt_by_the_next_prune_and_read_by_restore(
    tmp_path: Path,
) -> None:
    path = crawl(tmp_path / "crawl.sqlite")
    before, gone = prune(path)
    to_the_old_layout(path)
    reused = crawler_insert(path, gone[max(gone)][0], "crawled again")
    result = cli_run("db", path, "--prune", "--quiet")
    assert result.exit_code == 0, result.output
    kept = copies(path)
    assert [c[1] for c in kept] == sorted([*gone, reused])
    assert [c[3] for c in kept if c[1] != reused] == [
        gone[k][2] for k in sorted(gone) if k != reused]
    other = tmp_path / "other.sqlite"  # restore straight from the old layout
    path2 = crawl(other)
    before2, _ = prune(path2)
    to_the_old_layout(path2)
    result = cli_run("restore", path2)
    assert result.exit_code == 0, result.output
    assert rows(path2) == before2
    assert copies(path2) == []


def test_an_older_pruned_table_holding_a_pruned_seq_column_is_refused_with_a_way_out(
    tmp_path: Path,
) -> None:
    """A crawler column named _pruned_seq was allowed before the pruned table used it: the
    rebuild says what to rename, writes nothing, and no page is lost."""
    path = crawl(tmp_path / "crawl.sqlite")
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE pages ADD COLUMN _pruned_seq TEXT")
    conn.commit()
    conn.close()
    assert cli_run("db", path, "--prune", "--quiet").exit_code != 0  # refused now: said
    conn = sqlite3.connect(path)  # as an older webdedup pruned it, the column copied along
    conn.executescript("""
        CREATE TABLE _webdedup_pruned (_rowid INTEGER PRIMARY KEY, _pruned_at TEXT NOT NULL,
                                       url, content, _pruned_seq);
        INSERT INTO _webdedup_pruned SELECT id, datetime('now'), url, content, 'x'
        FROM pages WHERE id = (SELECT max(id) FROM pages);
        DELETE FROM pages WHERE id = (SELECT max(id) FROM pages);
    """)
    conn.close()
    before = dump(path)
    result = cli_run("restore", path)
    assert result.exit_code != 0 and "RENAME COLUMN" in result.output, result.output
    assert "Traceback" not in result.output
    assert dump(path) == before
