"""Each annotated page's group beside the pages (``_webdedup_groups``, schema 11), and a write
lock that never reads the whole pages table.

The counts, group lists and review read the group columns in ``_webdedup_groups``: an index
on ``pages`` itself would have to be built by reading every row of it, texts included,
inside the write lock (3.5 s for a million 2 KB pages). These tests hold the table equal to
the annotations through every kind of run, prune and restore, and the upgrade of a database
annotated before it; and they trace every statement a batched run executes while it holds
the write lock: none may read the pages table whole.
"""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from conftest import real_texts, write_pages
from test_write_batches import TINY, change, crawl

from webdedup import Deduplicator
from webdedup.config import Config
from webdedup.output import export
from webdedup.output.source import NotAnnotated
from webdedup.output.stats import collect_stats
from webdedup.pipeline.prune import restore_pruned
from webdedup.store.counts import count


def groups(path) -> dict[int, tuple]:
    """``_webdedup_groups`` by id, checked to be what its tables by group and by kind hold
    (schema 14: they change with it, in the same transactions)."""
    conn = sqlite3.connect(path)
    try:
        rows = {r[0]: r[1:] for r in conn.execute("SELECT * FROM _webdedup_groups ORDER BY id")}
        assert sorted(conn.execute("SELECT * FROM _webdedup_group_members")) == sorted(
            (g, canonical or 0, i) for i, (g, _, canonical, *_) in rows.items() if g is not None)
        assert sorted(conn.execute("SELECT * FROM _webdedup_group_kinds")) == sorted(
            (k, g, i) for i, (g, k, *_) in rows.items() if g is not None and k is not None)
        return rows
    finally:
        conn.close()


def annotated(path) -> dict[int, tuple]:
    """``{rowid: (dup_group, dup_kind, is_canonical, dup_score)}`` of the annotated pages
    (the columns of ``_webdedup_groups``: the score since schema 13)."""
    conn = sqlite3.connect(path)
    try:
        return {
            r[0]: r[1:]
            for r in conn.execute(
                "SELECT rowid, dup_group, dup_kind, is_canonical, dup_score FROM pages "
                "WHERE dup_group IS NOT NULL OR dup_kind IS NOT NULL ORDER BY rowid"
            )
        }
    finally:
        conn.close()


def page_indexes(path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'pages'"
        )]
    finally:
        conn.close()


@pytest.mark.parametrize("write_lock", [0, TINY])
def test_the_groups_table_is_the_annotations_through_every_run(tmp_path, write_lock):
    path = write_pages(tmp_path / "crawl.sqlite", crawl(40))
    dedup = Deduplicator(config=Config(write_lock=write_lock))
    first = dedup.run_on_db(path)
    assert first.mode == "full" and first.near_duplicates > 0
    assert groups(path) == annotated(path) and len(groups(path)) == first.pages
    assert page_indexes(path) == []  # nothing built over the crawler's table
    change(path)  # updates, inserts, deletes
    night = dedup.run_on_db(path)
    assert night.mode == "incremental"
    assert groups(path) == annotated(path)
    full = dedup.run_on_db(path, full=True)
    assert groups(path) == annotated(path)
    conn = sqlite3.connect(path)
    counted = count(conn, "pages")
    conn.close()
    assert counted.pages == full.pages and counted.not_annotated == 0
    assert (counted.url_duplicates, counted.exact_duplicates, counted.near_duplicates) == (
        full.url_duplicates, full.exact_duplicates, full.near_duplicates
    )


