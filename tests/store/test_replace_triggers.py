"""The triggers that queue the rows a crawler's REPLACE deletes (``store/triggers.py``):
one lookup a UNIQUE key, with the index's collation and a partial index's ``WHERE``, so it
finds what SQLite deletes and uses the index (a crawler's insert must not scan the table)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from conftest import annotations, real_texts

from webdedup import Deduplicator
from webdedup.store.triggers import unique_keys

TABLES = {
    "plain": "CREATE UNIQUE INDEX u ON pages (url)",
    "nocase": "CREATE UNIQUE INDEX u ON pages (url COLLATE NOCASE)",
    "partial": "CREATE UNIQUE INDEX u ON pages (url) WHERE live = 1",
    "composite": "CREATE UNIQUE INDEX u ON pages (host, url)",
    # a parenthesis in the quoted name before the key (its WHERE was once not found)
    "quoted name": 'CREATE UNIQUE INDEX "u(url)" ON pages (url) WHERE live = 1',
}


def crawl(path: Path, index: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, host TEXT, live INTEGER, "
        "content TEXT)"
    )
    conn.execute(index)
    texts = real_texts()
    conn.executemany(
        "INSERT INTO pages (url, host, live, content) VALUES (?, 'a', 1, ?)",
        [(f"https://a.example/Page{i}", texts[i]["text"]) for i in range(12)]
        + [("https://b.example/copy", texts[3]["text"])],  # an exact copy of page 4
    )
    conn.commit()
    return conn


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_a_replace_under_any_unique_key_leaves_no_ghost_canonical(tmp_path, kind):
    path = tmp_path / "crawl.sqlite"
    conn = crawl(path, TABLES[kind])
    dedup = Deduplicator(method="minhash")
    dedup.run_on_db(path)
    # the crawler re-crawls page 4's URL (in another case: the NOCASE key's same URL) with
    # a new text; SQLite deletes row 4 to make room, and fires no delete trigger
    url = "https://a.example/page3" if kind == "nocase" else "https://a.example/Page3"
    conn.execute(
        "INSERT OR REPLACE INTO pages (url, host, live, content) VALUES (?, 'a', 1, ?)",
        (url, "Something else entirely, said again. " * 30),
    )
    conn.commit()
    assert conn.execute("SELECT count(*) FROM pages WHERE id = 4").fetchone() == (0,)
    twin = sqlite3.connect(tmp_path / "twin.sqlite")
    conn.backup(twin)
    twin.close()
    conn.close()
    assert dedup.run_on_db(path).mode == "incremental"
    Deduplicator(method="minhash").run_on_db(tmp_path / "twin.sqlite", full=True)
    assert annotations(path) == annotations(tmp_path / "twin.sqlite")


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_the_lookups_of_a_crawlers_insert_search_the_index(tmp_path, kind):
    path = tmp_path / "crawl.sqlite"
    crawl(path, TABLES[kind]).close()
    Deduplicator(method="minhash").run_on_db(path)
    conn = sqlite3.connect(path)
    (key,) = unique_keys(conn, "pages")
    statement = key.lookup('"pages"', '"id"', new=False).strip().rstrip(";")
    select = re.sub(r'NEW\."(?:[^"]|"")*"', "'x'", statement[statement.index("SELECT"):])
    plan = conn.execute("EXPLAIN QUERY PLAN " + select).fetchall()
    conn.close()
    details = " ".join(row[-1] for row in plan)
    assert "SCAN" not in details and re.search(r"INDEX u\b", details)


def test_a_unique_key_on_an_expression_is_named_in_a_note(tmp_path):
    """Its REPLACE deletes cannot be looked up from the new row: the run says so."""
    path = tmp_path / "crawl.sqlite"
    crawl(path, "CREATE UNIQUE INDEX by_lower ON pages (lower(url))").close()
    said: list[str] = []
    Deduplicator(method="minhash").run_on_db(path, on_message=said.append)
    assert any("'by_lower'" in line and "expression" in line for line in said)
    said.clear()
    crawl(tmp_path / "plain.sqlite", TABLES["plain"]).close()
    Deduplicator(method="minhash").run_on_db(tmp_path / "plain.sqlite", on_message=said.append)
    assert not any("expression" in line for line in said)
