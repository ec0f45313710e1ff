"""The store: quoting, SQL files, migrations, schema versions."""

from __future__ import annotations

import sqlite3

import pytest
from conftest import annotations, crawl_with_duplicates

from webdedup import Deduplicator
from webdedup.errors import SchemaTooNew
from webdedup.store import (
    connect,
    latest_schema_version,
    migrate,
    quote,
    schema_version,
    split_statements,
    sql,
    transaction,
    use_wal,
)


def test_temp_tables_get_the_page_cache_of_main(tmp_path):
    # PRAGMA cache_size without a schema sets main's only: a run's TEMP tables had a few
    # pages of cache and read their file for every other page
    path = tmp_path / "crawl.sqlite"
    sqlite3.connect(path).close()
    conn = connect(path)
    conn.execute("CREATE TEMP TABLE t (x)")  # the TEMP database exists from here on
    assert conn.execute("PRAGMA main.cache_size").fetchone()[0] == -65536
    assert conn.execute("PRAGMA temp.cache_size").fetchone()[0] == -65536
    conn.close()


def test_quote():
    assert quote("pages") == '"pages"'
    assert quote('we"ird name') == '"we""ird name"'
    with pytest.raises(ValueError):
        quote("")


def test_sql_files_load_and_placeholders_must_be_filled():
    assert "ROW_NUMBER()" in sql("elect_url", election="id ASC")
    with pytest.raises(ValueError, match="placeholders not filled"):
        sql("elect_url")


def test_split_statements_keeps_triggers_whole():
    script = (
        "CREATE TABLE t(a);\n-- comment\nCREATE TRIGGER x AFTER INSERT ON t BEGIN\n"
        "  SELECT 1;\n  SELECT 2;\nEND;\n"
    )
    assert len(split_statements(script)) == 2


def test_migrations_are_versioned_and_idempotent(tmp_path):
    conn = connect(tmp_path / "x.sqlite", must_exist=False)
    with transaction(conn):
        assert migrate(conn) == latest_schema_version()
    with transaction(conn):
        assert migrate(conn) == latest_schema_version()
    assert schema_version(conn) == latest_schema_version()


def test_newer_schema_is_refused(db_builder):
    path = db_builder(crawl_with_duplicates(3))
    Deduplicator().run_on_db(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE _webdedup_meta SET value = '999' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaTooNew, match="upgrade webdedup"):
        Deduplicator().run_on_db(path)


def test_wal_and_busy_timeout(db_builder):
    path = db_builder(crawl_with_duplicates(2))
    conn = connect(path, busy_timeout=2.5)
    # opening changes nothing in the file (issue #11): WAL only once a command will write
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 2500
    assert use_wal(conn, 2.5) == "wal"
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_transaction_rolls_back(tmp_path):
    conn = connect(tmp_path / "y.sqlite", must_exist=False)
    conn.execute("CREATE TABLE t (a)")
    with pytest.raises(RuntimeError):
        with transaction(conn):
            conn.execute("INSERT INTO t VALUES (1)")
            raise RuntimeError("boom")
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0


# -- sketches read packed (store.work.packed_sketches) ----------------------------------------
def _crawl_db(path, encoding):
    """The duplicate crawl in a new database whose text is ``encoding``."""
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA encoding = '{encoding}'")
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
    conn.executemany(
        "INSERT INTO pages (url, content) VALUES (?, ?)",
        [(p["url"], p["content"]) for p in crawl_with_duplicates()],
    )
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("encoding", ["UTF-8", "UTF-16le"])
def test_packed_sketches_are_the_stored_rows(tmp_path, encoding):
    """Packed a few rows at a time, the stored sketches come back whole, in id order, with
    their ids (gaps in the ids, and the smallest and largest rowids SQLite allows); where
    text is UTF-16 too (there group_concat would recode the BLOBs: they travel as hex)."""
    from webdedup.store.work import packed_sketches

    db = _crawl_db(tmp_path / "c.sqlite", encoding)
    Deduplicator().run_on_db(db)
    conn = connect(db)
    assert conn.execute("PRAGMA encoding").fetchone()[0] == encoding
    conn.execute("DELETE FROM _webdedup_sketches WHERE id % 5 = 0")  # gaps in the ids
    for extreme in (-(2**63), 2**63 - 1):
        conn.execute(
            "INSERT INTO _webdedup_sketches (id, scheme, sketch) "
            "SELECT ?, scheme, sketch FROM _webdedup_sketches WHERE id = 1",
            (extreme,),
        )
    rows = conn.execute("SELECT id, sketch FROM _webdedup_sketches ORDER BY id").fetchall()
    width = len(rows[0][1])
    assert len(rows) > 20 and {len(b) for _, b in rows} == {width}
    chunks = list(packed_sketches(conn, "region_stored_sketches", width, rows=7))
    assert len(chunks) > 3 and {len(c.ids) for c in chunks[:-1]} == {7}
    assert [i for c in chunks for i in c.ids.tolist()] == [i for i, _ in rows]
    assert b"".join(c.packed for c in chunks) == b"".join(b for _, b in rows)
    reading = packed_sketches(conn, "region_stored_sketches", width, rows=7)
    next(reading)
    assert conn.execute("SELECT 'x'").fetchone() == ("x",)  # text is text between chunks
    reading.close()
    # widths summing to the right total (one short, one long) are refused all the same
    conn.execute("UPDATE _webdedup_sketches SET sketch = x'' WHERE id = ?", (rows[3][0],))
    conn.execute(
        "UPDATE _webdedup_sketches SET sketch = randomblob(?) WHERE id = ?", (2 * width, rows[4][0])
    )
    with pytest.raises(ValueError, match=f"not {width} bytes"):
        list(packed_sketches(conn, "region_stored_sketches", width))
    conn.close()


