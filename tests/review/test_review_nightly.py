"""``webdedup review`` open beside nightly ``webdedup db`` runs in other processes.

The app serves on 127.0.0.1 (the real command, in a subprocess) while ``webdedup db`` runs
three times (real subprocesses) after a crawler's inserts; verdicts are posted over HTTP
between the runs and all through them. Every response is a page (no 500), the app shows each
new run once it finished, every verdict is stored once, and the runs honour them. A verdict
posted while a run holds the write lock waits for it (up to the busy timeout, then a 503 that
says to post it again, never a 500), and a page read while a large run writes its results in
batches says so.
"""

from __future__ import annotations

import http.client
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from conftest import annotations, make_page, real_texts, write_pages
from test_review_app import get, post, start_review, stop, token
from test_verdicts import CANONICAL, GROUP, near_family

from webdedup import Deduplicator
from webdedup.incremental.plan import MISSED
from webdedup.pipeline.phase5_write_back import INTERRUPTED
from webdedup.review import ReviewApp
from webdedup.review.server import make_server

FAMILIES = 16
SINGLES = 24
RUNS = 3
IS_CANONICAL = 6


def long_texts() -> list[str]:
    return [t["text"] for t in real_texts() if len(t["text"].split()) >= 300]


def crawl(path: Path) -> tuple[list[tuple[int, list[int]]], list[int]]:
    """FAMILIES near groups (an original, newest, and three edited copies), SINGLES others."""
    texts = long_texts()
    pages, families = [], []
    for f in range(FAMILIES):
        words = texts[f].split()[:300]
        pages.append(make_page(f"https://origin{f}.example/story", " ".join(words),
                               datetime="2024-05-01"))
        origin, copies = len(pages), []
        for k, at in enumerate((60, 150, 240)):
            edited = list(words)
            edited[at] = "EDITED"
            edited[at + 7] = f"word{k}"
            pages.append(make_page(f"https://copy{k}.f{f}.example/story", " ".join(edited),
                                   datetime="2024-01-01"))
            copies.append(len(pages))
        families.append((origin, copies))
    for i in range(SINGLES):
        pages.append(make_page(f"https://single{i}.example/", texts[FAMILIES + i]))
    write_pages(path, pages)
    return families, list(range(len(pages) - SINGLES + 1, len(pages) + 1))


def add_pages(path: Path, run: int) -> None:
    """A crawler's night: a few new unrelated pages."""
    texts = long_texts()[FAMILIES + SINGLES:]
    conn = sqlite3.connect(path, timeout=30)
    try:
        with conn:
            for i in range(3):
                conn.execute(
                    "INSERT INTO pages (url, content) VALUES (?, ?)",
                    (f"https://night{run}.example/{i}", texts[run * 3 + i]),
                )
    finally:
        conn.close()


def last_run(path: Path) -> tuple[str, int]:
    conn = sqlite3.connect(path, timeout=30)
    try:
        finished = conn.execute(
            "SELECT finished_at FROM _webdedup_runs WHERE status = 'ok' ORDER BY id DESC LIMIT 1"
        ).fetchone()[0]
        return str(finished), int(conn.execute("SELECT count(*) FROM pages").fetchone()[0])
    finally:
        conn.close()


def stored_verdicts(path: Path) -> list[tuple[str, int, int]]:
    conn = sqlite3.connect(path, timeout=30)
    try:
        return sorted(conn.execute("SELECT kind, page_a, page_b FROM _webdedup_verdicts"))
    finally:
        conn.close()


def honoured(rows: dict, verdict: tuple[str, int, int]) -> bool:
    kind, a, b = verdict
    if kind == "not_duplicate":
        return bool(rows[a][GROUP] != rows[b][GROUP])
    return bool(rows[a][CANONICAL] == a and rows[a][IS_CANONICAL] == 1
                and rows[b][CANONICAL] == a)


