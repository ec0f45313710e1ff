"""Own content decides, on the real 2008 Heritrix crawl of archive.org (issue 29, items 2-3).

The crawl's short archive.org pages are mostly the site's navigation: compared by their whole
texts, one of them is "contained" in every other page of the site and a threshold of 0.8
joined about 29 pages on different subjects in one near group. Compared by their own texts
(without the lines the host repeats: webdedup.algorithms.own), they are not; the pages whose
text is all navigation are ``thin``.
"""

from __future__ import annotations

import html
import json
import shutil
import sqlite3
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT, SHARED_DATA, annotations
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_incremental import check_runs_equal_a_full_run, full_twin, state
from test_segments import _op as _seg_op
from test_segments import _page as _seg_page
from test_segments import seg_page

from benchmarks.studies import study_real_crawls
from webdedup import Config, Deduplicator
from webdedup.ingest import ingest
from webdedup.output.json_report import write_report
from webdedup.output.stats import collect_stats, format_stats
from webdedup.review.app import ReviewApp

SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))

WARC = SHARED_DATA / "warc" / "aut-2008-crawl.warc.gz"
#: The archive.org pages that extract to the site's navigation and nothing else (the same
#: 750 characters), and the ones whose only text of their own is "You must be logged in".
NAVIGATION_ONLY = (
    "http://www.archive.org/about/jobs.php",
    "http://www.archive.org/account/login.createaccount.php",
    "http://www.archive.org/mediatypes-browse.php?mediatype=movies",
)
LOGGED_IN_ONLY = ("http://www.archive.org/create/1.5.0", "http://www.archive.org/create/Msxml2.XMLHTTP")
PRESS_RELEASE = "http://www.archive.org/iathreads/post-view.php?id=186011"


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real 2008 crawl, ingested once (copy it before running webdedup on it)."""
    db = tmp_path_factory.mktemp("warc") / "aut-2008.sqlite"
    ingest(db, [WARC], workers=2)
    return db


def _copy(crawl: Path, tmp_path: Path, name: str = "crawl.sqlite") -> Path:
    path = tmp_path / name
    shutil.copy(crawl, path)
    return path


def _by_url(path: Path) -> dict[str, tuple]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT url, id, dup_group, dup_kind, is_canonical FROM pages")
        return {r[0]: r[1:] for r in rows}


@pytest.mark.parametrize(
    ("method", "threshold"),
    [("minhash", 0.8), ("minhash", 0.85), ("levenshtein", 0.8), ("simhash", 0.85)],
)
def test_no_near_group_of_the_archive_crawl_joins_different_own_texts(
    crawl, tmp_path, method, threshold
):
    path = _copy(crawl, tmp_path)
    Deduplicator(method=method, threshold=threshold, config=Config()).run_on_db(str(path))
    study = study_real_crawls
    with sqlite3.connect(path) as conn:
        own = study.own_texts(conn)  # the study's own definition, independent of the pipeline
        groups: dict[int, list[int]] = {}
        for pid, group in conn.execute(
            "SELECT id, dup_group FROM pages WHERE dup_group IN "
            "(SELECT dup_group FROM pages WHERE dup_kind = 'near')"
        ):
            groups.setdefault(group, []).append(pid)
    from rapidfuzz import fuzz

    different = [
        (a, b)
        for members in groups.values()
        for i, a in enumerate(members)
        for b in members[i + 1 :]
        if fuzz.ratio(own[a], own[b]) < 50
    ]
    assert different == []
    assert all(len(m) < 10 for m in groups.values())  # the 29-page group is gone


def test_navigation_only_pages_are_thin_with_a_reason_and_survive_prune(crawl, tmp_path):
    path = _copy(crawl, tmp_path)
    result = Deduplicator(threshold=0.8, config=Config()).run_on_db(str(path), prune=True)
    assert result.mode == "full"
    pages = _by_url(path)
    for url in NAVIGATION_ONLY + LOGGED_IN_ONLY:  # all still there after --prune
        pid, group, kind, canonical = pages[url]
        assert (kind, canonical, group) == ("thin", 1, pid)  # alone: no duplicate of another
    with sqlite3.connect(path) as conn:
        reasons = dict(conn.execute("SELECT id, reason FROM _webdedup_thin"))
        pruned = conn.execute("SELECT count(*) FROM _webdedup_pruned").fetchone()[0]
    assert pruned > 0  # --prune did remove duplicates, just not the thin pages
    jobs = pages[NAVIGATION_ONLY[0]][0]
    assert reasons[jobs].startswith("own text 0 of ")  # nothing but navigation
    assert "min_words 50" in reasons[jobs]
    # byte-identical thin texts are not exact duplicates either: each page is its own
    assert len({pages[u][1] for u in NAVIGATION_ONLY}) == len(NAVIGATION_ONLY)


def test_stats_the_report_and_the_review_app_show_the_thin_pages(crawl, tmp_path):
    path = _copy(crawl, tmp_path)
    Deduplicator(threshold=0.8, config=Config()).run_on_db(str(path))
    with sqlite3.connect(path) as conn:
        thin = dict(conn.execute("SELECT id, reason FROM _webdedup_thin"))
        kinds = conn.execute("SELECT count(*) FROM pages WHERE dup_kind = 'thin'").fetchone()
    assert len(thin) == kinds[0] > 0
    stats = collect_stats(path)
    assert stats.counts.thin == len(thin)
    assert f"{'thin':<18} {len(thin):>10,}" in format_stats(stats)
    report = tmp_path / "report.json"
    write_report(path, report)
    data = json.loads(report.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert {p["id"]: p["reason"] for p in data["thin_pages"]} == thin
    assert data["meta"]["counts"]["thin"] == len(thin)
    app = ReviewApp(path)
    try:
        front = app.handle("GET", "/", {}, {}).body.decode()
        page = app.handle("GET", "/thin", {}, {}).body.decode()
    finally:
        app.close()
    assert f'<a href="/thin">{len(thin):,} thin pages</a>' in front
    assert all(html.escape(reason) in page for reason in thin.values())


def test_the_press_release_framed_by_another_sites_chrome_is_still_found(crawl, tmp_path):
    path = _copy(crawl, tmp_path)
    with sqlite3.connect(path) as conn:
        (text,) = conn.execute("SELECT content FROM pages WHERE url = ?", (PRESS_RELEASE,))
        # the release's page without archive.org's chrome: the lines of its own, those not on
        # three other pages of the host (the post's header and the release itself)
        others = [r[0] for r in conn.execute(
            "SELECT content FROM pages WHERE url LIKE '%archive.org%' AND url <> ? "
            "AND content IS NOT NULL", (PRESS_RELEASE,))]
        story = "\n".join(
            line for line in text[0].splitlines()
            if line.strip() and sum(line in o for o in others) < 3
        )
        frame = next(  # the real lines of another crawled site's page, around the same story
            lines
            for (lines,) in (
                (r[0].splitlines(),) for r in conn.execute(
                    "SELECT content FROM pages WHERE url NOT LIKE '%archive.org%' "
                    "AND content IS NOT NULL ORDER BY id"
                )
            )
            if len(lines) >= 12
        )
        framed = "\n".join(frame[:6] + [story] + frame[-6:])
        conn.execute(
            "INSERT INTO pages (url, content) VALUES (?, ?)",
            ("http://mirror.example/press/2008-03-27", framed),
        )
    Deduplicator(config=Config()).run_on_db(str(path))  # webdedup's defaults
    pages = _by_url(path)
    assert pages["http://mirror.example/press/2008-03-27"][1] == pages[PRESS_RELEASE][1]


def test_an_incremental_run_over_half_the_crawl_equals_a_full_run(crawl, tmp_path):
    # the host's repeated lines change as its pages arrive: the region takes the whole host
    path = _copy(crawl, tmp_path)
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT * FROM pages WHERE id % 2 = 0 ORDER BY id").fetchall()
        names = [d[1] for d in conn.execute("PRAGMA table_info(pages)")]
        conn.execute("DELETE FROM pages WHERE id % 2 = 0")
    d = Deduplicator(threshold=0.8, config=Config())
    d.run_on_db(str(path))
    with sqlite3.connect(path) as conn:
        conn.executemany(
            f"INSERT INTO pages ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            rows[: len(rows) // 2],
        )
        conn.execute("DELETE FROM pages WHERE id IN (SELECT id FROM pages ORDER BY id LIMIT 3)")
    assert d.run_on_db(str(path)).mode == "incremental"
    assert annotations(path) == full_twin(path, tmp_path, "minhash", threshold=0.8,
                                          config=Config())
    assert state(path) == state(tmp_path / "twin-minhash.sqlite")


@pytest.mark.parametrize("method", ["minhash", "simhash", "levenshtein"])
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=st.lists(_seg_page, min_size=1, max_size=8), ops=st.lists(_seg_op, min_size=1,
                                                                      max_size=5))
# found by hypothesis: the third article on host b makes its template the host's lines, so the
# own text of b/p0 (stored, unchanged) becomes its article, a near-duplicate of a/p0; a nightly
# run must take a/p0 in (the band neighbours of the host's unchanged pages)
@example(first=[(0, 0, 0, 0), (0, 0, 0, 0), (1, 2, 1, 2)],
         ops=[("insert", [(0, 0, 0, 0), (1, 0, 1, 0)]), ("insert", [(1, 1, 1, 1)])])
def test_incremental_runs_with_own_content_equal_a_full_run(tmp_path_factory, method, first, ops):
    # templates around real articles on two hosts (test_segments.seg_page): pages arrive,
    # change and leave, so their hosts' lines, own texts and thin pages move
    tmp = tmp_path_factory.mktemp("own")
    check_runs_equal_a_full_run(tmp, seg_page, first, ops, method, min_words=20)


def test_copies_of_one_text_on_its_host_keep_its_paragraphs_its_own():
    # an original under two URLs, a copy with its quotes typeset otherwise, a copy with a word
    # changed in each paragraph, and one other page that took half of its paragraphs, all on
    # one host: no paragraph of the story is the host's template (only the navigation is)
    from conftest import real_texts

    from webdedup.algorithms.own import host_line_counts, host_lines, own_text

    words = next(t["text"].split() for t in real_texts()[200:] if len(t["text"].split()) >= 400)
    paragraphs = [" ".join(words[i : i + 40]) for i in range(0, 400, 40)]
    other = [" ".join(words[i : i + 40][::-1]) + " elsewhere" for i in range(0, 200, 40)]
    nav = "Home | Archive | About us | Contact"
    original = [nav, *(f"\u201c{p}\u201d" for p in paragraphs)]
    typography = [nav, *(f'"{p}"' for p in paragraphs)]
    edited = [nav, *(f"\u201c{p.replace(' ', ' very ', 1)}\u201d" for p in paragraphs)]
    half = [nav, *original[1:6], *other]
    stories = [(" ".join(f"w{k}x{j}" for j in range(60))) for k in range(3)]
    pages = [original, typography, edited, half, *([nav, s] for s in stories)]
    urls = [2] + [1] * (len(pages) - 1)
    counts = host_line_counts(("\n".join(lines), n) for lines, n in zip(pages, urls, strict=True))
    lines = host_lines(counts, 3)
    assert own_text("\n".join(original), lines) == "\n".join(original[1:])
    assert own_text("\n".join(typography), lines) == "\n".join(typography[1:])


def test_the_keys_of_a_texts_lines_in_one_pass_equal_each_lines_key():
    from conftest import real_texts

    from webdedup.algorithms.own import line_key, line_keys

    texts = [t["text"] for t in real_texts()]
    texts += ["", "\n\n", "a\n\ue000 b\n", "x --\n-- y", "  \u201cq\u201d  \n\tz\t"]
    for text in texts:
        assert line_keys(text) == [line_key(line) for line in text.splitlines()], text[:80]


def test_own_texts_cut_in_workers_or_host_by_host_equal_those_cut_here(
    crawl, tmp_path, monkeypatch
):
    """Own texts are cut in worker processes, several hosts a job; a host of more than
    KEEP_TEXTS texts in the main process, its texts read twice. Every way (one process,
    workers, every host large, the big host large among small ones) gives the same own texts
    (the verified scores rest on them), thin pages and annotations."""
    from conftest import real_texts

    from webdedup.pipeline import own_content

    # beside the crawl's one big host, six more: each page its site's navigation around a
    # real text; a page of each site with a few words of its own (thin); and each text
    # again on the next site, in that site's navigation
    bodies = [t["text"] for t in real_texts(limit=48)]
    rows = []
    navs = ["\n".join(f"Site {k} {item}" for item in ("Home", "News", "Contact us", "Log in"))
            for k in range(6)]
    for k, nav in enumerate(navs):
        for j in range(8):
            body = bodies[k * 8 + j]
            rows.append((f"https://site{k}.example/{j}", f"{nav}\n{body}\n{nav}"))
            rows.append((f"https://site{(k + 1) % 6}.example/copy/{j}",
                         f"{navs[(k + 1) % 6]}\n{body}"))
        rows.append((f"https://site{k}.example/about", f"{nav}\nWe are site {k}."))
    runs = {}
    ways = (("here", 1, 2000), ("workers", 2, 2000), ("large hosts", 2, 3), ("mixed", 2, 20))
    for name, workers, keep in ways:
        monkeypatch.setattr(own_content, "KEEP_TEXTS", keep)  # (a site host has 17 texts)
        monkeypatch.setattr(own_content, "JOB_TEXTS", 40)  # several jobs, several hosts each
        jobs = []
        real = own_content.own_of_hosts
        if workers == 1:  # (inline: what each job held can be seen)
            def counted(hosts, *limits, jobs=jobs, real=real):
                jobs.append(len(hosts))
                return real(hosts, *limits)

            monkeypatch.setattr(own_content, "own_of_hosts", counted)
        path = _copy(crawl, tmp_path, f"{name}.sqlite")
        with sqlite3.connect(path) as conn:
            conn.executemany("INSERT INTO pages (url, content) VALUES (?, ?)", rows)
        conn.close()
        result = Deduplicator(workers=workers, config=Config()).run_on_db(str(path))
        monkeypatch.setattr(own_content, "own_of_hosts", real)
        runs[name] = (result.phases["own"], annotations(path), state(path))
        if workers == 1:
            assert max(jobs) >= 2 and len(jobs) >= 2, jobs  # several jobs of several hosts
    here = runs["here"]
    assert here[0]["hosts"] == 7 and here[0]["own"] > 96 and here[0]["thin"] > 6, here[0]
    assert runs["workers"] == here
    assert runs["large hosts"] == here
    assert runs["mixed"] == here
