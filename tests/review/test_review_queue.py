"""The reviewer's queue of ``webdedup review`` (in process, through ``ReviewApp.handle``):
the order (closest to the threshold first), the counter, decisions and undo, the side-by-side
view with the site's chrome dimmed, and verdicts as labels (``webdedup calibrate``).
(``test_review_browser.py`` drives the same queue with the keyboard in headless chromium.)
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, annotations, make_page, real_texts, write_pages
from test_verdicts import CANONICAL, GROUP

from webdedup import Config, Deduplicator
from webdedup.algorithms.own import line_key
from webdedup.cli import cli
from webdedup.review import ReviewApp
from webdedup.review.pair import side_by_side
from webdedup.store import connect, migrate, transaction
from webdedup.store.verdicts import add_verdict, read_verdicts

#: Words replaced in each copy of the story (ids 2-9); more edits, a lower score.
EDITS = (3, 10, 20, 30, 40, 50, 60, 70)


def scored_family(path: Path) -> Path:
    """A real story (id 1), eight copies on other hosts with more and more words replaced
    (ids 2-9: their scores to the story spread from 0.95 to under 0.7), and an exact copy of
    another real text (ids 10, 11)."""
    words = real_texts()[5]["text"].split()[:300]
    pages = [make_page("https://origin.example/story", " ".join(words), datetime="2024-05-01")]
    for k, n in enumerate(EDITS):
        edited = list(words)
        for j in range(n):
            edited[(j * 37 + 11) % 300] = f"zz{k}x{j}"
        pages.append(make_page(f"https://copy{k}.example/story", " ".join(edited),
                               datetime="2024-01-01"))
    other = real_texts()[41]["text"]
    pages += [make_page("https://a.example/other", other, datetime="2024-05-01"),
              make_page("https://b.example/other", other, datetime="2024-01-01")]
    return write_pages(path, pages)


def scores(db: Path) -> dict[int, float]:
    """The near members' scores to their canonical."""
    conn = sqlite3.connect(db)
    try:
        return {int(i): float(s) for i, s in conn.execute(
            "SELECT rowid, dup_score FROM pages WHERE dup_kind = 'near'")}
    finally:
        conn.close()


def get(app: ReviewApp, path: str, query: dict | None = None) -> tuple[int, str, str]:
    """Status, body and Location of a GET."""
    r = app.handle("GET", path, query or {}, {})
    return r.status, r.body.decode("utf-8"), r.headers.get("Location", "")


def decide(app: ReviewApp, kind: str, member: int, canonical: int, back: str) -> str:
    form = {"token": [app.token], "kind": [kind], "page_a": [str(member)],
            "page_b": [str(canonical)], "back": [back]}
    r = app.handle("POST", "/verdict", {}, form)
    assert r.status == 303, r.body
    return r.headers["Location"]


def follow(app: ReviewApp, location: str) -> tuple[int, str]:
    """The queue page a redirect leads to: ``(position, body)``."""
    path, _, query = location.partition("?")
    status, body, location = get(app, path, {k: [v] for k, v in
                                             (p.split("=") for p in query.split("&") if p)})
    if status == 303:
        return follow(app, location)
    assert status == 200, body
    found = re.search(r'data-pos="(\d+)"', body)
    return (int(found.group(1)) if found else 0), body


def shown_pair(body: str) -> tuple[int, int]:
    member = re.search(r'data-member="(\d+)"', body)
    canonical = re.search(r'data-canonical="(\d+)"', body)
    assert member and canonical
    return int(member.group(1)), int(canonical.group(1))


@pytest.fixture
def family(tmp_path: Path) -> Path:
    db = scored_family(tmp_path / "crawl.sqlite")
    Deduplicator(config=Config(threshold=0.8)).run_on_db(db)
    return db


def test_the_queue_opens_on_the_pair_closest_to_the_threshold(family):
    near = scores(family)
    assert len(near) >= 4, near  # a spread of near members in the story's group
    app = ReviewApp(family)
    try:
        status, _, location = get(app, "/queue")
        assert status == 303 and location == "/queue/1"
        order = []
        pos, body = follow(app, location)
        while pos and shown_pair(body) not in order:
            order.append(shown_pair(body))
            nxt = re.search(r'id="next" rel="next" href="([^"]+)"', body)
            assert nxt
            pos, body = follow(app, nxt.group(1).replace("&amp;", "&"))
        # the near members by closeness of their score to the threshold, then the exact group
        by_closeness = sorted(near, key=lambda i: abs(near[i] - 0.8))
        assert [m for m, _ in order] == [*by_closeness, 11]
        assert all(c == 1 for m, c in order if m != 11)
        _, first, _ = get(app, "/queue/1")
        assert "2 groups left" in first and f"({len(near) + 1} pairs)" in first
        assert "0 decided today" in first
        # one plain sentence, the measure behind a link (not a legend on the page)
        assert re.search(r"\d+ % of the member's own text is in the canonical", first)
        assert 'href="/measures#near"' in first and "shingle" not in first
        assert "overlap coefficient" in get(app, "/measures")[1]
    finally:
        app.close()


