"""``webdedup review`` over real HTTP: the pages, search, filters, verdicts, the pictures.

The server runs as the real command in a subprocess on a free port of 127.0.0.1; the next
``webdedup db`` run must honour the verdicts posted to it. (``test_review_browser.py`` does
the same in headless chromium.)
"""

from __future__ import annotations

import html
import re
import signal
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner
from conftest import annotations
from test_verdicts import CANONICAL, GROUP, near_family

from webdedup import Deduplicator
from webdedup.cli import cli
from webdedup.review import Filters


@dataclass
class Served:
    url: str
    proc: subprocess.Popen[str]
    db: Path


def start_review(db: Path) -> Served:
    proc = subprocess.Popen(
        [sys.executable, "-m", "webdedup.cli", "review", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
    if not found:
        proc.kill()
        err = proc.stderr.read() if proc.stderr else ""
        raise AssertionError(f"no URL printed: {line!r} {err}")
    return Served(found.group(1), proc, db)


def stop(served: Served) -> int:
    served.proc.send_signal(signal.SIGTERM)
    return served.proc.wait(timeout=20)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    db = near_family(tmp_path / "crawl.sqlite")
    Deduplicator().run_on_db(db)
    s = start_review(db)
    try:
        yield s
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def post(url: str, form: dict[str, str]) -> tuple[int, str]:
    data = urlencode(form).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=30) as r:
            return r.status, r.read().decode("utf-8")  # redirects followed: the group page
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def token(page: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', page)
    assert found, "no verdict form on the page"
    return found.group(1)


def test_pages_search_filters_and_pictures(served):
    status, page = get(served.url)
    assert status == 200
    assert "1 groups match" in page and 'id="g1"' in page
    # the canonical once, at the top, its election values as dates; every score named
    assert page.count('class="badge canonical"') == 1
    assert "page date 2024-05-01" in page
    assert "verified text similarity" in page and "word similarity" in page
    assert "<del>" in page and "<ins>" in page  # the inline diff
    # the two pictures and the threshold table
    assert page.count("<svg") == 2 and "threshold 0.9" in page
    assert re.search(r"<td>0\.85</td><td>\d+</td>", page)
    # search: by URL, by a word of no URL or title
    assert "1 groups match" in get(served.url + "?q=copy1.example")[1]
    assert "0 groups match" in get(served.url + "?q=nowhere-at-all")[1]
    # filters: kind, host, size, score range
    assert "1 groups match" in get(served.url + "?kind=near")[1]
    assert "0 groups match" in get(served.url + "?kind=exact")[1]
    assert "1 groups match" in get(served.url + "?host=copy2.example")[1]
    assert "0 groups match" in get(served.url + "?min_size=5")[1]
    assert "0 groups match" in get(served.url + "?max_score=0.5")[1]
    assert "1 groups match" in get(served.url + "?min_score=0.9&max_score=1")[1]
    assert get(served.url + "?min_score=7")[0] == 400  # out of range: said, not a traceback
    status, group = get(served.url + "group/1")
    assert status == 200 and "Group 1" in group
    assert get(served.url + "group/999")[0] == 404


def test_verdicts_posted_are_honoured_by_the_next_run(served):
    page = get(served.url)[1]
    t = token(page)
    status, after = post(
        served.url + "verdict",
        {"token": t, "kind": "not_duplicate", "page_a": "3", "page_b": "1", "back": "/group/1"},
    )
    assert status == 200 and "#3 is not a duplicate of #1" in after
    status, after = post(
        served.url + "verdict",
        {"token": t, "kind": "canonical", "page_a": "4", "page_b": "1", "back": "/"},
    )
    assert status == 200 and "#4 is its group&#x27;s canonical" in after
    assert stop(served) == 0  # SIGTERM: a clean exit
    result = Deduplicator().run_on_db(served.db)
    assert result.mode == "incremental"
    rows = annotations(served.db)
    assert rows[3][GROUP] != rows[4][GROUP]
    assert rows[1][CANONICAL] == rows[2][CANONICAL] == rows[4][CANONICAL] == 4


def test_foreign_posts_and_hosts_are_refused(served):
    form = {"token": "guess", "kind": "canonical", "page_a": "4", "page_b": "1"}
    assert post(served.url + "verdict", form)[0] == 403
    port = served.url.rsplit(":", 1)[1].strip("/")
    assert get(served.url, {"Host": f"evil.example:{port}"})[0] == 421
    stop(served)
    assert Deduplicator().run_on_db(served.db).processed == 0  # nothing was recorded


def test_paging_never_reads_past_the_page(tmp_path):
    from conftest import make_page, real_texts, write_pages

    pages = []
    for i in range(25):  # 25 groups of two exact copies
        text = real_texts()[i]["text"]
        pages += [make_page(f"https://a.example/{i}", text),
                  make_page(f"https://b.example/{i}", text.upper())]
    db = write_pages(tmp_path / "many.sqlite", pages)
    Deduplicator().run_on_db(db)
    from webdedup.review import ReviewApp

    app = ReviewApp(db)
    try:
        first = app.handle("GET", "/", {"per_page": ["10"]}, {}).body.decode()
        third = app.handle("GET", "/", {"page": ["3"]}, {}).body.decode()
    finally:
        app.close()
    assert "25 groups match; groups 1–10 shown" in first and first.count('class="group"') == 10
    assert "groups 21–25 shown" in third and third.count('class="group"') == 5
    assert 'rel="next"' in first and 'rel="next"' not in third


def test_filters_parse_and_escape_search():
    f = Filters.from_query({"q": ["50%_off"], "kind": ["near"], "page": ["2"]})
    assert f.params()["q"] == "%50\\%\\_off%" and f.params()["offset"] == 10
    assert "page=2" in f.query_string() and "page" not in f.query_string(page=1)


def test_the_header_counts_as_stats_counts(tmp_path):
    """The review page's header and ``webdedup stats`` say the same counts in one vocabulary:
    groups by kind, then the duplicates by kind."""
    from click.testing import CliRunner
    from conftest import crawl_with_duplicates, write_pages

    from webdedup import Deduplicator
    from webdedup.cli import cli
    from webdedup.review import ReviewApp

    db = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(20))
    result = Deduplicator(discard_params=False, urls_to_ignore=[]).run_on_db(db)
    app = ReviewApp(db)
    try:
        page = app.handle("GET", "/", {}, {}).body.decode("utf-8")
    finally:
        app.close()
    line = result.summary().splitlines()[0]
    assert html.escape(line) in page
    stats = CliRunner().invoke(cli, ["stats", str(db)]).output
    assert f"{result.counts['groups']:>10,}" in stats


def test_a_large_crawls_first_page_links_to_its_pictures(tmp_path, monkeypatch):
    """Past INLINE_PICTURES_PAGES the first page does not make the pictures (minutes at a
    million pages): it links to /pictures, which makes them; then the first page shows them."""
    from webdedup.review import app as review_app

    db = near_family(tmp_path / "crawl.sqlite")
    Deduplicator().run_on_db(db)
    monkeypatch.setattr(review_app, "INLINE_PICTURES_PAGES", 0)
    app = review_app.ReviewApp(db)
    try:
        def page(path: str) -> str:
            r = app.handle("GET", path, {}, {})
            assert r.status == 200
            return r.body.decode("utf-8")

        first = page("/")
        assert "<svg" not in first and 'href="/pictures"' in first
        assert "1 groups match" in first
        pictures = page("/pictures")
        assert pictures.count("<svg") == 2 and "threshold 0.9" in pictures
        assert page("/").count("<svg") == 2  # made once a run: now on the first page too
    finally:
        app.close()


def test_the_pictures_of_a_state_before_the_content_hash_table(tmp_path):
    """A state an older webdedup wrote (schema 7: no _webdedup_content_hashes) is read as it
    is: the first page and export --html draw the same pictures as on the current state."""
    from webdedup.review.app import ReviewApp

    db = near_family(tmp_path / "crawl.sqlite")
    Deduplicator().run_on_db(db)

    def pictures() -> str:
        app = ReviewApp(db)
        try:
            r = app.handle("GET", "/pictures", {}, {})
            assert r.status == 200, r.body[-500:]
            return r.body.decode("utf-8")
        finally:
            app.close()

    now = pictures()
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE _webdedup_content_hashes")
    conn.execute("CREATE INDEX _webdedup_prepared_content_hash "
                 "ON _webdedup_prepared(content_hash)")
    conn.execute("UPDATE _webdedup_meta SET value = '7' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    before = pictures()
    assert before.count("<svg") == 2 and before == now
    out = tmp_path / "review.html"
    result = CliRunner().invoke(cli, ["export", str(db), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").count("<svg") >= 2