def test_packed_sketches_of_wide_sketches_take_fewer_rows(tmp_path, monkeypatch):
    """A chunk stays under PACKED_BYTES (SQLite's strings end at a billion bytes): wide
    sketches (a large num_perm) come fewer at a time, and all of them come."""
    from webdedup.store import work

    conn = connect(tmp_path / "w.sqlite", must_exist=False)
    conn.execute("CREATE TABLE _webdedup_sketches (id INTEGER PRIMARY KEY, scheme, sketch)")
    conn.executemany(
        "INSERT INTO _webdedup_sketches VALUES (?, 's', ?)",
        [(i, bytes([i % 251]) * 4096) for i in range(1, 41)],
    )
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 50_000)  # 40 sketches of 4 KB would pass it
    monkeypatch.setattr(work, "PACKED_BYTES", 40_000)
    chunks = list(work.packed_sketches(conn, "region_stored_sketches", 4096))
    assert [len(c.ids) for c in chunks] == [9, 9, 9, 9, 4]
    whole = b"".join(bytes([i % 251]) * 4096 for i in range(1, 41))
    assert b"".join(c.packed for c in chunks) == whole
    conn.close()


def test_packed_sketches_put_rows_in_id_order():
    """An aggregate may take rows in any order: ids, columns and sketches are sorted together."""
    import numpy as np

    from webdedup.store.work import _in_id_order

    ids, col = np.array([5, 2, 9]), np.array([50, 20, 90])
    out_ids, (out_col,), packed = _in_id_order(ids, [col], b"aaBBcc", 2)
    assert out_ids.tolist() == [2, 5, 9] and out_col.tolist() == [20, 50, 90]
    assert packed == b"BBaacc"


@pytest.mark.parametrize("method", ["minhash", "simhash"])
def test_a_utf16_database_gets_the_groups_of_a_utf8_one(tmp_path, method):
    """Full and nightly runs read sketches packed; a UTF-16 database takes the hex path."""
    dbs = [_crawl_db(tmp_path / f"{e}.sqlite", e) for e in ("UTF-8", "UTF-16le")]
    for db in dbs:
        Deduplicator(method=method).run_on_db(db)
        conn = sqlite3.connect(db)
        conn.execute(
            "INSERT INTO pages (url, content) SELECT url || '?copy', content || ' Fin.' "
            "FROM pages WHERE id % 4 = 1"
        )
        conn.commit()
        conn.close()
        assert Deduplicator(method=method).run_on_db(db).mode == "incremental"
    assert annotations(dbs[0]) == annotations(dbs[1])
    assert len({v[3] for v in annotations(dbs[0]).values()}) > 10  # dup_group: many groups


_HTML = "<html><body><article><p>" + "The article of the HTML column, long enough. " * 12
_HTML += "</p></article></body></html>"


@pytest.mark.parametrize(
    "text",
    [
        "Caf\u00e9 \u201cquoted\u201d text \u6771\u4eac".encode(),
        b"Caf\xe9 latin-1 bytes, not UTF-8",
        b"  \t\n ",
        "\u00a0\u3000\u2028".encode(),  # blank for str.isspace, not for bytes.isspace
        "\u200b\u00ad".encode(),  # invisible only: normalizes to nothing, not blank
        b"\xed\xa0\x80 a surrogate",
        b"",
        "already text \u00e9",
        None,
    ],
)
@pytest.mark.parametrize("html", [None, _HTML])
def test_page_digest_reads_what_page_text_reads(text: bytes | str | None, html: str | None) -> None:
    from webdedup.algorithms.text import digest_text, sketch_utf8
    from webdedup.store.pages import PageInput, page_digest, page_sketch_utf8, page_text

    page = PageInput(1, "https://example.org/", text, html)
    assert page_digest(page) == digest_text(page_text(page))
    assert page_sketch_utf8(page) == sketch_utf8(page_text(page))


@pytest.mark.parametrize("segments", [False, True])
def test_phase1_extracts_a_blank_pages_html_once(monkeypatch, segments: bool) -> None:
    import webdedup.store.pages as pages_module
    from webdedup.algorithms.urls import IgnoreRules
    from webdedup.config import Config
    from webdedup.pipeline.phase1_prepare import prepare_page

    calls = []
    extract = pages_module.extract_text
    monkeypatch.setattr(pages_module, "extract_text", lambda html: calls.append(1) or extract(html))
    page = pages_module.PageInput(1, "https://example.org/a", b"  \n ", _HTML)
    rules = IgnoreRules.from_patterns([])
    row, utf8, _ = prepare_page(page, Config(count_segments=segments), rules)
    assert len(calls) == 1 and row.content_hash is not None and utf8.startswith(b"the article")


