"""Heavy-load shapes that once never finished: many identical pages in one exact group."""

from __future__ import annotations

import sqlite3

import pytest
from conftest import real_texts

from webdedup import Config, Deduplicator
from webdedup.pipeline.phase3_elect_exact import exact_components


class Counted(int):
    """A page id that counts the comparisons made between ids."""

    calls = 0

    def __lt__(self, other: object) -> bool:
        Counted.calls += 1
        return int(self) < int(other)  # type: ignore[call-overload]

    def __gt__(self, other: object) -> bool:
        Counted.calls += 1
        return int(self) > int(other)  # type: ignore[call-overload]

    __hash__ = int.__hash__


@pytest.mark.parametrize("size", [1_000, 20_000])
def test_exact_components_compares_each_winner_a_bounded_number_of_times(size):
    """One text shared by ``size`` URL winners: electing the component's id must cost
    O(size) comparisons (re-evaluating ``min(group)`` per member cost size² and made
    200,000 identical pages never finish)."""
    ids = [Counted(i) for i in range(size, 0, -1)]
    Counted.calls = 0
    components = exact_components([ids[: size // 2], ids[size // 2 - 1 :]])
    assert Counted.calls <= 4 * size, Counted.calls
    assert set(components.values()) == {1}
    assert len(components) == size


def identical_pages(path, count: int) -> None:
    text = real_texts()[0]["text"]
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
    conn.executemany(
        "INSERT INTO pages (url, content) VALUES (?, ?)",
        ((f"https://mirror{i % 997}.example.net/copy/{i}", text) for i in range(count)),
    )
    conn.commit()
    conn.close()


@pytest.mark.slow
def test_200000_identical_pages_finish(tmp_path):
    path = tmp_path / "same.sqlite"
    identical_pages(path, 200_000)
    result = Deduplicator(config=Config()).run_on_db(path)
    assert result.exact_duplicates == 199_999
    conn = sqlite3.connect(path)
    assert conn.execute(
        "SELECT count(DISTINCT dup_group), min(exact_group_size), max(exact_group_size), "
        "sum(is_canonical) FROM pages"
    ).fetchone() == (1, 200_000, 200_000, 1)
    conn.close()


def test_a_full_rerun_rewrites_no_unchanged_row_and_reports_its_write_lock(tmp_path):
    """Only rows whose annotation changes are written inside the write lock (a crawler's own
    trigger counts the rows updated), and the run reports how long it held the lock."""
    path = tmp_path / "crawl.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
    texts = [t["text"] for t in real_texts()[:40]]
    conn.executemany(
        "INSERT INTO pages (url, content) VALUES (?, ?)",
        [(f"https://a.example/{i}", texts[i % 30]) for i in range(60)],
    )
    conn.commit()
    first = Deduplicator(config=Config()).run_on_db(path)
    assert 0 < first.timings["write_lock"] < first.wall_seconds
    conn.executescript(
        "CREATE TABLE crawler_updates (n INTEGER); INSERT INTO crawler_updates VALUES (0);"
        "CREATE TRIGGER crawler_counts AFTER UPDATE ON pages "
        "BEGIN UPDATE crawler_updates SET n = n + 1; END;"
    )
    before = conn.execute("SELECT * FROM pages ORDER BY id").fetchall()
    again = Deduplicator(config=Config()).run_on_db(path, full=True)
    assert again.mode == "full"
    assert conn.execute("SELECT n FROM crawler_updates").fetchone() == (0,)
    assert conn.execute("SELECT * FROM pages ORDER BY id").fetchall() == before
    # one changed text: its exact group of 2 (ids 5 and 35) splits, both rows are rewritten
    conn.execute("UPDATE pages SET content = content || ' changed for good' WHERE id = 5")
    conn.execute("UPDATE crawler_updates SET n = 0")
    conn.commit()
    Deduplicator(config=Config()).run_on_db(path, full=True)
    assert conn.execute("SELECT n FROM crawler_updates").fetchone() == (2,)
    conn.close()
