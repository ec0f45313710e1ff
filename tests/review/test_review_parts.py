"""The review app's index built in parts (``EAGER_GROUPS``): on a large run the list of groups
comes from the groups alone, and the members' scores, the queue, the hosts and the languages are
built by the first request that needs each. Every page must say what the index built at once
says: the same groups for every filter, the same pairs linked to the same places of the queue.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from conftest import PAGE_COLUMNS, ROOT, make_page, real_texts, write_pages

import webdedup.review.app as review_app
from webdedup import Deduplicator
from webdedup.review import ReviewApp

LANGS = ("en", "de", "fr")
HOSTS = tuple(f"h{k}.example" for k in range(5))


def mixed_crawl(path: Path) -> Path:
    """Real texts in families of every kind over five hosts, with a crawler's ``lang``: near
    copies edited more or less (scores spread about the threshold), exact copies, the same
    URL under a tracking parameter, and pages with no copy."""
    pages = []
    for i, rec in enumerate(real_texts()[:36]):
        words = rec["text"].split()[:400]
        lang = LANGS[i % len(LANGS)]
        home = HOSTS[i % len(HOSTS)]
        page = dict(lang=lang, datetime="2024-05-01")
        pages.append(make_page(f"https://{home}/story/{i}", " ".join(words), **page))
        kind = i % 4
        for k in range(1 + i % 3):
            host = HOSTS[(i + k + 1) % len(HOSTS)]
            url = f"https://{host}/copy/{i}/{k}"
            if kind == 0:  # near: a few words replaced, more in each copy
                edited = list(words)
                for j in range(2 + 6 * k + i % 5):
                    edited[(j * 37 + 11) % len(edited)] = f"zz{i}x{k}y{j}"
                pages.append(make_page(url, " ".join(edited), lang=lang, datetime="2024-01-01"))
            elif kind == 1:  # the same text
                pages.append(make_page(url, " ".join(words), lang=lang, datetime="2024-01-01"))
            elif kind == 2:  # the same URL, a tracking parameter added
                pages.append(make_page(f"https://{home}/story/{i}?utm_source=k{k}",
                                       " ".join(words[: 300 - k]), lang=lang,
                                       datetime="2024-01-01"))
    return write_pages(path, pages, columns=(*PAGE_COLUMNS, "lang"))


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = mixed_crawl(tmp_path_factory.mktemp("parts") / "crawl.sqlite")
    Deduplicator().run_on_db(db)
    return db


def body(app: ReviewApp, path: str, query: dict[str, str] | None = None) -> str:
    r = app.handle("GET", path, {k: [v] for k, v in (query or {}).items()}, {})
    assert r.status == 200, (path, query, r.status, r.body[:300])
    return r.body.decode("utf-8")


def listed(page: str) -> tuple[str, list[int]]:
    """How many groups match, and the groups shown in order."""
    matched = re.search(r'<p class="matched">([\d,]+) groups match', page)
    assert matched, page[:500]
    return matched.group(1), [int(g) for g in re.findall(r'<section class="group" id="g(\d+)"',
                                                         page)]


def temp_rows(app: ReviewApp, table: str) -> int:
    conn = app._reader()
    return int(conn.execute(f"SELECT count(*) FROM temp.{table}").fetchone()[0])


def temp_tables(app: ReviewApp) -> set[str]:
    conn = app._reader()
    return {n for (n,) in conn.execute("SELECT name FROM temp.sqlite_schema WHERE type = 'table'")}


def queue_links(page: str) -> dict[int, str]:
    """The queue link of each member of a group's page."""
    out = {}
    for member, scores in re.findall(
        r'<div class="member" data-id="(\d+)".*?<p class="scores">(.*?)</p>', page, re.S
    ):
        found = re.search(r'href="(/queue/[^"]+)"', scores)
        if found:
            out[int(member)] = found[1]
    return out


FILTERS = (
    {}, {"kind": "near"}, {"kind": "exact"}, {"kind": "url"}, {"min_size": "3"},
    {"max_size": "2"}, {"per_page": "5", "page": "2"}, {"min_score": "0.95"},
    {"max_score": "0.93"}, {"min_score": "0.9", "max_score": "0.99", "kind": "near"},
    {"host": HOSTS[1]}, {"host": HOSTS[3], "kind": "exact"}, {"lang": "de"},
    {"lang": "fr", "min_size": "3"}, {"q": HOSTS[2]}, {"q": "copy/5/"},
)