def test_decisions_leave_the_queue_and_undo_brings_them_back(family):
    app = ReviewApp(family)
    try:
        _, body = follow(app, "/queue")
        first = shown_pair(body)
        # not a duplicate: stored with the pair's score, the next pair shown
        pos, body = follow(app, decide(app, "not_duplicate", *first, "/queue?after=1"))
        assert pos == 2 and shown_pair(body) != first
        assert "1 decided today" in body
        second = shown_pair(body)
        pos, body = follow(app, decide(app, "duplicate", *second, "/queue?after=2"))
        third = shown_pair(body)
        assert pos == 3 and "2 decided today" in body
        # undo: the last verdict withdrawn, its pair shown again
        r = app.handle("POST", "/verdict/undo", {}, {"token": [app.token]})
        assert r.status == 303 and r.headers["Location"] == "/queue/2"
        conn = connect(family, write=False)
        try:
            verdicts = read_verdicts(conn)
        finally:
            conn.close()
        assert [(v.kind, v.page_a, v.page_b) for v in verdicts] == [
            ("not_duplicate", *first)]
        assert verdicts[0].score == pytest.approx(scores(family)[first[0]], abs=1e-6)
        # the queue skips the decided pair: from the start, the second pair is next
        pos, body = follow(app, "/queue")
        assert pos == 2 and shown_pair(body) == second
        follow(app, decide(app, "canonical", *second, "/queue?after=2"))
        pos, body = follow(app, "/queue")
        assert shown_pair(body) == third
        assert app.handle("POST", "/verdict/undo", {}, {"token": ["guess"]}).status == 403
    finally:
        app.close()
    # the next run honours them: the rejected pair apart, the chosen canonical elected
    Deduplicator(config=Config(threshold=0.8)).run_on_db(family)
    rows = annotations(family)
    assert rows[first[0]][GROUP] != rows[first[1]][GROUP]
    assert rows[second[1]][CANONICAL] == second[0]


def test_undo_with_nothing_recorded_says_so(family):
    app = ReviewApp(family)
    try:
        r = app.handle("POST", "/verdict/undo", {}, {"token": [app.token]})
        assert r.status == 409 and b"nothing to undo" in r.body
    finally:
        app.close()


def test_side_by_side_aligns_paragraphs_and_dims_the_sites_chrome():
    words = next(t["text"].split() for t in real_texts()[60:] if len(t["text"].split()) >= 150)
    story = "\n".join(" ".join(words[i:i + 25]) for i in range(0, 150, 25))  # six paragraphs
    chrome = ["Home | News | Sport | Weather | Contact us today",
              "Copyright 2024 Example Media Group, all rights reserved"]
    canonical = "\n".join([chrome[0], story, chrome[1]])
    lines = story.splitlines()
    changed = " ".join([lines[2].split()[0], "CHANGED", *lines[2].split()[2:]])
    member = "\n".join([chrome[0], "A new first paragraph of the copy.", *lines[:2], changed,
                        *lines[3:], chrome[1]])
    keys = {line_key(c) for c in chrome}  # as host_lines gives them
    rows, share = side_by_side(canonical, member, keys, keys)
    # the chrome rows are dimmed; the copy's own paragraph stands beside nothing
    assert [r.chrome for r in rows].count(True) == 2
    added = [r for r in rows if "A new first paragraph" in r.right]
    assert len(added) == 1 and added[0].left == "" and "<ins>" in added[0].right
    # the changed paragraph beside its counterpart, the word marked on both sides
    edited = [r for r in rows if "CHANGED" in r.right]
    assert len(edited) == 1 and "<del>" in edited[0].left and "<ins>" in edited[0].right
    assert sum(r.same for r in rows) == len(lines) - 1 + 2
    # the share counts the member's own words only (the chrome is not its text)
    own = " ".join(["A new first paragraph of the copy.", *lines]).split()
    assert share == pytest.approx((len(own) - 7) / len(own), abs=0.02)