def test_the_crawlers_table_is_resolved_in_one_pass_over_the_catalogue(tmp_path):
    """The table, its columns, the last run's mapping and whose output columns are whose:
    one query of the catalogue, one of webdedup's meta values, one PRAGMA of the table."""
    from webdedup.config import Columns, Config
    from webdedup.store.layout import CrawlerTable

    path = tmp_path / "crawl.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE documents (id INTEGER PRIMARY KEY, link TEXT, body TEXT, content_hash TEXT)"
    )
    conn.executemany(
        "INSERT INTO documents (link, body, content_hash) VALUES (?, ?, 'theirs')",
        [("https://a.example/x", "one text"), ("https://a.example/y", "another text")],
    )
    conn.commit()
    conn.close()
    mapping = Columns(table="documents", url="link", content="body")
    Deduplicator(config=Config(columns=mapping)).run_on_db(path)

    conn = sqlite3.connect(path)
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    found = CrawlerTable.resolve(conn, Columns(), remember=True)
    conn.close()
    assert found.remembered and found.columns == mapping
    assert (found.layout.table, found.layout.url, found.layout.content) == (
        "documents", "link", "body")
    assert (found.crawler_columns, found.foreign) == (("content_hash",), ())
    assert len([s for s in seen if "sqlite_schema" in s]) == 1
    assert len([s for s in seen if s.lstrip().upper().startswith("PRAGMA")]) == 1
    assert len(seen) == 3


def test_a_first_run_adds_its_columns_without_importing_sqlite_utils(db_builder):
    # importing sqlite-utils (and the pandas it imports when installed) cost every first run
    # about half a second of CPU, only to add the output columns
    import subprocess
    import sys

    path = db_builder(crawl_with_duplicates(5))
    code = (
        "import sys; from webdedup import Config, Deduplicator; "
        "Deduplicator(workers=1, config=Config()).run_on_db(sys.argv[1]); "
        "print(sorted({'sqlite_utils', 'pandas'} & set(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
    conn = sqlite3.connect(path)
    (schema,) = conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'pages'").fetchone()
    conn.close()
    mark = " /* webdedup */"  # how a later run knows them as webdedup's (OUTPUT_MARK)
    assert schema.endswith(
        f', "canonical_url" TEXT{mark}, "content_hash" TEXT{mark}, '
        f'"exact_group_size" INTEGER{mark}, "dup_group" INTEGER{mark}, '
        f'"dup_group_size" INTEGER{mark}, "canonical_id" INTEGER{mark}, '
        f'"is_canonical" INTEGER{mark}, "dup_kind" TEXT{mark}, "dup_score" REAL{mark})'
    )
    assert len(annotations(path)) == len(crawl_with_duplicates(5))


def test_add_column_takes_only_the_four_types(tmp_path):
    from webdedup.store.tables import add_column, table_columns

    conn = sqlite3.connect(tmp_path / "t.sqlite")
    conn.execute('CREATE TABLE "we""ird" (id INTEGER PRIMARY KEY)')
    add_column(conn, 'we"ird', 'sc"ore', "REAL")
    assert table_columns(conn, 'we"ird') == ["id", 'sc"ore']
    with pytest.raises(ValueError, match="not one of TEXT, INTEGER, REAL, BLOB"):
        add_column(conn, 'we"ird', "x", "TEXT; DROP TABLE pages")
    conn.close()


def test_the_rowid_bounds_are_looked_up_not_scanned(tmp_path):
    """A full run's first step asks for the table's first and last rowid: SQLite looks a lone
    min() or max() up, but scans every row (and at ten million pages 31 GB of texts from the
    disk) for both in one query. The work, in VM steps, must not grow with the pages."""
    from webdedup.store.layout import Layout
    from webdedup.store.pages import rowid_bounds

    def steps(pages: int) -> tuple[tuple[int, int] | None, int]:
        conn = sqlite3.connect(tmp_path / f"p{pages}.sqlite")
        conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
        conn.executemany("INSERT INTO pages VALUES (?, ?, ?)",
                         [(3 * i + 5, f"https://a.example/{i}", "text " * 50)
                          for i in range(pages)])
        conn.commit()
        count = [0]

        def tick() -> int:
            count[0] += 1
            return 0

        conn.set_progress_handler(tick, 1)
        found = rowid_bounds(conn, Layout(table="pages", url="url", rowid="id"))
        conn.close()
        return found, count[0]

    (small, few), (large, many) = steps(10), steps(20_000)
    assert small == (5, 32) and large == (5, 3 * 19_999 + 5)
    assert many <= few + 20, (few, many)  # (one query over the whole table: tens of thousands)
    empty = sqlite3.connect(":memory:")
    empty.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT)")
    assert rowid_bounds(empty, Layout(table="pages", url="url")) is None