def test_a_large_runs_index_is_built_in_parts_and_says_the_same(crawl, monkeypatch):
    eager = ReviewApp(crawl)
    try:
        want = {i: listed(body(eager, "/", f)) for i, f in enumerate(FILTERS)}
        groups = want[0][1] + listed(body(eager, "/", {"page": "2"}))[1]
        links = {g: queue_links(body(eager, f"/group/{g}")) for g in groups}
        first = eager.handle("GET", "/queue", {}, {}).headers["Location"]
        front = body(eager, "/").replace(eager.token, "TOKEN")
        # the whole list (read from the index on size, the count kept) as a filter that
        # every group passes lists it (counted by the query)
        for paging in ({}, {"page": "2"}, {"per_page": "7", "page": "3"}, {"page": "9"}):
            assert listed(body(eager, "/", paging)) == listed(
                body(eager, "/", {"min_size": "2", **paging})), paging
    finally:
        eager.close()
    assert len(groups) > 10 and all(n != "0" for n, _ in want.values())
    assert sum(map(len, links.values())) > 20 and first.startswith("/queue/")

    monkeypatch.setattr(review_app, "EAGER_GROUPS", 0)
    lazy = ReviewApp(crawl)
    try:
        assert listed(body(lazy, "/")) == want[0]
        # the first page read the groups alone: no member's score nor host read yet
        assert str(temp_rows(lazy, "review_groups")) == want[0][0]
        assert temp_rows(lazy, "review_scores") == temp_rows(lazy, "review_places") == 0
        assert temp_rows(lazy, "review_langs") == 0
        page = body(lazy, "/")
        assert "put in order when it is first opened" in page
        assert '<datalist id="hosts"></datalist>' in page
        # a group's members link to their pairs before the queue is in order
        lazy_links = {g: queue_links(body(lazy, f"/group/{g}")) for g in groups}
        assert temp_rows(lazy, "review_queue") == 0
        assert {g: set(v) for g, v in lazy_links.items()} == {g: set(v) for g, v in links.items()}
        # a score filter reads the groups' lowest scores, not the queue nor the hosts
        for i, f in enumerate(FILTERS):
            if "min_score" in f or "max_score" in f:
                assert listed(body(lazy, "/", f)) == want[i], f
        assert temp_rows(lazy, "review_scores") > 0 and temp_rows(lazy, "review_places") == 0
        assert temp_rows(lazy, "review_queue") == temp_rows(lazy, "review_langs") == 0
        # a host filter looks its host's pages up: no host of every member read
        for i, f in enumerate(FILTERS):
            if "host" in f:
                assert listed(body(lazy, "/", f)) == want[i], f
        assert temp_rows(lazy, "review_host_groups") > 0
        assert temp_rows(lazy, "review_places") == temp_rows(lazy, "review_queue") == 0
        for g, by_member in lazy_links.items():
            for member, link in by_member.items():
                assert link.startswith("/queue/pair/")
                r = lazy.handle("GET", link, {}, {})
                assert r.status == 303 and r.headers["Location"] == links[g][member]
        assert temp_rows(lazy, "review_places") == 0
        assert lazy.handle("GET", "/queue", {}, {}).headers["Location"] == first
        assert lazy.handle("GET", "/queue/pair/1-999999", {}, {}).status == 404
        assert lazy.handle("GET", "/queue/pair/x-1", {}, {}).status == 404
        # a language filter reads the canonicals' languages, not every member's host
        for i, f in enumerate(FILTERS):
            if "lang" in f:
                assert listed(body(lazy, "/", f)) == want[i], f
        assert temp_rows(lazy, "review_langs") > 0 and temp_rows(lazy, "review_places") == 0
        # every filter as the whole index says; a search reads its members' URLs and titles,
        # not their hosts
        for i, f in enumerate(FILTERS):
            assert listed(body(lazy, "/", f)) == want[i], f
        assert temp_rows(lazy, "review_search") > 0 and temp_rows(lazy, "review_places") == 0
        # the same page (the same progress line), but for the host list: no part read every
        # member's host
        page = body(lazy, "/").replace(lazy.token, "TOKEN")
        hosts = re.compile(r'<datalist id="hosts">.*?</datalist>', re.S)
        assert hosts.search(front).group(0).count("<option") >= len(HOSTS)
        assert hosts.sub("", page) == hosts.sub("", front)
        assert '<datalist id="hosts"></datalist>' in page
    finally:
        lazy.close()