def test_a_run_of_chrome_lines_is_dimmed_on_a_real_crawl(tmp_path):
    """On a site whose pages share a template, the queue dims the template's lines."""
    texts = [t["text"] for t in real_texts()[100:106]]
    nav = "Home | Politics | Business | Science | Sport | Weather | Contact"
    foot = "Copyright Daily Example 2024. All rights reserved. Terms of use."
    pages = [make_page(f"https://news.example/{i}", f"{nav}\n{t}\n{foot}")
             for i, t in enumerate(texts)]
    words = texts[0].split()
    words[30] = "CHANGED"
    pages.append(make_page("https://news.example/0-copy", f"{nav}\n{' '.join(words)}\n{foot}",
                           datetime="2020-01-01"))
    db = write_pages(tmp_path / "crawl.sqlite", pages)
    Deduplicator(config=Config()).run_on_db(db)
    app = ReviewApp(db)
    try:
        _, body = follow(app, "/queue")
    finally:
        app.close()
    dimmed = re.findall(r'<tr class="[a-z]+ chrome"><td>([^<]*)</td>', body)
    assert nav in [html.unescape(d) for d in dimmed]
    assert foot in [html.unescape(d) for d in dimmed]


def reviewed_at(db: Path, cut: float) -> list[tuple[str, int, float]]:
    """Verdicts as a reviewer whose line lies at ``cut`` gives them, through the app: each
    near member under it is "not a duplicate", each one above a "duplicate"."""
    app = ReviewApp(db)
    given = []
    try:
        for member, score in scores(db).items():
            kind = "duplicate" if score >= cut else "not_duplicate"
            decide(app, kind, member, 1, "/queue")
            given.append((kind, member, score))
    finally:
        app.close()
    return given