def test_verdicts_between_and_during_nightly_runs_are_all_kept(tmp_path):
    db = tmp_path / "crawl.sqlite"
    families, singles = crawl(db)
    Deduplicator().run_on_db(db)
    rows = annotations(db)
    for origin, copies in families:  # one near group a family, its original canonical
        assert {rows[p][CANONICAL] for p in [origin, *copies]} == {origin}
    # a verdict a family, each checkable on its own: a copy is not a duplicate of its
    # original, or a copy is the canonical
    meaningful = [
        ("not_duplicate", copies[0], origin) if f % 2 == 0 else ("canonical", copies[1], origin)
        for f, (origin, copies) in enumerate(families)
    ]
    between, meaningful = meaningful[: 2 * RUNS], meaningful[2 * RUNS:]
    groups = [rows[origin][GROUP] for origin, _ in families]
    filler = [("not_duplicate", a, b) for i, a in enumerate(singles) for b in singles[i + 1:]]
    posted: list[tuple[str, int, int]] = []
    statuses: list[tuple[int, str]] = []
    served = start_review(db)
    try:
        t = token(get(served.url)[1])

        def give(verdict: tuple[str, int, int]) -> None:
            kind, a, b = verdict
            form = {"token": t, "kind": kind, "page_a": str(a), "page_b": str(b),
                    "back": f"/group/{groups[0]}"}
            posted.append(verdict)
            try:
                status, page = post(served.url + "verdict", form)
            except OSError as exc:  # a dropped connection
                status, page = 0, repr(exc)
            statuses.append((status, page[:300]))

        before_run: list[list[tuple[str, int, int]]] = []
        for night in range(RUNS):
            give(between.pop())  # between runs
            add_pages(db, night)
            give(between.pop())
            before_run.append(list(posted))
            proc = subprocess.Popen(
                [sys.executable, "-m", "webdedup.cli", "db", str(db)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            during = 0
            while proc.poll() is None:  # all through the run: verdicts and pages
                give(meaningful.pop() if during % 3 == 0 and meaningful else filler.pop())
                try:
                    status, page = get(served.url + f"group/{groups[night]}")
                except OSError as exc:
                    status, page = 0, repr(exc)
                statuses.append((status, page[:300]))
                during += 1
                time.sleep(0.1)
            out, err = proc.communicate()
            assert proc.returncode == 0, err
            assert during >= 3, "the run ended before any verdict was posted during it"
            print(f"run {night + 1}: {during} verdicts posted during it")
            # the app shows the new run, whole: its finish time and its page count
            finished, pages = last_run(db)
            try:
                status, page = get(served.url)
            except OSError as exc:  # (the server wedged)
                status, page = 0, repr(exc)
            assert status == 200, (page[:300], [s for s in statuses if s[0] != 200][:3])
            assert f"finished {finished}" in page
            assert re.search(rf"\b{pages:,} pages: ", page), (pages, page[:2000])
            rows = annotations(db)
            for verdict in before_run[night]:  # honoured by the run that followed them
                assert honoured(rows, verdict), verdict
        assert stop(served) == 0
    finally:
        if served.proc.poll() is None:
            served.proc.kill()
            served.proc.wait()
    bad = [s for s in statuses if s[0] != 200]
    assert not bad, bad[:5]
    assert sorted(posted) == stored_verdicts(db)  # every verdict kept, each once
    # the verdicts posted during the last run are honoured by the next one
    subprocess.run([sys.executable, "-m", "webdedup.cli", "db", str(db)], check=True,
                   capture_output=True)
    rows = annotations(db)
    assert [v for v in posted if not honoured(rows, v)] == []


def hold_write_lock(path: Path, seconds: float, held: threading.Event) -> None:
    """A run's write transaction, as another connection sees it: the lock for ``seconds``."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(seconds)
        conn.execute("COMMIT")
    finally:
        conn.close()


def test_a_verdict_waits_for_a_runs_write_lock_then_says_to_post_again(tmp_path):
    db = near_family(tmp_path / "crawl.sqlite")
    Deduplicator().run_on_db(db)
    server, app = make_server(db, port=0, busy_timeout=2.0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()

    def post_while_locked(seconds: float, page_a: int) -> tuple[int, float, str | None]:
        held = threading.Event()
        holder = threading.Thread(target=hold_write_lock, args=(db, seconds, held))
        holder.start()
        held.wait(10)
        form = {"token": app.token, "kind": "not_duplicate", "page_a": str(page_a),
                "page_b": "1", "back": "/"}
        started = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
        conn.request("POST", "/verdict", urlencode(form),
                     {"Content-Type": "application/x-www-form-urlencoded"})
        response = conn.getresponse()
        response.read()
        conn.close()
        holder.join()
        return response.status, time.monotonic() - started, response.getheader("Retry-After")

    try:
        status, waited, _ = post_while_locked(0.8, 3)  # shorter than the busy timeout: waits
        assert status == 303 and waited >= 0.6
        status, waited, retry = post_while_locked(4.0, 2)  # longer: a 503, not a 500
        assert status == 503 and retry == "5" and waited >= 1.8
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()
        app.close()
    assert stored_verdicts(db) == [("not_duplicate", 3, 1)]


def test_a_run_writing_in_batches_is_said_on_the_page(tmp_path):
    db = near_family(tmp_path / "crawl.sqlite")
    Deduplicator().run_on_db(db)
    app = ReviewApp(db)
    try:
        assert "writing its results in batches" not in app.handle("GET", "/", {}, {}).body.decode()
        conn = sqlite3.connect(db, isolation_level=None)  # the mark a batched write-back leaves
        conn.execute("INSERT OR REPLACE INTO _webdedup_meta (key, value) VALUES (?, ?)",
                     (MISSED, INTERRUPTED))
        conn.close()
        assert "writing its results in batches" in app.handle("GET", "/", {}, {}).body.decode()
        assert "writing its results in batches" in app.handle(
            "GET", "/group/1", {}, {}).body.decode()
    finally:
        app.close()
