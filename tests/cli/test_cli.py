"""The CLI: every bad input gives a clear message, a non-zero exit and an untouched database."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import annotations, crawl_with_duplicates, dump, make_page, real_texts, write_pages

from webdedup.cli import cli


def invoke(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_db_command_summary_and_quiet(db_builder):
    path = db_builder(crawl_with_duplicates(20))
    res = invoke("db", str(path))
    assert res.exit_code == 0, res.output
    assert " groups (" in res.output and " duplicates (" in res.output
    assert "unique" in res.output and "ignored" in res.output
    res = invoke("db", str(path), "--quiet")
    assert res.exit_code == 0 and res.output == ""
    res = invoke("db", str(path), "--json", "--quiet")
    assert '"url_duplicates"' in res.output


def test_every_command_is_documented_with_an_example():
    for name, command in cli.commands.items():
        res = invoke(name, "--help")
        assert res.exit_code == 0
        assert "Example" in res.output, f"'webdedup {name} --help' has no example"
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"option {param.name} of {name} has no help"


def test_options_and_config_file(db_builder, tmp_path):
    path = db_builder(crawl_with_duplicates(10))
    cfg = tmp_path / "w.toml"
    cfg.write_text('urls_to_ignore = ["articles"]\n')
    res = invoke("db", str(path), "--config", str(cfg), "--quiet")
    assert res.exit_code == 0
    urls = dict(sqlite3.connect(path).execute("SELECT rowid, url FROM pages"))
    for pid, v in annotations(path).items():
        assert (v[7] == "ignored") == ("/articles/" in urls[pid] or "/empty" in urls[pid])


@pytest.mark.parametrize(
    "args, code, words",
    [
        (["--threshold", "1.5"], 2, "threshold must be in (0, 1]"),
        (["--election", "newest"], 2, "unknown election key 'newest'"),
        (["--column", "content"], 2, "NAME=COLUMN"),
        (["--column", "body=content"], 2, "unknown column name(s) body"),
    ],
)
def test_bad_options(db_builder, args, code, words):
    path = db_builder(crawl_with_duplicates(3))
    before = dump(path)
    res = invoke("db", str(path), *args)
    assert res.exit_code == code and words in res.output
    assert dump(path) == before


def test_missing_file_and_not_sqlite(tmp_path):
    res = invoke("db", str(tmp_path / "nope.sqlite"))
    assert res.exit_code == 3 and "no such file" in res.output
    assert not (tmp_path / "nope.sqlite").exists()
    text = tmp_path / "notes.sqlite"
    text.write_text("this is a text file, not a database\n" * 10)
    res = invoke("db", str(text))
    assert res.exit_code == 3 and "is not an SQLite database" in res.output
    assert text.read_text().startswith("this is a text file")


def test_no_pages_table_lists_tables(tmp_path):
    path = tmp_path / "c.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE documents (url TEXT, content TEXT)")
    conn.commit()
    conn.close()
    before = dump(path)
    res = invoke("db", str(path))
    assert res.exit_code == 3
    assert (
        "no table 'pages'" in res.output and "documents" in res.output and "--table" in res.output
    )
    assert dump(path) == before
    assert invoke("db", str(path), "--table", "documents", "-q").exit_code == 0


def test_a_crawler_column_named_like_an_output_column_is_never_overwritten(tmp_path):
    # a crawler that keeps its own content_hash (say, MD5 of the raw body): accepted and left
    # as it is, run after run (issue 30); webdedup keeps its own hash in its state
    path = tmp_path / "c.sqlite"
    write_pages(
        path,
        [{"url": "https://a.example/", "content": "text", "content_hash": "md5-of-body"}],
        columns=("url", "content", "content_hash"),
    )
    for args in (("-q",), ("-q", "--full")):
        assert invoke("db", str(path), *args).exit_code == 0
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT content_hash, is_canonical FROM pages").fetchone() == (
                "md5-of-body", 1)
    # an output column webdedup cannot do without is still refused, nothing written
    other = tmp_path / "d.sqlite"
    write_pages(
        other,
        [{"url": "https://a.example/", "content": "text", "dup_kind": "mine"}],
        columns=("url", "content", "dup_kind"),
    )
    before = dump(other)
    res = invoke("db", str(other))
    assert res.exit_code == 3
    assert "already has column(s) dup_kind" in res.output
    assert "RENAME COLUMN" in res.output
    assert dump(other) == before
    with sqlite3.connect(other) as conn:
        conn.execute("ALTER TABLE pages RENAME COLUMN dup_kind TO crawler_kind")
    assert invoke("db", str(other), "-q").exit_code == 0
    with sqlite3.connect(other) as conn:
        assert conn.execute("SELECT crawler_kind FROM pages").fetchone() == ("mine",)


def test_output_columns_of_an_earlier_run_are_webdedups_own(tmp_path):
    path = write_pages(tmp_path / "c.sqlite", crawl_with_duplicates(5))
    assert invoke("db", str(path), "-q").exit_code == 0
    assert invoke("db", str(path), "-q", "--full").exit_code == 0
    # webdedup's state removed, its columns and their index left: still recognised
    with sqlite3.connect(path) as conn:
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' "
            "AND (name LIKE '\\_webdedup%' ESCAPE '\\' OR name = '_webdedup_prepared')"
        ).fetchall():
            conn.execute(f'DROP TABLE "{name}"')
    assert invoke("db", str(path), "-q").exit_code == 0


def test_missing_url_or_text_column_lists_columns(tmp_path):
    path = tmp_path / "c.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pages (link TEXT, body TEXT)")
    conn.execute("INSERT INTO pages VALUES ('https://a.example/', 'x')")
    conn.commit()
    conn.close()
    before = dump(path)
    res = invoke("db", str(path))
    assert res.exit_code == 3 and "no URL column 'url'" in res.output
    assert "link, body" in res.output
    res = invoke("db", str(path), "--column", "url=link")
    assert res.exit_code == 3 and "no text column 'content'" in res.output
    assert dump(path) == before
    res = invoke("db", str(path), "--column", "url=link", "--column", "content=body", "-q")
    assert res.exit_code == 0


def test_read_only_file(db_builder):
    path = db_builder(crawl_with_duplicates(3))
    before = dump(path)
    os.chmod(path, 0o444)
    try:
        res = invoke("db", str(path))
        assert res.exit_code == 5 and "read-only" in res.output
    finally:
        os.chmod(path, 0o644)
    assert dump(path) == before


def test_database_locked_past_busy_timeout(db_builder):
    path = db_builder(crawl_with_duplicates(3))
    before = dump(path)
    # A real second process holds the write lock for 5 s.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            f"c = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
            "c.execute('PRAGMA journal_mode=WAL'); c.execute('BEGIN IMMEDIATE')\n"
            "print('locked', flush=True); time.sleep(5); c.execute('ROLLBACK')\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        t0 = time.monotonic()
        res = invoke("db", str(path), "--busy-timeout", "0.5")
        assert res.exit_code == 4 and "locked" in res.output and "--busy-timeout" in res.output
        assert time.monotonic() - t0 < 4.5
    finally:
        holder.wait(timeout=20)
    assert [s for s in dump(path)] == before


def test_null_and_empty_content_are_kept_and_marked(db_builder):
    text = real_texts()[0]["text"]
    path = db_builder(
        [
            make_page("https://a.example/1", None),
            make_page("https://a.example/2", ""),
            make_page("https://a.example/3", " \n\t "),
            make_page("https://a.example/4", text),
        ]
    )
    assert invoke("db", str(path), "-q").exit_code == 0
    rows = annotations(path)
    assert [rows[i][7] for i in (1, 2, 3, 4)] == ["ignored", "ignored", "ignored", None]
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM pages").fetchone()[0] == 4
    assert {r[0] for r in conn.execute("SELECT ignored FROM _webdedup_prepared WHERE id < 4")} == {
        "empty_text"
    }


def test_trap_urls_never_crash_and_never_merge_different_pages(db_builder):
    urls = [
        "/relative/path",
        "about.html",
        "mailto:someone@example.com",
        "javascript:void(0)",
        "https://example.com/a b",
        "https://example.com/a%20b",
        "http://[2001:db8::1]:8080/x",
        "http://[2001:DB8::1]:8080/x",
        "https://bücher.example/straße",
        "https://xn--bcher-kva.example/stra%C3%9Fe",
        "https://example.com/a%2Fb",
        "https://example.com/a/b",
        "https://example.com/%7Euser",
        "https://example.com/~user",
        "",
        "   ",
        "http://",
        "https://exa mple.com/",
        "https://example.com/A",
        "https://example.com/a",
    ]
    texts = [r["text"] for r in real_texts()[: len(urls)]]
    path = db_builder([make_page(u, t) for u, t in zip(urls, texts, strict=True)])
    res = invoke("db", str(path), "-q")
    assert res.exit_code == 0, res.output
    rows = annotations(path)
    group = {pid: r[3] for pid, r in rows.items()}
    merged = {(a, b) for a in group for b in group if a < b and group[a] == group[b]}
    expected = {(5, 6), (7, 8), (9, 10), (13, 14)}  # the same page written two ways
    assert merged == expected
    assert rows[1][0] is None and rows[3][0] is None  # relative and mailto: have no canonical URL


def _peak_mib(path: Path) -> float:
    # VmHWM, not ru_maxrss: Linux carries the spawning process's peak (this pytest process,
    # which holds the 50-million-character text) into a child's ru_maxrss through exec
    code = (
        "from webdedup import Deduplicator\n"
        f"Deduplicator().run_on_db({str(path)!r})\n"
        "print(next(line.split()[1] for line in open('/proc/self/status')"
        " if line.startswith('VmHWM:')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024


def test_fifty_megabyte_pages_in_bounded_memory(tmp_path):
    """Memory depends on the largest page, not on how many large pages there are."""
    words = " ".join(r["text"] for r in real_texts()[:50])
    big = (words + " ") * (50_000_000 // (len(words) + 1) + 1)  # 50 million characters
    small = [(f"https://s.example/{i}", r["text"]) for i, r in enumerate(real_texts()[:50])]
    peaks = []
    for copies in (2, 4):
        path = tmp_path / f"big{copies}.sqlite"
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
        conn.executemany(
            "INSERT INTO pages (url, content) VALUES (?, ?)",
            [(f"https://big.example/?copy={i}", big) for i in range(copies)] + small,
        )
        conn.commit()
        conn.close()
        peaks.append(_peak_mib(path))
        rows = annotations(path)
        assert len({rows[i][3] for i in range(1, copies + 1)}) == 1  # one exact group
    # A 50-million-character page is ~95 MB as a Python str (real text needs 2 bytes a
    # character); the run holds a few copies of one page at a time, never one per page:
    # twice as many huge pages must not cost another copy.
    assert peaks[1] - peaks[0] < 95, peaks
    assert peaks[0] < 1024, peaks


def test_version_option():
    res = invoke("--version")
    assert res.exit_code == 0 and "webdedup" in res.output


def test_restore_without_prune_is_harmless(db_builder):
    path = db_builder(crawl_with_duplicates(3))
    res = invoke("restore", str(path))
    assert res.exit_code == 0 and "restored 0 pages" in res.output


def test_pages_table_of_a_path_with_spaces(tmp_path: Path):
    folder = tmp_path / "my crawls"
    folder.mkdir()
    from conftest import write_pages

    path = write_pages(folder / "crawl one.sqlite", crawl_with_duplicates(3))
    assert invoke("db", str(path), "-q").exit_code == 0


def test_invalid_utf8_and_lone_surrogates_do_not_stop_a_run(db_builder):
    text = real_texts()[2]["text"]
    path = db_builder(
        [make_page("https://a.example/1", text), make_page("https://a.example/2", "x")]
    )
    conn = sqlite3.connect(path)
    conn.execute(
        "UPDATE pages SET content = CAST(X'48656c6c6f20ff20776f726c64' AS TEXT) WHERE id = 2"
    )
    conn.commit()
    conn.close()
    assert invoke("db", str(path), "-q").exit_code == 0
    assert annotations(path)[2][1] is not None  # hashed with a replacement character
    from webdedup import Deduplicator

    conn = sqlite3.connect(path)  # a connection the caller passes in: lenient, then restored
    conn.execute("UPDATE pages SET content = CAST(X'6f6b20ff' AS TEXT) WHERE id = 1")
    conn.commit()
    Deduplicator().run_on_db(conn)
    assert conn.text_factory is str
    with pytest.raises(sqlite3.OperationalError):
        conn.execute("SELECT content FROM pages WHERE id = 1").fetchone()
    conn.close()

    rows = Deduplicator().run_on_list([{"url": "https://b.example/", "content": "bad \ud800 x"}])
    assert rows[0]["content_hash"] is not None


def test_stats_reports_kinds_groups_runs_and_state(db_builder):
    import json

    path = db_builder(crawl_with_duplicates(20))
    assert invoke("stats", str(path)).exit_code == 3  # never run yet
    invoke("db", str(path), "-q")
    invoke("db", str(path), "-q")
    res = invoke("stats", str(path))
    assert res.exit_code == 0
    for words in (
        "groups", "duplicates", "unique", "group sizes:", "last runs:", "incremental",
        "state: --state counts",
    ):
        assert words in res.output
    assert "_webdedup_prepared" not in res.output  # (a pass over each table: when asked)
    rows = annotations(path)
    state = invoke("stats", str(path), "--state")
    assert state.exit_code == 0
    listed = dict(line.split() for line in state.output.splitlines()
                  if line.startswith("  _webdedup_"))
    assert int(listed["_webdedup_prepared"].replace(",", "")) == len(rows)
    assert "MB" in state.output.split("state: ")[1].splitlines()[0]
    data = json.loads(invoke("stats", str(path), "--json").output)
    assert data["state_rows"] == {} and data["state_bytes"] is None
    assert data["pending_changes"] == 0
    full = json.loads(invoke("stats", str(path), "--state", "--json").output)
    assert full["state_rows"]["_webdedup_prepared"] == len(rows) and full["state_bytes"] > 0
    assert {k: v for k, v in full.items() if not k.startswith("state_")} == {
        k: v for k, v in data.items() if not k.startswith("state_")}
    assert data["pages"] == len(rows)
    assert data["kinds"]["url"] == sum(v[7] == "url" for v in rows.values())
    assert [r["mode"] for r in data["runs"]] == ["incremental", "full"]
    sizes: dict[int, int] = {}
    for v in rows.values():
        if v[3] is not None:
            sizes[v[3]] = sizes.get(v[3], 0) + 1
    in_groups = [n for n in sizes.values() if n >= 2]  # unique pages are not groups
    assert sum(g["groups"] for g in data["group_sizes"]) == len(in_groups)
    assert sum(g["pages"] for g in data["group_sizes"]) == sum(in_groups)
    assert data["counts"]["groups"] == len(in_groups)
    with sqlite3.connect(path) as conn:  # a crawler's edit, queued for the next run
        conn.execute("UPDATE pages SET content = content || ' edited' WHERE id = "
                     "(SELECT min(id) FROM pages)")
    assert json.loads(invoke("stats", str(path), "--json").output)["pending_changes"] == 1
    assert "changes waiting for the next run: 1" in invoke("stats", str(path)).output


def test_db_remembers_the_table_and_column_mapping(tmp_path):
    path = tmp_path / "crawl.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE documents (id INTEGER PRIMARY KEY, link TEXT, body TEXT)")
    conn.executemany(
        "INSERT INTO documents (link, body) VALUES (?, ?)",
        [("https://a.example/1", "one text here"), ("https://www.a.example/1", "one text here")],
    )
    conn.commit()
    conn.close()
    first = invoke("db", str(path), "-q", "--table", "documents", "--column", "url=link",
                   "--column", "content=body")
    assert first.exit_code == 0, first.output
    again = invoke("db", str(path))  # no mapping given: the last run's
    assert again.exit_code == 0, again.output
    assert "using the table and columns of the last run (table=documents, url=link, " \
        "content=body)" in again.output
    assert "incremental run" in again.output  # not a rebuild: the same mapping


def test_progress_off_a_terminal_is_lines_not_carriage_returns(db_builder):
    """A cron log gets lines ('prepare: 20/20 pages (100%)'), never tqdm's '\\r'."""
    import subprocess
    import sys

    path = db_builder([make_page(f"https://a.example/{i}", f"text number {i}") for i in range(20)])
    done = subprocess.run(
        [sys.executable, "-m", "webdedup.cli", "db", str(path)],
        capture_output=True, text=True, check=True,
    )
    assert "\r" not in done.stderr
    assert "prepare: 20/20 pages (100%), done in" in done.stderr