def test_calibrate_finds_the_threshold_the_verdicts_were_given_at(tmp_path):
    db = scored_family(tmp_path / "crawl.sqlite")
    Deduplicator(config=Config(threshold=0.7)).run_on_db(db)
    given = reviewed_at(db, 0.85)
    rejected = [s for k, _, s in given if k == "not_duplicate"]
    accepted = [s for k, _, s in given if k == "duplicate"]
    # the texts put scores on both sides of 0.85, with a gap of a few hundredths around it
    assert len(rejected) >= 2 and len(accepted) >= 2
    assert max(rejected) < 0.84 and 0.86 <= min(accepted) < 0.87, given
    out = CliRunner().invoke(cli, ["calibrate", str(db)], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    # thresholds 0.84, 0.85 and 0.86 contradict nothing: the middle one
    assert "best threshold: 0.85 (any from 0.84 to 0.86 contradicts 0 of" in out.output
    assert re.search(rf"0\.70\s+{len(rejected)}\s+<- the last run's", out.output)
    assert re.search(rf"0\.99\s+{len(accepted)}\n", out.output)
    # the next run splits the rejected pairs; their verdicts keep their scores as labels
    Deduplicator(config=Config(threshold=0.7)).run_on_db(db)
    again = CliRunner().invoke(cli, ["calibrate", str(db), "--json"], catch_exceptions=False)
    result = json.loads(again.output)
    assert result["best"] == 0.85 and result["scored"] == len(given)
    assert result["contradictions"]["0.70"] == len(rejected)


def test_a_mistaken_verdict_is_outvoted(tmp_path):
    db = scored_family(tmp_path / "crawl.sqlite")
    Deduplicator(config=Config(threshold=0.7)).run_on_db(db)
    given = reviewed_at(db, 0.85)
    top = max(given, key=lambda g: g[2])
    conn = connect(db)
    try:
        with transaction(conn):
            migrate(conn)  # the reviewer changes their mind on the closest copy
            add_verdict(conn, "not_duplicate", top[1], 1, score=top[2])
    finally:
        conn.close()
    out = CliRunner().invoke(cli, ["calibrate", str(db)], catch_exceptions=False).output
    assert "best threshold: 0.85 (any from 0.84 to 0.86 contradicts 1 of" in out


def test_labels_export_as_json_lines_that_evaluate_reads(tmp_path):
    db = scored_family(tmp_path / "crawl.sqlite")
    Deduplicator(config=Config(threshold=0.7)).run_on_db(db)
    given = reviewed_at(db, 0.85)
    labels = tmp_path / "pairs.jsonl"
    out = CliRunner().invoke(cli, ["calibrate", str(db), "--labels", str(labels)],
                             catch_exceptions=False)
    assert out.exit_code == 0 and f"wrote {len(given)} labelled pairs" in out.output
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    assert sorted((r["a"], r["duplicate"]) for r in rows) == sorted(
        (m, k == "duplicate") for k, m, _ in given)
    assert all(r["b"] == 1 and isinstance(r["score"], float) for r in rows)
    # the evaluation scores a run's groups against the labels: the run at 0.7 put every
    # labelled pair in one group, so it gets every duplicate and every rejected pair wrong
    res = subprocess.run(
        [sys.executable, "-m", "benchmarks.corpus.evaluate", str(db), "--labels",
         str(labels), "--json"], capture_output=True, text=True, check=False, timeout=120, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    accepted = sum(1 for k, _, _ in given if k == "duplicate")
    assert report["labels"] == {"pairs": len(given), "true_positive": accepted,
                                "false_positive": len(given) - accepted, "false_negative": 0,
                                "true_negative": 0, "precision": accepted / len(given),
                                "recall": 1.0}


def _index_tables(db: Path, blind: bool) -> list[list[tuple]]:
    """The review app's index and queue (its TEMP tables) as built for the last run; with
    ``blind``, every read of the crawler's ``pages`` table gives NULL (SQLite's authorizer
    answers SQLITE_IGNORE), so an index that needed them would come out otherwise."""

    def ignore_pages(action, table, _column, _db, _trigger):
        if action == sqlite3.SQLITE_READ and table == "pages":
            return sqlite3.SQLITE_IGNORE
        return sqlite3.SQLITE_OK

    app = ReviewApp(db)
    try:
        conn = app._reader()
        conn.execute("BEGIN")
        if blind:
            conn.set_authorizer(ignore_pages)
        app._build_index(conn)
        conn.set_authorizer(None)
        tables = [conn.execute(f"SELECT * FROM temp.{t} ORDER BY 1").fetchall()
                  for t in ("review_langs", "review_groups", "review_queue",
                            "review_queue_groups", "review_scores", "review_places")]
        conn.execute("ROLLBACK")
    finally:
        app.close()
    return tables


def test_the_index_and_the_queue_are_built_from_the_state_alone(family):
    """Reading every group member's row of the crawler's table (texts included) took 23 s at
    three million pages: the index and the queue come from webdedup's state alone."""
    seen = _index_tables(family, blind=False)
    assert all(seen) and len(seen[2]) == len(scores(family)) + 1
    assert _index_tables(family, blind=True) == seen
    # (a state before schema 13 reads the scores from the pages: blind, it has none)
    with sqlite3.connect(family) as conn:
        conn.execute("ALTER TABLE _webdedup_groups DROP COLUMN dup_score")
    assert _index_tables(family, blind=False) == seen
    assert _index_tables(family, blind=True) != seen


def test_a_search_reads_the_urls_and_titles_when_asked(family):
    app = ReviewApp(family)
    try:
        plain = app.handle("GET", "/", {}, {}).body.decode()
        found = app.handle("GET", "/", {"q": ["origin.example"]}, {}).body.decode()
        none = app.handle("GET", "/", {"q": ["no-such-host.example"]}, {}).body.decode()
    finally:
        app.close()
    assert "2 groups match" in plain
    assert "1 groups match" in found or "1 group matches" in found
    assert "0 groups match" in none


def _queue_order(app: ReviewApp) -> list[tuple[int, int]]:
    """The pairs of the queue, in its order (next, next... until it comes round)."""
    order: list[tuple[int, int]] = []
    pos, body = follow(app, "/queue")
    while pos and shown_pair(body) not in order:
        order.append(shown_pair(body))
        nxt = re.search(r'id="next" rel="next" href="([^"]+)"', body)
        assert nxt
        pos, body = follow(app, nxt.group(1).replace("&amp;", "&"))
    return order


def test_a_state_before_schema_13_gets_its_scores_from_the_pages(family):
    """A database annotated by a webdedup of schema 12 (no dup_score in _webdedup_groups):
    the review app reads each member's score from its page (the queue's order is the same),
    and migrating fills the column from the pages."""
    near = scores(family)
    app = ReviewApp(family)
    try:
        now = _queue_order(app)
    finally:
        app.close()
    with sqlite3.connect(family) as conn:
        conn.execute("ALTER TABLE _webdedup_groups DROP COLUMN dup_score")
        conn.execute("UPDATE _webdedup_meta SET value = '12' WHERE key = 'schema_version'")
    app = ReviewApp(family)
    try:
        assert _queue_order(app) == now
    finally:
        app.close()
    assert [m for m, _ in now][: len(near)] == sorted(near, key=lambda i: abs(near[i] - 0.8))
    conn = connect(family)
    with transaction(conn):
        migrate(conn)
    filled = dict(conn.execute(
        "SELECT id, dup_score FROM _webdedup_groups WHERE dup_kind = 'near'").fetchall())
    conn.close()
    assert filled == near