def copy_of(crawl: Path, db: Path) -> Path:
    src, dst = sqlite3.connect(crawl), sqlite3.connect(db)
    src.backup(dst)
    src.close()
    dst.close()
    return db


def all_links(app: ReviewApp) -> dict[int, dict[int, str]]:
    """Each group's members' queue links, every page of groups."""
    groups = listed(body(app, "/", {"per_page": "50"}))[1]
    return {g: queue_links(body(app, f"/group/{g}")) for g in groups}


def test_pages_gone_since_the_run_are_linked_as_the_whole_index_links_them(
    crawl, tmp_path, monkeypatch
):
    """The pair links before the queue is in order follow the state the queue is made from, not
    the pages' own cells: a group's first member deleted since the run leaves its group with no
    pair to link (the queue's pair is the deleted page's)."""
    db = copy_of(crawl, tmp_path / "gone.sqlite")
    conn = sqlite3.connect(db)
    firsts = conn.execute(
        "SELECT min(rowid) FROM pages WHERE is_canonical = 0 GROUP BY dup_group "
        "HAVING count(CASE WHEN dup_kind = 'near' THEN 1 END) = 0"
    ).fetchall()
    near = conn.execute("SELECT min(rowid) FROM pages WHERE dup_kind = 'near'").fetchone()
    conn.executemany("DELETE FROM pages WHERE rowid = ?", [*firsts[:4], near])
    conn.commit()
    conn.close()
    eager = ReviewApp(db)
    try:
        want = all_links(eager)
    finally:
        eager.close()
    monkeypatch.setattr(review_app, "EAGER_GROUPS", 0)
    lazy = ReviewApp(db)
    try:
        got = all_links(lazy)
        assert {g: set(v) for g, v in got.items()} == {g: set(v) for g, v in want.items()}
        for g, by_member in got.items():
            for member, link in by_member.items():
                assert lazy.handle("GET", link, {}, {}).headers["Location"] == want[g][member]
    finally:
        lazy.close()
    assert len(want) > 10 and sum(map(len, want.values())) > 10


def test_each_part_is_built_once_a_run_and_again_after_a_new_run(crawl, tmp_path, monkeypatch):
    """A new run's index starts again from its groups: no part of the last run's is read."""
    db = copy_of(crawl, tmp_path / "copy.sqlite")
    monkeypatch.setattr(review_app, "EAGER_GROUPS", 0)
    app = ReviewApp(db)
    try:
        body(app, "/", {"lang": "en"})
        body(app, "/", {"host": HOSTS[0]})
        body(app, "/", {"q": "story", "min_score": "0.5"})
        app.handle("GET", "/queue", {}, {})
        assert temp_rows(app, "review_search") > 0 and temp_rows(app, "review_queue") > 0
        assert temp_rows(app, "review_host_groups") > 0 and temp_rows(app, "review_langs") > 0
        assert temp_rows(app, "review_scores") > 0
        conn = sqlite3.connect(db)
        story = conn.execute("SELECT content FROM pages WHERE id = 1").fetchone()[0]
        conn.executemany("INSERT INTO pages (url, content, lang) VALUES (?, ?, 'en')",
                         [(f"https://{HOSTS[4]}/late/{k}", story) for k in range(3)])
        conn.commit()
        conn.close()
        Deduplicator().run_on_db(db)
        before = listed(body(app, "/"))
        assert temp_rows(app, "review_places") == temp_rows(app, "review_queue") == 0
        assert temp_rows(app, "review_langs") == temp_rows(app, "review_scores") == 0
        assert not {"review_host_groups", "review_search"} & temp_tables(app)
        assert listed(body(app, "/", {"host": HOSTS[4], "kind": "exact"}))[0] != "0"
        assert listed(body(app, "/", {"lang": "en", "kind": "exact"}))[0] != "0"
        assert temp_rows(app, "review_langs") > 0 and temp_rows(app, "review_places") == 0
    finally:
        app.close()
    fresh = ReviewApp(db)
    try:
        assert listed(body(fresh, "/")) == before
    finally:
        fresh.close()


