"""webdedup in the crawler's own process keeps the crawler's SQLite locks.

On POSIX, closing any descriptor of a file drops every lock the process holds on it, those
of the crawler's own SQLite connection included. A webdedup call that opened the database
file outside SQLite (a header check with ``open()``) and closed it left the crawler's
connection unlocked: another process then took itself for the last connection, checkpointed
and deleted the WAL under it, and the crawler's next commits went into a deleted file.

Each test keeps a crawler's connection open in this process, makes one webdedup call here
(the API, or a command through click's runner, in-process), lets another process open and
close the database, then has the crawler commit a row: the other processes must see it, and
a row another process writes must survive the crawler's close.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import crawl_with_duplicates, write_pages

from webdedup import Deduplicator
from webdedup.cli import cli

OTHER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], timeout=10)
if sys.argv[2] == "insert":
    conn.execute("INSERT INTO pages (url, content) VALUES (?, 'from another process')",
                 (sys.argv[3],))
    conn.commit()
print(conn.execute("SELECT count(*) FROM pages WHERE url = ?", (sys.argv[3],)).fetchone()[0])
conn.close()
"""


def other_process(path: Path, action: str, url: str) -> int:
    """Open the database in another process, do ``action`` (look or insert), close it."""
    out = subprocess.run(
        [sys.executable, "-c", OTHER, str(path), action, url],
        capture_output=True, text=True, timeout=60, check=True,
    )
    return int(out.stdout.strip())


def crawl(tmp_path: Path) -> Path:
    path = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(40))
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    return path


def invoke(*args: str) -> None:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output


def check_crawler_survives(path: Path, call: Callable[[], None]) -> None:
    crawler = sqlite3.connect(path)  # the crawler's connection stays open throughout
    try:
        assert crawler.execute("SELECT count(*) FROM pages").fetchone()[0] > 0
        call()  # webdedup, in the crawler's process
        other_process(path, "look", "-")  # another process opens and closes the database
        crawler.execute(
            "INSERT INTO pages (url, content) VALUES ('https://crawler.example/new', 'new page')"
        )
        crawler.commit()
        # the crawler's row is in the database other processes read
        assert other_process(path, "look", "https://crawler.example/new") == 1
        assert other_process(path, "insert", "https://other.example/row") == 1
    finally:
        crawler.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        urls = {r[0] for r in conn.execute("SELECT url FROM pages")}
    finally:
        conn.close()
    assert {"https://crawler.example/new", "https://other.example/row"} <= urls


def test_run_on_db_in_the_crawlers_process(tmp_path):
    path = crawl(tmp_path)
    check_crawler_survives(path, lambda: Deduplicator().run_on_db(str(path)))


def test_a_batched_write_checkpointing_beside_it_in_the_crawlers_process(
    tmp_path, checkpoints_made
):
    """A first run's batched write opens a second connection of its own for its checkpoints
    (phase5_write_back._Checkpointer) and closes it: the crawler's connection keeps its locks."""
    path = crawl(tmp_path)
    check_crawler_survives(path, lambda: Deduplicator(write_lock=0.001).run_on_db(str(path)))
    assert checkpoints_made and checkpoints_made[0] > 0  # on a connection of its own


@pytest.mark.parametrize(
    "command",
    [
        ["db"],
        ["export", "--json", "{out}/r.json", "--csv", "{out}/p.csv"],
        ["explain", "{url0}", "{url1}"],
        ["stats"],
        ["segments"],
    ],
    ids=lambda c: c[0],
)
def test_commands_in_the_crawlers_process(tmp_path, command):
    path = crawl(tmp_path)
    if command[0] != "db":
        invoke("db", str(path), "--quiet", "--count-segments")
    with sqlite3.connect(path) as conn:
        url0, url1 = (r[0] for r in conn.execute("SELECT url FROM pages ORDER BY id LIMIT 2"))
    conn.close()
    args = [
        a.replace("{out}", str(tmp_path)).replace("{url0}", url0).replace("{url1}", url1)
        for a in command
    ]
    check_crawler_survives(path, lambda: invoke(args[0], str(path), *args[1:]))


def test_restore_in_the_crawlers_process(tmp_path):
    path = crawl(tmp_path)
    invoke("db", str(path), "--quiet", "--prune")
    check_crawler_survives(path, lambda: invoke("restore", str(path)))


def test_review_app_in_the_crawlers_process(tmp_path):
    from webdedup.review import ReviewApp

    path = crawl(tmp_path)
    invoke("db", str(path), "--quiet")

    def review() -> None:
        app = ReviewApp(str(path))
        try:
            assert app.handle("GET", "/", {}, {}).status == 200
        finally:
            app.close()

    check_crawler_survives(path, review)


def test_ingest_refuses_the_database_as_its_input(tmp_path):
    """Reading the database as an input would open it outside SQLite (and its hash would
    drop this process's locks on it when the file is closed)."""
    path = crawl(tmp_path)
    before = other_process(path, "look", "-")
    res = CliRunner().invoke(cli, ["ingest", str(path), str(path)])
    assert res.exit_code == 3, res.output
    assert "is the database itself" in res.output
    assert other_process(path, "look", "-") == before


def test_export_refuses_to_write_over_the_database(tmp_path):
    path = crawl(tmp_path)
    invoke("db", str(path), "--quiet")
    for target in (str(path), str(path) + "-wal"):
        if not Path(target).exists():
            continue
        res = CliRunner().invoke(cli, ["export", str(path), "--json", target])
        assert res.exit_code == 3, res.output
        assert "is the database itself" in res.output
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM pages").fetchone()[0] > 0
    finally:
        conn.close()


def test_ingest_of_the_folder_the_database_is_in(tmp_path):
    """A folder input is sniffed file by file; the database, its -wal and -shm beside the
    WARC are passed over without being opened, so the crawler's locks stay."""
    import shutil

    from conftest import SHARED_DATA

    from webdedup.ingest import ingest

    path = crawl(tmp_path)
    shutil.copy(SHARED_DATA / "warc" / "iana-dupes.warc.gz", tmp_path / "crawl-part")
    check_crawler_survives(path, lambda: ingest(str(path), [tmp_path], workers=1))
