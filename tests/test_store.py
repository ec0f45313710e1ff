"""The store: quoting, SQL files, migrations, schema versions."""

from __future__ import annotations

import sqlite3

import pytest
from conftest import crawl_with_duplicates

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
