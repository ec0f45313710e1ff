"""Regression tests for the data-path breaks of issue #11 (hostile names, cells and files), and
random hostile cells in every input column (hypothesis)."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

import pytest
from conftest import SHARED_DATA
from hostile import (
    FIELDS,
    PAYLOAD,
    assert_clean,
    assert_intact,
    build_crawl,
    cli,
    column_args,
    toml_config,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

WARCS = SHARED_DATA / "warc"


def _every_command(db: Path, table_args: list[str], table: str = "pages") -> None:
    """db, export (json/csv/html), explain, stats, db --prune and restore: all exit 0."""
    out = db.parent
    res = cli("db", db, *table_args, "--workers", "1", "-q")
    assert_clean(res, db, codes=frozenset({0}))
    res = cli("export", db, "--json", out / "r.json", "--csv", out / "r.csv", "--html",
              out / "r.html", "-q")
    assert_clean(res, db, codes=frozenset({0}))
    assert_clean(cli("explain", db, "1", "2"), db, codes=frozenset({0}))
    assert_clean(cli("explain", db, "1", "2", "--json"), db, codes=frozenset({0}))
    assert_clean(cli("stats", db), db, codes=frozenset({0}))
    res = cli("db", db, *table_args, "--workers", "1", "-q", "--prune")
    assert_clean(res, db, codes=frozenset({0}))
    res = cli("restore", db, "--table", table)
    assert_clean(res, db, codes=frozenset({0}))
    assert int(res.output.split()[1]) > 0  # something was pruned and came back


# -- 1. identifiers: the injection of issue #11, and names that look like placeholders -----


def test_payload_from_toml_config_drops_nothing(tmp_path):
    db = build_crawl(tmp_path / "c.sqlite", table="a{url}", names={"url": PAYLOAD})
    cfg = toml_config(tmp_path / "w.toml", "a{url}", {"url": PAYLOAD})
    _every_command(db, ["--config", str(cfg)], "a{url}")
    conn = sqlite3.connect(db)
    urls = conn.execute('SELECT count(*) FROM "a{url}" WHERE canonical_url IS NOT NULL')
    assert urls.fetchone()[0] > 0  # the run worked on the hostile names


def test_payload_from_table_and_column_options(tmp_path):
    # --column strips the value: the table holds the stripped name, so the run works on it
    name = PAYLOAD.strip()
    db = build_crawl(tmp_path / "c.sqlite", table="a{url}", names={"url": name})
    _every_command(db, ["--table", "a{url}", *column_args({"url": name})], "a{url}")
    # and a name the table lacks is a clean "no such column" (exit 3), nothing dropped
    res = cli("db", db, "--table", "a{url}", "--column", "url=x{url};DROP TABLE canary;--")
    assert_clean(res, db, codes=frozenset({3}))


@pytest.mark.parametrize(
    ("table", "names"),
    [
        ("pages{url}", {}),
        ("{title}", {"url": "{url}", "title": "{pages}", "content": "{text}"}),
        ("pages", {"url": "{rowid}", "content": "{html}"}),
    ],
)
def test_placeholder_like_names(tmp_path, table, names):
    db = build_crawl(tmp_path / "c.sqlite", table=table, names=names)
    _every_command(db, ["--table", table, *column_args(names)], table)


def test_ingest_into_placeholder_like_table(tmp_path):
    db = tmp_path / "i.sqlite"
    res = cli("ingest", db, WARCS / "iana-dupes.warc.gz", "--table", "pg{table}",
              "--column", "url={url}", "--workers", "1", "-q")
    assert_clean(res, codes=frozenset({0}))
    conn = sqlite3.connect(db)
    assert conn.execute('SELECT count(*) FROM "pg{table}"').fetchone()[0] == 2
    conn.close()
    res = cli("db", db, "--table", "pg{table}", "--column", "url={url}", "--workers", "1", "-q")
    assert_clean(res, codes=frozenset({0}))


def test_webdedup_own_table_names_are_refused(tmp_path):
    db = build_crawl(tmp_path / "c.sqlite")
    for table in ("_webdedup_pruned", "_webdedup_meta", "sqlite_master"):
        assert_clean(cli("db", db, "--table", table), db, codes=frozenset({3}))
        assert_clean(cli("restore", db, "--table", table), db, codes=frozenset({3}))


# -- 2./3. invalid UTF-8 and BLOB cells ------------------------------------------------------


def test_invalid_utf8_url_does_not_stop_runs(tmp_path):
    db = build_crawl(tmp_path / "c.sqlite")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE pages SET url = CAST(X'68747470733A2F2F612E6F72672FFF' AS TEXT) "
                 "WHERE id = 3")
    conn.commit()
    conn.close()
    _every_command(db, [])
    # and again, incrementally, after a change to another row
    conn = sqlite3.connect(db)
    conn.execute("UPDATE pages SET title = 'changed' WHERE id = 4")
    conn.commit()
    conn.close()
    assert_clean(cli("db", db, "--workers", "1", "-q"), db, codes=frozenset({0}))


def test_blob_cells_read_as_text_everywhere(tmp_path):
    db = build_crawl(tmp_path / "c.sqlite")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE pages SET url = CAST(url AS BLOB), content = CAST(content AS BLOB), "
                 "title = CAST(title AS BLOB), datetime = CAST(datetime AS BLOB) "
                 "WHERE id % 2 = 0")
    conn.execute("UPDATE pages SET title = X'FFFE41', url = CAST(url AS BLOB) WHERE id = 1")
    conn.commit()
    conn.close()
    _every_command(db, [])
    report = json.loads((tmp_path / "r.json").read_text())
    doc = {d["id"]: d for d in report["documents"]}
    assert doc[1]["title"] == "\ufffd\ufffdA"
    assert doc[2]["url"].startswith("http")
    csv_text = (tmp_path / "r.csv").read_text()
    assert "b'" not in csv_text and "\ufffd\ufffdA" in csv_text
    explained = cli("explain", db, "1", "2", "--json")
    assert json.loads(explained.output)["pages"][0]["title"] == "\ufffd\ufffdA"


# -- 4. cut gzip WARCs -----------------------------------------------------------------------


def test_cut_gzip_warc_is_reported_with_exit_7(tmp_path):
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes((WARCS / "aut-2008-crawl.warc.gz").read_bytes()[:300_000])
    db = tmp_path / "i.sqlite"
    res = cli("ingest", db, cut, "--workers", "1", "-q")
    assert_clean(res, codes=frozenset({7}))
    assert "cut.warc.gz at offset 299806" in res.output and "cut short" in res.output
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM pages").fetchone()[0] == 8  # the good ones


def test_gzip_header_then_garbage_is_reported(tmp_path):
    good = (WARCS / "iana-dupes.warc.gz").read_bytes()
    bad = tmp_path / "bad.warc.gz"
    bad.write_bytes(good + b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(256)) * 4)
    db = tmp_path / "i.sqlite"
    res = cli("ingest", db, bad, "--workers", "1", "-q")
    assert_clean(res, codes=frozenset({7}))
    assert f"bad.warc.gz at offset {len(good)}" in res.output
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM pages").fetchone()[0] == 2  # as from the file alone


# -- 5. damaged files and a crawler column named rowid ---------------------------------------


def test_truncated_database_is_exit_3_with_advice(tmp_path):
    db = build_crawl(tmp_path / "c.sqlite", n_originals=30)
    assert_clean(cli("db", db, "--workers", "1", "-q"), codes=frozenset({0}))
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(db.read_bytes()[: db.stat().st_size // 3])
    for args in (["db", cut, "-q"], ["export", cut, "--json", tmp_path / "j.json"],
                 ["stats", cut], ["explain", cut, "1", "2"], ["restore", cut]):
        res = cli(*args)
        assert_clean(res, codes=frozenset({3}))
        assert "damaged" in res.output and ".recover" in res.output


def test_a_column_named_rowid_changes_nothing(tmp_path):
    plain = build_crawl(tmp_path / "plain.sqlite", integer_pk=False)
    hidden = build_crawl(tmp_path / "rowid.sqlite", integer_pk=False,
                         extra_columns=("rowid", "_rowid_"))
    for db in (plain, hidden):
        _every_command(db, [])
        assert_clean(cli("db", db, "--workers", "1", "-q", "--full"), codes=frozenset({0}))
    assert _ids_and_groups(plain) == _ids_and_groups(hidden)
    a = json.loads(cli("explain", plain, "1", "2", "--json").output)
    b = json.loads(cli("explain", hidden, "1", "2", "--json").output)
    assert a["link"] == b["link"] and a["pages"][0]["url"] == b["pages"][0]["url"]
    conn = sqlite3.connect(hidden)
    assert conn.execute('SELECT "rowid" FROM pages WHERE oid = 1').fetchone() == ("rowid-0",)


def _ids_and_groups(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT oid, url, dup_group, canonical_id, is_canonical, dup_kind FROM pages "
            "ORDER BY oid"
        ).fetchall()
    finally:
        conn.close()


def test_export_ids_are_rowids_with_a_rowid_column(tmp_path):
    db = build_crawl(tmp_path / "c.sqlite", integer_pk=False, extra_columns=("rowid",))
    assert_clean(cli("db", db, "--workers", "1", "-q"), codes=frozenset({0}))
    res = cli("export", db, "--json", "-", "-q")
    ids = [d["id"] for d in json.loads(res.output)["documents"]]
    assert ids and all(isinstance(i, int) for i in ids)


# -- 7. terminal escapes in explain ----------------------------------------------------------


def test_explain_escapes_control_characters(tmp_path):
    db = build_crawl(tmp_path / "c.sqlite")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE pages SET title = 'red \x1b[31mtitle\x1b]0;owned\x07\nnext' WHERE id = 1")
    conn.commit()
    conn.close()
    assert_clean(cli("db", db, "--workers", "1", "-q"), codes=frozenset({0}))
    res = cli("explain", db, "1", "2")
    assert "\x1b" not in res.output and "\x07" not in res.output
    assert "title: red \\x1b[31mtitle\\x1b]0;owned\\x07\\nnext" in res.output
    as_json = json.loads(cli("explain", db, "1", "2", "--json").output)
    assert as_json["pages"][0]["title"] == "red \x1b[31mtitle\x1b]0;owned\x07\nnext"
    assert_intact(db)


def test_warc_cut_inside_a_record_header_is_a_warning_not_a_traceback(tmp_path):
    # found by tests/adversarial/test_malformed_warc.py: warcio raised AttributeError here
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes((WARCS / "iana-dupes.warc.gz").read_bytes()[:8388])
    res = cli("ingest", tmp_path / "i.sqlite", cut, "--workers", "1", "-q")
    assert_clean(res, codes=frozenset({7}))
    assert f"warning: {cut}" in res.output


def test_ingest_refuses_webdedup_own_table_names(tmp_path):
    db = tmp_path / "i.sqlite"
    res = cli("ingest", db, WARCS / "iana-dupes.warc.gz", "--table", "_webdedup_meta",
              "--workers", "1", "-q")
    assert_clean(res, codes=frozenset({3}))


def test_integer_url_column_exports_html(tmp_path):
    # found by tests/adversarial/test_identifiers.py (--column url=id): _link called .lower()
    db = build_crawl(tmp_path / "c.sqlite")
    assert_clean(cli("db", db, "--column", "url=id", "--workers", "1", "-q"), db,
                 codes=frozenset({0}))
    res = cli("export", db, "--html", tmp_path / "r.html", "-q")
    assert_clean(res, db, codes=frozenset({0}))


def test_a_foreign_webdedup_meta_table_is_exit_3(tmp_path):
    # found by tests/adversarial/test_identifiers.py: a crawler table named _webdedup_meta
    db = build_crawl(tmp_path / "c.sqlite", table="_webdedup_meta")
    res = cli("db", db, "--table", "_webdedup_meta", "--workers", "1", "-q")
    assert_clean(res, db, codes=frozenset({3}))


# -- 8. ingest: schema changes with the first file's pages, no file left by a failed ingest --


def test_failed_ingest_into_a_new_file_leaves_no_file(tmp_path):
    db = tmp_path / "new.sqlite"
    bad = WARCS / "malformed" / "example-trunc.warc"
    res = cli("ingest", db, bad, "--strict", "--workers", "1", "-q")
    assert_clean(res, codes=frozenset({7}))
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_failed_ingest_changes_no_schema(tmp_path):
    db = build_crawl(tmp_path / "c.sqlite")
    before = list(sqlite3.connect(db).iterdump())
    bad = WARCS / "malformed" / "example-trunc.warc"
    res = cli("ingest", db, bad, "--strict", "--workers", "1", "-q")
    assert_clean(res, db, codes=frozenset({7}))
    assert list(sqlite3.connect(db).iterdump()) == before  # no column, no state table added
    # and a good file brings the columns and the pages in together
    res = cli("ingest", db, WARCS / "iana-dupes.warc.gz", "--workers", "1", "-q")
    assert_clean(res, db, codes=frozenset({0}))
    conn = sqlite3.connect(db)
    cols = [r[1] for r in conn.execute("PRAGMA table_info(pages)")]
    assert "source_file" in cols
    assert conn.execute("SELECT count(*) FROM pages WHERE source_file IS NOT NULL").fetchone() \
        == (2,)


# -- 9. random hostile cells: random bytes, BLOBs, NULs, invalid UTF-8, huge and empty values
# in every input column, through db + export (json/csv/html) + explain + stats: no traceback,
# exit 0 -----------------------------------------------------------------------------------------

# a value as a crawler may store it: SQLite's storage classes, with hostile contents
cells = st.one_of(
    st.none(),
    st.binary(max_size=64),  # a BLOB
    st.binary(max_size=64).map(lambda b: ("text", b)),  # bytes stored as TEXT (invalid UTF-8)
    st.text(max_size=64),
    st.sampled_from(["", " ", "\x00", "a\x00b", "\x1b[31m", "\ufeff", "=cmd|' /C calc'!A0",
                     "<script>x</script>", "x" * 300_000]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True),
)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(1, 20), st.sampled_from(FIELDS), cells), min_size=1,
                max_size=12))
def test_hostile_cells(changes):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        db = build_crawl(d / "c.sqlite", n_originals=5)
        conn = sqlite3.connect(db)
        for rowid, column, value in changes:
            if isinstance(value, tuple):
                conn.execute(f'UPDATE pages SET "{column}" = CAST(? AS TEXT) WHERE id = ?',
                             (value[1], rowid))
            else:
                conn.execute(f'UPDATE pages SET "{column}" = ? WHERE id = ?', (value, rowid))
        conn.commit()
        conn.close()
        codes = frozenset({0})
        assert_clean(cli("db", db, "--workers", "1", "-q"), db, codes=codes)
        res = cli("export", db, "--json", d / "r.json", "--csv", d / "r.csv", "--html",
                  d / "r.html", "-q")
        assert_clean(res, db, codes=codes)
        docs = json.loads((d / "r.json").read_text(encoding="utf-8"))["documents"]
        assert not any(isinstance(v, list) for doc in docs for v in doc.values())
        (d / "r.csv").read_text(encoding="utf-8")  # valid UTF-8
        for a, b in ((1, 2), (3, 4)):
            assert_clean(cli("explain", db, str(a), str(b)), db, codes=codes)
            res = cli("explain", db, str(a), str(b), "--json")
            assert_clean(res, db, codes=codes)
            json.loads(res.output)
        assert_clean(cli("stats", db), db, codes=codes)
        assert_clean(cli("db", db, "--workers", "1", "-q"), db, codes=codes)  # incremental