def test_pruned_pages_leave_the_groups_and_come_back_with_a_restore(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", crawl(30))
    before = Deduplicator(config=Config()).run_on_db(path, prune=True)
    assert before.pruned > 0
    assert groups(path) == annotated(path)
    assert all(g[2] != 0 or g[1] == "thin" for g in groups(path).values())  # no loser left
    assert restore_pruned(path) == before.pruned
    assert groups(path) == annotated(path) and len(groups(path)) == before.pages


def test_pages_added_since_the_run_are_counted_as_not_annotated(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", crawl(20))
    Deduplicator(config=Config()).run_on_db(path)
    conn = sqlite3.connect(path)
    conn.executemany("INSERT INTO pages (url, content) VALUES (?, ?)",
                     [(f"https://late.example.org/{i}", t["text"])
                      for i, t in enumerate(real_texts()[300:303])])
    conn.commit()
    found = count(conn, "pages")
    conn.close()
    assert found.not_annotated == 3
    assert collect_stats(path).counts.not_annotated == 3


def test_a_database_annotated_before_schema_11_is_upgraded_from_its_pages(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", crawl(30))
    Deduplicator(config=Config()).run_on_db(path)
    expected = annotated(path)
    conn = sqlite3.connect(path)  # what webdedup schema 10 left: no groups, an index on pages
    conn.execute("DROP TABLE _webdedup_groups")
    conn.execute('CREATE INDEX "_webdedup_pages_kind_group" ON pages (dup_kind, dup_group)')
    conn.execute("UPDATE _webdedup_meta SET value = '10' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(NotAnnotated, match="older webdedup.*upgrade"):
        export(path, json_path=tmp_path / "report.json")
    with pytest.raises(Exception, match="older webdedup.*upgrade"):
        collect_stats(path)
    result = Deduplicator(config=Config()).run_on_db(path)
    assert result.mode == "incremental"  # nothing changed: the groups came from the pages
    assert groups(path) == expected == annotated(path)
    export(path, json_path=tmp_path / "report.json")


def test_a_database_annotated_before_schema_14_gets_its_group_and_kind_tables(tmp_path):
    """Schema 13 looked ``_webdedup_groups`` up by group and by kind through two indexes; the
    upgrade fills the two tables from its rows (once, in the next run's write) and drops
    the indexes. The readers ask for that run first."""
    path = write_pages(tmp_path / "crawl.sqlite", crawl(30))
    Deduplicator(config=Config()).run_on_db(path)
    expected = groups(path)
    report = tmp_path / "report.json"
    export(path, json_path=report)
    listed = json.loads(report.read_text())
    conn = sqlite3.connect(path)  # what webdedup schema 13 left
    conn.execute("DROP TABLE _webdedup_group_members")
    conn.execute("DROP TABLE _webdedup_group_kinds")
    conn.execute("CREATE INDEX _webdedup_groups_kind ON _webdedup_groups(dup_kind, dup_group)")
    conn.execute("CREATE INDEX _webdedup_groups_group ON _webdedup_groups(dup_group, "
                 "is_canonical)")
    conn.execute("UPDATE _webdedup_meta SET value = '13' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(NotAnnotated, match="older webdedup.*upgrade"):
        export(path, json_path=report)
    with pytest.raises(Exception, match="older webdedup.*upgrade"):
        collect_stats(path)
    assert Deduplicator(config=Config()).run_on_db(path).mode == "incremental"
    assert groups(path) == expected == annotated(path)  # (groups() checks the two tables)
    conn = sqlite3.connect(path)
    indexes = [r[0] for r in conn.execute("SELECT name FROM sqlite_schema "
                                          "WHERE type = 'index' AND tbl_name = '_webdedup_groups'")]
    conn.close()
    assert indexes == []
    export(path, json_path=report)
    again = json.loads(report.read_text())
    for kind in ("near", "exact", "url"):
        assert again[f"{kind}_duplicate_groups"] == listed[f"{kind}_duplicate_groups"]
    assert listed["near_duplicate_groups"]  # (a report with groups in it)


#: Statements that read every row of the pages table (texts included): never under the lock.
WHOLE_TABLE = (
    re.compile(r'CREATE\s+INDEX\b[^;]*\bON\s+"?pages"?', re.I),
    re.compile(r'FROM\s+"?pages"?\s+WHERE\s+"?(rowid|id)"?\s+NOT\s+IN', re.I),
    re.compile(r'count\(\*\)\s+FROM\s+"?pages"?\s*\)', re.I),
    # the run's counts (every annotated page's group): after the commit, not under the lock
    re.compile(r'count\(\*\)\s+FROM\s+main\._webdedup_groups', re.I),
    # a state table emptied row by row (a WHERE keeps SQLite from dropping its pages whole)
    re.compile(r'DELETE\s+FROM\s+main\.\S+\s+WHERE\s+1\s*(AND\s+1\s*)?$', re.I),
)


@pytest.mark.parametrize("first", [True, False])
def test_a_batched_run_never_reads_the_whole_table_under_the_lock(tmp_path, first):
    """Every statement executed while the run holds the write lock is traced; none may be a
    pass over ``pages`` (an index built on it, the rows the run did not see, a count). A
    crawler adds a page during the run's read, before the run installs its triggers: the
    rows the run did not see are found without the lock, and the next run annotates it."""
    path = write_pages(tmp_path / "crawl.sqlite", crawl(30))
    if not first:
        Deduplicator(config=Config()).run_on_db(path)
    text = real_texts()[250]["text"]

    def crawler(name: str) -> None:
        if name == "write_prepare":  # in the run's snapshot, before its write
            other = sqlite3.connect(path, timeout=5)
            other.execute("INSERT INTO pages (url, content) VALUES (?, ?)",
                          ("https://new.example.org/during", text))
            other.commit()
            other.close()

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")  # the crawler writes while the run reads
    locked: list[str] = []
    held = {"write": False}

    def trace(statement: str) -> None:
        head = statement.lstrip().upper()
        if head.startswith("BEGIN"):
            held["write"] = "IMMEDIATE" in head or "EXCLUSIVE" in head
        elif head.startswith(("COMMIT", "ROLLBACK", "END")):
            held["write"] = False
        elif held["write"]:
            locked.append(statement)

    conn.set_trace_callback(trace)
    result = Deduplicator(config=Config(write_lock=TINY), on_phase=crawler).run_on_db(
        conn, full=True
    )
    conn.set_trace_callback(None)
    conn.close()
    assert result.phases["write_back"]["transactions"] > 3 and locked
    whole = [s for s in locked if any(p.search(s) for p in WHOLE_TABLE)]
    assert whole == []
    # the counts, taken after the commit, are the run's and its row's all the same
    assert result.counts["pages"] == result.pages and result.groups > 0
    row = sqlite3.connect(path).execute(
        "SELECT groups, url_duplicates, exact_duplicates, near_duplicates FROM _webdedup_runs "
        "WHERE id = ?", (result.run_id,)
    ).fetchone()
    assert row == (result.groups, result.url_duplicates, result.exact_duplicates,
                   result.near_duplicates)
    assert result.counts["groups"] == result.groups
    late = sqlite3.connect(path).execute(
        "SELECT id, dup_group FROM pages WHERE url LIKE '%/during'"
    ).fetchone()
    assert late[1] is None  # added after the snapshot: not annotated by that run...
    second = Deduplicator(config=Config()).run_on_db(path)
    # ...but the next run's: a full one after a first run (no triggers while it read, so
    # rows updated meanwhile are unknown), else an incremental run over what was queued
    assert second.mode == ("full" if first else "incremental") and second.processed >= 1
    assert groups(path)[late[0]] == annotated(path)[late[0]]
    assert groups(path) == annotated(path)


def test_rows_renumbered_by_vacuum_are_never_listed_in_another_pages_group(tmp_path):
    """Without an INTEGER PRIMARY KEY, VACUUM renumbers the rowids: a groups row then names
    a rowid that now holds another page. Listings read the page's own annotation too, so a
    group never lists a page of another group (it lists fewer until the next run)."""
    path = write_pages(tmp_path / "crawl.sqlite", crawl(30), integer_pk=False)
    Deduplicator(config=Config()).run_on_db(path)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM pages WHERE rowid IN (1, 2, 5)")
    conn.commit()
    conn.execute("VACUUM")
    moved = conn.execute(
        "SELECT count(*) FROM pages AS p JOIN _webdedup_groups AS g ON g.id = p.rowid "
        "WHERE p.dup_group IS NOT g.dup_group"
    ).fetchone()[0]
    assert moved > 0  # the groups table names rows that now carry other groups
    export(path, json_path=tmp_path / "report.json")
    report = json.loads((tmp_path / "report.json").read_text())
    listed = [
        (group["id"], member)
        for kind in ("near", "exact", "url")
        for group in report[f"{kind}_duplicate_groups"]
        for member in group["members"]
    ]
    assert listed
    carried = dict(conn.execute("SELECT rowid, dup_group FROM pages"))
    conn.close()
    assert [(g, m) for g, m in listed if carried.get(m) != g] == []
    Deduplicator(config=Config()).run_on_db(path)  # the next run repairs the listings
    assert groups(path) == annotated(path)


@pytest.mark.parametrize("write_lock", [0, TINY])
def test_rows_a_crawler_changes_during_a_run_keep_the_groups_of_their_annotations(
    tmp_path, write_lock
):
    """The write-back skips a row whose URL changed after the run read it, and a row deleted
    meanwhile is gone: neither may get a groups row from the run's view of it."""
    path = write_pages(tmp_path / "crawl.sqlite", crawl(30))
    dedup = Deduplicator(config=Config(write_lock=write_lock))
    dedup.run_on_db(path)
    change(path)

    def crawler(name: str) -> None:
        if name == "write_prepare":  # in the run's snapshot, before its write
            other = sqlite3.connect(path, timeout=5)
            other.execute("UPDATE pages SET url = url || '?moved' WHERE id IN (2, 3, 4)")
            other.execute("DELETE FROM pages WHERE id IN (5, 6)")
            other.commit()
            other.close()

    night = Deduplicator(config=Config(write_lock=write_lock), on_phase=crawler).run_on_db(path)
    assert night.mode == "incremental"
    assert groups(path) == annotated(path)
    assert not {5, 6} & set(groups(path))
    dedup.run_on_db(path)  # the next run annotates the moved rows anew
    assert groups(path) == annotated(path)