def test_the_scale_benchs_review_child_times_each_part(crawl, capsys):
    """``bench_scale``'s review child (docs/benchmarks.md quotes it) asks for the first page, the
    queue and each filter, each answered; the statements' probe times each part."""
    from benchmarks.speed.bench_scale import REVIEW, child

    timed = child(REVIEW, str(crawl))["requests"]
    assert list(timed) == ["start", "first page", "again", "queue", "host filter",
                           "score filter", "language filter", "search"]
    assert all(t["status"] == 200 and t["bytes"] > 1000 for n, t in timed.items() if n != "start")
    from benchmarks.speed import bench_scale

    assert bench_scale.main(["--review", str(crawl)]) == 0
    assert "review app: start " in capsys.readouterr().out
    # (another checkout's package under these requests: this one's, here)
    assert bench_scale.main(["--review", str(crawl), "--tree", str(ROOT)]) == 0
    assert "review app: start " in capsys.readouterr().out
    from benchmarks.studies import queue_statements

    for part in ("queue", "scores", "langs", "places", "search"):
        assert queue_statements.main([str(crawl), "--part", part]) == 0
        assert capsys.readouterr().out.rstrip().endswith("in all")


def test_a_crawl_of_many_pages_and_few_groups_is_built_in_parts(crawl, monkeypatch):
    """Each part reads every groups row (a few numbers a page): past ``EAGER_PAGES`` pages the
    index is built in parts however few the groups."""
    monkeypatch.setattr(review_app, "EAGER_PAGES", 10)
    app = ReviewApp(crawl)
    try:
        assert listed(body(app, "/"))[0] != "0"
        assert temp_rows(app, "review_scores") == temp_rows(app, "review_places") == 0
        assert temp_rows(app, "review_queue") == temp_rows(app, "review_langs") == 0
    finally:
        app.close()
    monkeypatch.setattr(review_app, "EAGER_PAGES", 10**9)
    app = ReviewApp(crawl)
    try:
        assert temp_rows(app, "review_scores") > 0 and temp_rows(app, "review_places") > 0
        assert temp_rows(app, "review_queue") > 0 and temp_rows(app, "review_langs") > 0
    finally:
        app.close()


