"""Adversarial: hostile table and column names through --table/--column and TOML, every command.

Each generated name must give a run that works or a clean error: no traceback, an exit code in
the documented set, the canary table intact and PRAGMA integrity_check ok.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hostile import FIELDS, PAYLOAD, assert_clean, build_crawl, cli, column_args, toml_config
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

NASTY = [
    PAYLOAD, "{url}", "{table}", "pages{url}", '"', "'", "`", "]", "[", ";", "--", "/*", "*/",
    "\n", "\r\n", "\t", " ", "\u202e", "é", "東京", "\U0001f600", "select", "from", "where",
    "rowid", "oid", "_rowid_", "_webdedup_meta", "_webdedup_pruned", "sqlite_master", "pages",
    "canary", "id", "url", "content", "a" * 300,
]
names = st.lists(st.sampled_from(NASTY) | st.text(min_size=1, max_size=12), min_size=1,
                 max_size=3).map("".join).filter(lambda s: "\x00" not in s)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(table=names, url=names, content=names, via_toml=st.booleans())
def test_hostile_names_every_command(table, url, content, via_toml):
    # the crawler's table is built under that name: SQLite reserves sqlite_*, and the canary
    # is ours (webdedup's refusal of sqlite_* names is pinned in test_hostile_input.py)
    assume(table.lower() != "canary" and not table.lower().startswith("sqlite_"))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        mapping = {"url": url, "content": content}
        final = [mapping.get(f, f) for f in FIELDS] + ["id"]
        clash = len({n.lower() for n in final}) < len(final)  # SQLite: case-insensitive
        stripped = not via_toml and any(v.strip() != v for v in mapping.values())
        # a name taken twice, or one --column strips: the table keeps its default names (the
        # options then name columns it lacks: a clean error is what is checked)
        names = {} if clash or stripped else mapping
        db = build_crawl(d / "c.sqlite", table=table, names=names, n_originals=4)
        if via_toml:
            args = ["--config", str(toml_config(d / "w.toml", table, mapping))]
        else:
            args = ["--table", table, *column_args(mapping)]
        assert_clean(cli("db", db, *args, "--workers", "1", "-q"), db)
        assert_clean(cli("export", db, "--json", d / "r.json", "--csv", d / "r.csv",
                         "--html", d / "r.html", "-q"), db)
        assert_clean(cli("explain", db, "1", "2"), db)
        assert_clean(cli("stats", db), db)
        assert_clean(cli("db", db, *args, "--workers", "1", "-q", "--prune"), db)
        assert_clean(cli("restore", db, "--table", table), db)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(table=names.filter(lambda s: s.lower() != "canary"), url=names)
def test_hostile_names_ingest(table, url):
    # (a table named like the canary the test adds afterwards would be the canary itself)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        db = d / "i.sqlite"
        html = d / "page.html"
        html.write_text("<html><head><title>t</title></head><body><p>" + "word " * 80
                        + "</p></body></html>")
        res = cli("ingest", db, html, "--table", table, "--column", f"url={url}",
                  "--workers", "1", "-q")
        assert_clean(res)
        if db.exists():
            import sqlite3

            from hostile import add_canary, assert_intact

            conn = sqlite3.connect(db)
            add_canary(conn)
            conn.commit()
            conn.close()
            res = cli("db", db, "--table", table, "--column", f"url={url}", "--workers", "1",
                      "-q")
            assert_clean(res, db)
            assert_intact(db)