def reference_queue(db: Path, threshold: float) -> list[tuple]:
    """The queue by its definition (docs/review.md), from every member's row of the groups
    state: the near members, the group whose scores lie closest to the threshold first, the
    closest member first within it; then each group without a near member, largest first, by
    its first member; each pair with its group's canonical."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT id, dup_group, coalesce(is_canonical, 0), dup_kind, "
                            "dup_score FROM _webdedup_groups WHERE dup_group IS NOT NULL")
        members: dict[int, list[tuple]] = {}
        for row in rows:
            members.setdefault(row[1], []).append(row)
    finally:
        conn.close()

    def off(score: float | None) -> float:
        return abs((score or 0.0) - threshold)

    near, other = [], []
    for group, rows in members.items():
        dups = [r for r in rows if not r[2]]
        if not any(r[3] in ("url", "exact", "near") for r in dups):
            continue  # a page alone, or only thin pages: no group
        canonical = max((r[0] for r in rows if r[2]), default=None)
        close = [r for r in dups if r[3] == "near"]
        if close:
            items = sorted(close, key=lambda r: (off(r[4]), r[0]))
            near.append(((min(off(r[4]) for r in close), group), canonical, items))
        else:
            size = 1 + sum(r[3] in ("url", "exact", "near") for r in dups)
            other.append(((-size, group), canonical, [min(dups)]))
    return [(r[0], canonical, r[1], r[3], r[4])
            for _, canonical, items in sorted(near) + sorted(other) if canonical is not None
            for r in items]


def queue_at(app: ReviewApp, threshold: float) -> list[tuple]:
    """The app's queue, built again at ``threshold`` when it is not the run's."""
    from webdedup.review.queue import build_queue

    conn = app._reader()
    if threshold != app._threshold:
        build_queue(conn, threshold)
    return conn.execute("SELECT id, canonical, dup_group, kind, score "
                        "FROM temp.review_queue ORDER BY pos").fetchall()


def test_the_queue_is_the_pairs_its_definition_names_in_its_order(crawl, tmp_path, monkeypatch):
    """The queue is built from the near members and each group's canonical and first member
    (not every member's row): the same pairs in the same order as its definition over every
    member, at two thresholds (the order moves with it), in parts and at once."""
    for eager in (True, False):
        monkeypatch.setattr(review_app, "EAGER_GROUPS", 10**6 if eager else 0)
        app = ReviewApp(crawl)
        try:
            assert app.handle("GET", "/queue", {}, {}).status == 303
            conn = app._reader()
            for threshold in (app._threshold, 0.97):
                got = queue_at(app, threshold)
                want = reference_queue(crawl, threshold)
                assert len(want) > 20 and {k for *_, k, _ in want} >= {"near", "exact", "url"}
                assert got == want, threshold
                (pairs,) = conn.execute("SELECT sum(pairs) FROM temp.review_queue_groups "
                                        "WHERE canonical IS NOT NULL").fetchone()
                assert pairs == len(want)
        finally:
            app.close()


def test_the_queue_holds_edge_cases_as_its_definition(crawl, tmp_path, monkeypatch):
    """A state with what a run rarely leaves: near scores missing or tied, a group whose
    canonical is gone (no pair to show, still a group to decide), canonical flags missing on
    members; the queue, its groups and their pairs as the definition says."""
    db = copy_of(crawl, tmp_path / "edges.sqlite")
    conn = sqlite3.connect(db)
    near = [g for (g,) in conn.execute(
        "SELECT dup_group FROM _webdedup_groups WHERE dup_kind = 'near' "
        "GROUP BY dup_group HAVING count(*) >= 2 ORDER BY dup_group")]
    other = [g for (g,) in conn.execute(
        "SELECT dup_group FROM _webdedup_groups WHERE dup_kind IN ('exact', 'url') "
        "AND dup_group NOT IN (SELECT dup_group FROM _webdedup_groups WHERE dup_kind = 'near') "
        "GROUP BY dup_group ORDER BY dup_group")]
    assert len(near) >= 4 and len(other) >= 2
    conn.execute("UPDATE _webdedup_groups SET dup_score = NULL WHERE dup_group = ? AND id = "
                 "(SELECT min(id) FROM _webdedup_groups WHERE dup_group = ? AND dup_kind = "
                 "'near')", (near[0], near[0]))  # one score of a group missing
    conn.execute("UPDATE _webdedup_groups SET dup_score = NULL WHERE dup_group = ? "
                 "AND dup_kind = 'near'", (near[3],))  # every score of a group missing
    conn.execute("UPDATE _webdedup_groups SET dup_score = 0.93 WHERE dup_group IN (?, ?) "
                 "AND dup_kind = 'near'", (near[1], near[2]))
    for g in (near[2], other[0]):  # their canonicals gone
        conn.execute("DELETE FROM _webdedup_groups WHERE dup_group = ? AND is_canonical = 1",
                     (g,))
    conn.execute("UPDATE _webdedup_groups SET is_canonical = NULL "
                 "WHERE dup_group = ? AND is_canonical = 0", (other[1],))
    conn.executescript("""
        DELETE FROM _webdedup_group_members;
        INSERT INTO _webdedup_group_members (dup_group, is_canonical, id)
        SELECT dup_group, coalesce(is_canonical, 0), id FROM _webdedup_groups
        WHERE dup_group IS NOT NULL ORDER BY 1, 2, 3;
        DELETE FROM _webdedup_group_kinds;
        INSERT INTO _webdedup_group_kinds (dup_kind, dup_group, id)
        SELECT dup_kind, dup_group, id FROM _webdedup_groups
        WHERE dup_kind IS NOT NULL AND dup_group IS NOT NULL ORDER BY 1, 2, 3;
    """)
    conn.commit()
    conn.close()
    monkeypatch.setattr(review_app, "EAGER_GROUPS", 0)
    app = ReviewApp(db)
    try:
        assert app.handle("GET", "/queue", {}, {}).status == 303
        conn = app._reader()
        for threshold in (app._threshold, 0.93):
            assert queue_at(app, threshold) == reference_queue(db, threshold), threshold
            held = {g for (g,) in conn.execute("SELECT dup_group FROM temp.review_queue")}
            assert near[2] not in held and other[0] not in held
            assert {near[0], near[3], other[1]} <= held
            groups = dict(conn.execute("SELECT dup_group, pairs FROM temp.review_queue_groups"))
            assert groups == reference_groups(db)
    finally:
        app.close()


def reference_groups(db: Path) -> dict[int, int]:
    """Each group with a member to judge and how many pairs it has in the queue (its near
    members, else one), whether or not it has a canonical (the queue's progress counts them)."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT dup_group, dup_kind FROM _webdedup_groups "
                            "WHERE dup_group IS NOT NULL AND coalesce(is_canonical, 0) = 0")
        kinds: dict[int, list[str]] = {}
        for group, kind in rows:
            kinds.setdefault(group, []).append(kind)
    finally:
        conn.close()
    return {g: max(k.count("near"), 1) for g, k in kinds.items()
            if any(x in ("url", "exact", "near") for x in k)}


def test_the_queue_is_of_the_groups_the_index_read(crawl, tmp_path, monkeypatch):
    """Near members written since the groups were read (a batched run, a prune: no new run
    row) do not enter the queue: its groups are the index's."""
    db = copy_of(crawl, tmp_path / "drift.sqlite")
    monkeypatch.setattr(review_app, "EAGER_GROUPS", 0)
    app = ReviewApp(db)
    try:
        body(app, "/")
        conn = sqlite3.connect(db)
        (top,) = conn.execute("SELECT max(id) FROM _webdedup_groups").fetchone()
        new = top + 1000
        conn.executemany("INSERT INTO _webdedup_groups (id, dup_group, dup_kind, is_canonical, "
                         "dup_score) VALUES (?, ?, ?, ?, ?)",
                         [(new, new, None, 1, 1.0), (new + 1, new, "near", 0, 0.9)])
        conn.executemany("INSERT INTO _webdedup_group_members (dup_group, is_canonical, id) "
                         "VALUES (?, ?, ?)", [(new, 1, new), (new, 0, new + 1)])
        conn.execute("INSERT INTO _webdedup_group_kinds (dup_kind, dup_group, id) "
                     "VALUES ('near', ?, ?)", (new, new + 1))
        conn.commit()
        conn.close()
        assert app.handle("GET", "/queue", {}, {}).status == 303
        reader = app._reader()
        assert reader.execute("SELECT count(*) FROM temp.review_queue WHERE dup_group = ?",
                              (new,)).fetchone() == (0,)
        assert reader.execute("SELECT count(*) FROM temp.review_queue_groups "
                              "WHERE dup_group = ?", (new,)).fetchone() == (0,)
    finally:
        app.close()


def test_a_host_filter_lists_the_groups_with_a_member_on_that_host(crawl, monkeypatch):
    """Against the definition (a group with a member whose prepared host is the one asked),
    for every host, alone and with another filter, and asked again after another host."""
    conn = sqlite3.connect(crawl)
    try:
        members = conn.execute(
            "SELECT a.dup_group, w.host, a.is_canonical, "
            "(SELECT count(*) + 1 FROM _webdedup_group_kinds AS k WHERE k.dup_group = a.dup_group "
            " AND k.dup_kind IN ('url', 'exact', 'near')) "
            "FROM _webdedup_groups AS a JOIN _webdedup_prepared AS w ON w.id = a.id "
            "WHERE a.dup_group IN (SELECT dup_group FROM _webdedup_group_kinds "
            "WHERE dup_kind IN ('url', 'exact', 'near'))").fetchall()
    finally:
        conn.close()
    size = {g: n for g, _, _, n in members}
    for eager in (True, False):
        monkeypatch.setattr(review_app, "EAGER_GROUPS", 10**6 if eager else 0)
        app = ReviewApp(crawl)
        try:
            for host in (*HOSTS, HOSTS[0], "nowhere.example"):
                want = sorted({g for g, h, _, _ in members if h == host},
                              key=lambda g: (-size[g], g))
                got = listed(body(app, "/", {"host": host, "per_page": "50"}))
                assert got == (f"{len(want):,}", want[:50]), host
                bigger = [g for g in want if size[g] >= 3]
                assert listed(body(app, "/", {"host": host, "min_size": "3",
                                              "per_page": "50"}))[1] == bigger[:50]
            assert sum(1 for g, h, _, _ in members if h == HOSTS[1]) > 3
        finally:
            app.close()


@pytest.mark.parametrize("before_13", [False, True], ids=["state", "scores-on-pages"])
def test_score_and_language_filters_list_the_groups_their_definitions_name(
        crawl, tmp_path, monkeypatch, before_13):
    """Against the definitions, from the pages' own cells: a score filter keeps a group by its
    lowest member score (its canonical's is not one: set lower here), a language filter by its
    canonical's language (not a member's: some members' languages are changed here so that
    they differ from their canonical's), alone and with another filter, eager and in parts;
    also on a state older than schema 13, whose scores are the pages' own cells."""
    db = copy_of(crawl, tmp_path / "langs.sqlite")
    conn = sqlite3.connect(db)
    try:
        conn.execute("UPDATE _webdedup_prepared SET lang = 'fr' WHERE id IN "
                     "(SELECT id FROM pages WHERE is_canonical = 0 AND id % 2 = 0)")
        # (a canonical's score, lower than its members': not the group's lowest)
        for table in ("pages", "_webdedup_groups"):
            conn.execute(f"UPDATE {table} SET dup_score = 0.5 WHERE is_canonical = 1")
        if before_13:  # (the scores read from the pages: shifted there to tell them apart)
            conn.execute("ALTER TABLE _webdedup_groups DROP COLUMN dup_score")
            conn.execute("UPDATE pages SET dup_score = dup_score - 0.01 WHERE id % 3 = 0")
        conn.commit()
        rows = conn.execute(
            "SELECT p.dup_group, p.is_canonical, p.dup_score, w.lang FROM pages AS p "
            "JOIN _webdedup_prepared AS w ON w.id = p.id WHERE p.dup_group IS NOT NULL"
        ).fetchall()
    finally:
        conn.close()
    size: dict[int, int] = {}
    lowest: dict[int, float] = {}
    lang: dict[int, str] = {}
    for g, canonical, score, language in rows:
        size[g] = size.get(g, 0) + 1
        if canonical:
            lang[g] = language
        elif score is not None:
            lowest[g] = min(score, lowest.get(g, score))
    groups = sorted((g for g, n in size.items() if n >= 2), key=lambda g: (-size[g], g))

    def where(keep) -> tuple[str, list[int]]:
        kept = [g for g in groups if keep(g)]
        return f"{len(kept):,}", kept[:50]

    cases = [
        ({"min_score": "0.95"}, lambda g: g in lowest and lowest[g] >= 0.95),
        ({"max_score": "0.93"}, lambda g: g in lowest and lowest[g] <= 0.93),
        ({"min_score": "0.9", "max_score": "0.97"},
         lambda g: g in lowest and 0.9 <= lowest[g] <= 0.97),
        ({"max_score": "0.97", "min_size": "3"},
         lambda g: g in lowest and lowest[g] <= 0.97 and size[g] >= 3),
        *(({"lang": x}, lambda g, x=x: lang.get(g) == x) for x in (*LANGS, "xx")),
        ({"lang": "de", "min_size": "3"}, lambda g: lang.get(g) == "de" and size[g] >= 3),
    ]
    assert sum(1 for g in groups if g in lowest and lowest[g] < 1) > 5
    assert sum(1 for _, c, _, x in rows if not c and x == "fr") > sum(
        1 for g in groups if lang.get(g) == "fr")  # (members in French that are not canonical)
    for eager in (True, False):
        monkeypatch.setattr(review_app, "EAGER_GROUPS", 10**6 if eager else 0)
        app = ReviewApp(db)
        try:
            for query, keep in cases:
                want = where(keep)
                assert want[0] != "0" or query == {"lang": "xx"}, query
                got = listed(body(app, "/", {**query, "per_page": "50"}))
                assert got == want, (eager, query)
        finally:
            app.close()


def test_a_search_lists_the_groups_with_a_member_whose_url_or_title_matches(crawl, monkeypatch):
    """Against the definition, from the pages' own cells (a case-insensitive substring of a
    member's URL or title), eager and in parts, asked again after another search."""
    conn = sqlite3.connect(crawl)
    try:
        rows = conn.execute("SELECT dup_group, url, title FROM pages "
                            "WHERE dup_group IS NOT NULL").fetchall()
    finally:
        conn.close()
    size: dict[int, int] = {}
    for g, _, _ in rows:
        size[g] = size.get(g, 0) + 1
    groups = sorted((g for g, n in size.items() if n >= 2), key=lambda g: (-size[g], g))
    for eager in (True, False):
        monkeypatch.setattr(review_app, "EAGER_GROUPS", 10**6 if eager else 0)
        app = ReviewApp(crawl)
        try:
            for q in ("copy/5/", HOSTS[2].upper(), "utm_source", "/story/1", "nothing-like-it"):
                hit = {g for g, url, title in rows
                       if q.lower() in f"{url}\n{title or ''}".lower()}
                want = [g for g in groups if g in hit]
                assert listed(body(app, "/", {"q": q, "per_page": "50"})) == (
                    f"{len(want):,}", want[:50]), (eager, q)
                assert want or q == "nothing-like-it"
        finally:
            app.close()
