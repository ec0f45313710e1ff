"""Incremental nightly runs: equal to a full run, stable ids, change detection, concurrency."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import annotations, make_page, real_texts, write_pages
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webdedup import Deduplicator
from webdedup.incremental.plan import pages_now


def variants() -> list[str]:
    """Texts with real near-duplicates among them: originals, cut, framed and exact copies."""
    out = []
    for rec in real_texts()[:6]:
        words = rec["text"].split()[:300]
        text = " ".join(words)
        out += [
            text,
            " ".join(words[: int(len(words) * 0.85)]),  # truncated
            "Home News Sport Weather " + text + " Contact us Privacy",  # framed
            text.upper(),  # an exact duplicate after normalization
        ]
    out.append("too short to judge")
    return out


TEXTS = variants()
URLS = [f"https://{h}.example/{p}" for h in ("a", "b", "www.a") for p in ("x", "y", "x/", "z")]
URLS += [f"http://a.example/x?utm_source={i}" for i in range(2)]


def page(url_i: int, text_i: int, day: int) -> dict:
    return make_page(
        URLS[url_i % len(URLS)], TEXTS[text_i % len(TEXTS)], crawled=f"2024-01-{day % 28 + 1:02d}"
    )


def insert(path: Path, pages: list[dict]) -> None:
    with sqlite3.connect(path) as conn:
        conn.executemany(
            "INSERT INTO pages (url, content, crawled) VALUES (?, ?, ?)",
            [(p["url"], p["content"], p.get("crawled")) for p in pages],
        )


def full_twin(path: Path, tmp: Path, method: str, **options: Any) -> dict:
    twin = tmp / f"twin-{method}.sqlite"
    shutil.copy(path, twin)
    for suffix in ("-wal", "-shm"):
        if Path(str(path) + suffix).exists():
            shutil.copy(str(path) + suffix, str(twin) + suffix)
    Deduplicator(method=method, **options).run_on_db(twin, full=True)
    return annotations(twin)


_page = st.tuples(st.integers(0, 100), st.integers(0, 100), st.integers(0, 27))
_op = st.one_of(
    st.tuples(st.just("insert"), st.lists(_page, min_size=1, max_size=6)),
    st.tuples(st.just("update"), st.integers(0, 1000), _page),
    st.tuples(st.just("delete"), st.integers(0, 1000)),
)


@pytest.mark.parametrize("method", ["minhash", "simhash", "levenshtein"])
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=st.lists(_page, min_size=1, max_size=10), ops=st.lists(_op, min_size=1, max_size=6))
def test_incremental_runs_equal_a_full_run(tmp_path_factory, method, first, ops):
    check_runs_equal_a_full_run(tmp_path_factory.mktemp("inc"), page, first, ops, method)


def check_runs_equal_a_full_run(tmp: Path, make, first, ops, method: str, **options) -> None:
    """A first run, then an incremental run after each operation; then the annotations and
    the stored state must be those of one full run on the final table."""
    path = write_pages(tmp / "crawl.sqlite", [make(*p) for p in first])
    d = Deduplicator(method=method, **options)
    d.run_on_db(path)
    for op in ops:
        with sqlite3.connect(path) as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM pages ORDER BY id")]
            if op[0] == "insert":
                insert(path, [make(*p) for p in op[1]])
            elif op[0] == "update" and ids:
                p = make(*op[2])
                conn.execute(
                    "UPDATE pages SET url = ?, content = ? WHERE id = ?",
                    (p["url"], p["content"], ids[op[1] % len(ids)]),
                )
            elif op[0] == "delete" and ids:
                conn.execute("DELETE FROM pages WHERE id = ?", (ids[op[1] % len(ids)],))
        result = d.run_on_db(path)
        assert result.mode == "incremental"
        assert result.pages == pages_in(path)  # counted from the state and the queue
    assert annotations(path) == full_twin(path, tmp, method, **options)
    # and the stored state an incremental run leaves is the state a full run builds
    assert state(path) == state(tmp / f"twin-{method}.sqlite")
    # the verification cache keeps old pairs too, but holds every pair the full run verified
    # (with stripped segments a score follows the segment counts of its run, and such a run
    # does not read the cache: the pairs, not their scores)
    twin, ours = verified(tmp / f"twin-{method}.sqlite"), verified(path)
    if options.get("strip_segments"):
        twin, ours = {row[:2] for row in twin}, {row[:2] for row in ours}
    assert twin <= ours


def pages_in(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM pages").fetchone()[0])


def verified(path: Path) -> set[tuple]:
    with sqlite3.connect(path) as conn:
        return set(conn.execute("SELECT * FROM _webdedup_verified"))


def state(path: Path) -> tuple[list, ...]:
    with sqlite3.connect(path) as conn:
        return tuple(
            conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
            for t in (
                "_webdedup_sketches",
                "_webdedup_prepared",
                "_webdedup_url_keys",
                "_webdedup_content_hashes",
                "_webdedup_hosts",
                "_webdedup_edges",
                "_webdedup_nodes",
            )
        )


# the levenshtein window over many URLs, with a small distance: insertions and deletions shift
# pairs in and out of the window. Few exact copies (they would pull most pages into every
# region) and three families of near-duplicates, so many window pairs are edges.
def lev_texts() -> list[str]:
    out = []
    for rec in real_texts()[10:16]:
        words = rec["text"].split()[:200]
        if len(out) >= 15:  # three unrelated texts after the three families
            out.append(" ".join(words))
            continue
        out += [
            " ".join(words),
            " ".join(words[: int(len(words) * 0.9)]),
            " ".join(words[: int(len(words) * 0.95)]),
            "Home News " + " ".join(words),
            " ".join(words) + " Contact us",
        ]
    return out


LEV_TEXTS = lev_texts()
LEV_URLS = [f"https://{h}.example/{p}" for h in ("a", "m", "z") for p in "bcdfghjklmnpqrst"]
_lev_page = st.tuples(
    st.integers(0, len(LEV_URLS) - 1), st.integers(0, len(LEV_TEXTS) - 1), st.integers(0, 27)
)
_lev_op = st.one_of(
    st.tuples(st.just("insert"), st.lists(_lev_page, min_size=1, max_size=4)),
    st.tuples(st.just("update"), st.integers(0, 1000), _lev_page),
    st.tuples(st.just("delete"), st.integers(0, 1000)),
)


def lev_page(url_i: int, text_i: int, day: int) -> dict:
    return make_page(LEV_URLS[url_i], LEV_TEXTS[text_i], crawled=f"2024-01-{day % 28 + 1:02d}")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    first=st.lists(_lev_page, min_size=4, max_size=24),
    ops=st.lists(_lev_op, min_size=1, max_size=5),
    distance=st.integers(1, 3),
)
def test_incremental_levenshtein_window_equals_a_full_run(tmp_path_factory, first, ops, distance):
    tmp = tmp_path_factory.mktemp("lev")
    check_runs_equal_a_full_run(tmp, lev_page, first, ops, "levenshtein", distance=distance)


def _lev_scenario(tmp: Path, pages: list[tuple], change) -> tuple[int, int]:
    """Near-duplicates before and after ``change``, checked against a full run (distance 1)."""
    path = write_pages(tmp / "crawl.sqlite", [lev_page(*p) for p in pages])
    d = Deduplicator(method="levenshtein", distance=1)
    before = d.run_on_db(path).near_duplicates
    with sqlite3.connect(path) as conn:
        change(conn)
    after = d.run_on_db(path)
    assert after.mode == "incremental"
    assert annotations(path) == full_twin(path, tmp, "levenshtein", distance=1)
    assert state(path) == state(tmp / "twin-levenshtein.sqlite")
    return before, after.near_duplicates


def test_levenshtein_insertion_between_two_near_duplicates_parts_them(tmp_path):
    # /b and /d hold near-duplicates, adjacent in URL order; an unrelated page at /c comes
    # between them: with distance 1 they no longer meet, and the stored edge must go
    def change(conn):
        conn.execute("INSERT INTO pages (url, content) VALUES (?, ?)", (LEV_URLS[1], LEV_TEXTS[16]))

    assert _lev_scenario(tmp_path, [(0, 0, 1), (2, 1, 1)], change) == (1, 0)


def test_levenshtein_removal_between_two_near_duplicates_joins_them(tmp_path):
    # the reverse: the page between them is deleted, so two unchanged pages meet
    def change(conn):
        conn.execute("DELETE FROM pages WHERE url = ?", (LEV_URLS[1],))

    assert _lev_scenario(tmp_path, [(0, 0, 1), (1, 16, 1), (2, 1, 1)], change) == (0, 1)


def test_levenshtein_page_moving_in_url_order(tmp_path):
    # a near-duplicate of /b moves from far away (/t) to right after it
    def change(conn):
        conn.execute("UPDATE pages SET url = ? WHERE url = ?", (LEV_URLS[1], LEV_URLS[15]))

    assert _lev_scenario(tmp_path, [(0, 0, 1), (5, 16, 1), (15, 1, 1)], change) == (0, 1)


def test_levenshtein_page_changing_text_in_place(tmp_path):
    # /c keeps its place next to /b, and its new text is a near-duplicate of /b's: a pair
    # already in the window, scored again because one side changed
    def change(conn):
        conn.execute("UPDATE pages SET content = ? WHERE url = ?", (LEV_TEXTS[1], LEV_URLS[1]))

    assert _lev_scenario(tmp_path, [(0, 0, 1), (1, 16, 1)], change) == (0, 1)


def test_levenshtein_state_from_before_the_stored_window_means_a_full_run(tmp_path):
    # a database last run by a webdedup without _webdedup_nodes (schema 2) has no stored
    # window: the next levenshtein run is full, says why, and stores it
    path = write_pages(tmp_path / "crawl.sqlite", [lev_page(i, i % 5, 1) for i in range(6)])
    d = Deduplicator(method="levenshtein", distance=2)
    d.run_on_db(path)
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE _webdedup_nodes")
        conn.execute("ALTER TABLE _webdedup_prepared RENAME TO _prepared")  # as in schema 2
        conn.execute("UPDATE _webdedup_meta SET value = '2' WHERE key = 'schema_version'")
    messages: list[str] = []
    assert d.run_on_db(path, on_message=messages.append).mode == "full"
    assert "older webdedup (schema 2)" in messages[0]
    insert(path, [lev_page(20, 1, 2)])
    assert d.run_on_db(path).mode == "incremental"
    assert annotations(path) == full_twin(path, tmp_path, "levenshtein", distance=2)


def test_simhash_new_page_meets_its_stored_near_duplicate(tmp_path):
    # only band collisions within the SimHash distance join the region: the one that matters
    # must, on a URL and a text of its own (no other link to the stored page)
    from webdedup.algorithms.simhash import hamming, simhash
    from webdedup.algorithms.text import normalize_text

    text = " ".join(real_texts()[20]["text"].split()[:300])
    variant = text + " Updated."
    assert hamming(simhash(normalize_text(text)), simhash(normalize_text(variant))) <= 6
    others = [make_page(f"https://o{i}.example/", real_texts()[30 + i]["text"]) for i in range(8)]
    path = write_pages(tmp_path / "crawl.sqlite", [make_page("https://a.example/", text), *others])
    d = Deduplicator(method="simhash")
    d.run_on_db(path)
    insert(path, [make_page("https://b.example/copy", variant)])
    result = d.run_on_db(path)
    assert result.mode == "incremental" and result.near_duplicates == 1
    assert result.processed == 2  # the new page and its near-duplicate, not the others
    assert annotations(path) == full_twin(path, tmp_path, "simhash")


def test_incremental_run_processes_only_the_changes(db_builder):
    pages = [page(i, i, i) for i in range(20)]
    path = db_builder(pages)
    first = Deduplicator().run_on_db(path)
    assert first.mode == "full" and first.processed == 20
    insert(path, [make_page("https://new.example/1", real_texts()[40]["text"])])
    second = Deduplicator().run_on_db(path)
    assert second.mode == "incremental"
    assert second.processed == 1  # the new page only: it is linked to nothing
    again = Deduplicator().run_on_db(path)
    assert again.mode == "incremental" and again.processed == 0


def test_unrelated_pages_change_no_existing_annotation(db_builder):
    pages = [page(i, i, i) for i in range(30)]
    path = db_builder(pages)
    Deduplicator().run_on_db(path)
    before = annotations(path)
    insert(
        path,
        [make_page(f"https://other{i}.example/", real_texts()[50 + i]["text"]) for i in range(5)],
    )
    Deduplicator().run_on_db(path)
    after = annotations(path)
    assert {k: after[k] for k in before} == before


def test_merges_keep_the_older_group_id(db_builder):
    base = " ".join(real_texts()[3]["text"].split()[:300])
    path = db_builder([make_page("https://one.example/", base)])
    Deduplicator().run_on_db(path)
    insert(path, [make_page("https://two.example/", base.upper(), crawled="2030-01-01")])
    Deduplicator().run_on_db(path)
    rows = annotations(path)
    assert rows[1][3] == rows[2][3] == 1  # the group keeps id 1
    assert rows[2][5] == 2  # the newer crawl won the election: the canonical changed


def test_parameter_change_forces_full_run_with_a_message(db_builder):
    path = db_builder([page(i, i, i) for i in range(8)])
    Deduplicator().run_on_db(path)
    said: list[str] = []
    r = Deduplicator(threshold=0.8).run_on_db(path, on_message=said.append)
    assert r.mode == "full" and "parameters that shape signatures or edges changed" in said[0]
    assert "(--threshold 0.9 -> 0.8)" in said[0]  # the message names the option that changed
    r = Deduplicator(threshold=0.8).run_on_db(path, on_message=said.append)
    assert r.mode == "incremental"
    r = Deduplicator(threshold=0.8).run_on_db(path, full=True, on_message=said.append)
    assert r.mode == "full" and "--full" in said[-1]


def test_dropped_triggers_are_noticed(db_builder):
    path = db_builder([page(i, i, i) for i in range(8)])
    Deduplicator().run_on_db(path)
    with sqlite3.connect(path) as conn:
        conn.execute('DROP TRIGGER "_webdedup_pages_insert"')
    insert(path, [page(3, 3, 3)])
    said: list[str] = []
    r = Deduplicator().run_on_db(path, on_message=said.append)
    assert r.mode == "full" and "triggers" in said[0]
    assert annotations(path)[9][3] is not None


def test_write_back_does_not_queue_itself(db_builder):
    path = db_builder([page(i, i, i) for i in range(8)])
    Deduplicator().run_on_db(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM _webdedup_changes").fetchone()[0] == 0
        conn.execute("UPDATE pages SET dup_score = 0.5 WHERE id = 1")  # an output column
        assert conn.execute("SELECT count(*) FROM _webdedup_changes").fetchone()[0] == 0
        conn.execute("UPDATE pages SET content = 'changed text' WHERE id = 1")  # an input one
        assert conn.execute("SELECT count(*) FROM _webdedup_changes").fetchone()[0] == 1


WRITER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], timeout=30)
print("ready", flush=True)
for i in range(int(sys.argv[2])):
    with conn:
        conn.execute("INSERT INTO pages (url, content, crawled) VALUES (?, ?, '2024-06-01')",
                     (f"https://writer.example/{i}", f"page number {i} " * 60))
    time.sleep(0.002)
print("done", flush=True)
"""


def test_rows_updated_during_the_first_run_are_not_lost(tmp_path):
    # no trigger exists while the first run reads: an update made meanwhile by another
    # connection cannot be queued, so the next run is full and says why
    path = write_pages(tmp_path / "crawl.sqlite", [page(i, i, i) for i in range(12)])
    new_text = TEXTS[5] + " and a new closing paragraph about something else entirely"

    def crawler_writes(name: str) -> None:
        if name == "near":
            with sqlite3.connect(path) as other:
                other.execute("UPDATE pages SET content = ? WHERE id = 3", (new_text,))
            other.close()

    first = Deduplicator(on_phase=crawler_writes).run_on_db(path)
    assert first.mode == "full"
    messages: list[str] = []
    second = Deduplicator().run_on_db(path, on_message=messages.append)
    assert second.mode == "full" and "changed while the last run read it" in messages[0]
    assert annotations(path) == full_twin(path, tmp_path, "minhash")
    assert Deduplicator().run_on_db(path).mode == "incremental"  # and only once


@pytest.mark.parametrize("options", [{}, {"n_min": 10}], ids=["plain", "small-hosts-ignored"])
def test_pages_are_counted_from_the_state_with_rows_changed_during_the_run(tmp_path, options):
    # the count reads the groups rows and the queue, not the crawler's table: pages a crawler
    # deletes, adds and moves while a run reads (its groups rows resynced, its prepared rows
    # the run's view) are counted as they are, by the run after it and by stats meanwhile;
    # ignored pages (no group) count too
    path = write_pages(tmp_path / "crawl.sqlite", [page(i, i, i) for i in range(30)])
    assert Deduplicator(**options).run_on_db(path).ignored == (8 if options else 0)
    insert(path, [page(40, 3, 1)])

    def crawler_writes(name: str) -> None:
        if name == "near":
            with sqlite3.connect(path) as other:
                other.execute("DELETE FROM pages WHERE id IN (2, 31)")
                other.execute("UPDATE pages SET url = url || '/moved' WHERE id = 5")
                other.execute("INSERT INTO pages (url, content) VALUES ('https://n.example/', ?)",
                              (TEXTS[7],))
            other.close()

    during = Deduplicator(on_phase=crawler_writes, **options).run_on_db(path)
    assert during.mode == "incremental" and during.pages == 31  # its snapshot's pages
    with sqlite3.connect(path) as conn:
        assert pages_now(conn, "pages") == pages_in(path) == 30
        queued = conn.execute("SELECT count(*) FROM _webdedup_changes").fetchone()[0]
        assert queued >= 3  # (counted from the queue: nothing to count without it)
    assert Deduplicator(**options).run_on_db(path).pages == pages_in(path)
    assert annotations(path) == full_twin(path, tmp_path, "minhash", **options)


def test_a_first_run_alone_leaves_no_full_run_behind(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", [page(i, i, i) for i in range(12)])
    Deduplicator().run_on_db(path)
    assert Deduplicator().run_on_db(path).mode == "incremental"


def test_a_crawler_writing_during_the_run_loses_nothing(tmp_path):
    texts = [r["text"] for r in real_texts()[:300]]
    pages = [
        make_page(f"https://s{i % 40}.example/{i}", texts[i % len(texts)]) for i in range(3000)
    ]
    path = write_pages(tmp_path / "crawl.sqlite", pages)
    Deduplicator().run_on_db(path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE pages SET content = content || ' edited' WHERE id % 3 = 0")
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), "400"], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout.readline().strip() == "ready"
    result = Deduplicator(busy_timeout=30).run_on_db(path)  # no error on this side...
    assert writer.wait(timeout=120) == 0  # ...nor on the crawler's
    assert result.mode == "incremental"
    Deduplicator().run_on_db(path)  # the rows written during the run are picked up now
    rows = annotations(path)
    assert len(rows) == 3400
    assert all(v[3] is not None for v in rows.values())  # every page annotated, none lost
    assert annotations(path) == full_twin(path, tmp_path, "minhash")


CHILD = """
import sys, time
from webdedup import Deduplicator
def hook(name):
    print(name, flush=True)
    if name == sys.argv[2]:
        time.sleep(600)
Deduplicator(on_phase=hook).run_on_db(sys.argv[1])
"""


@pytest.mark.parametrize("phase", ["prepare", "region", "near", "write_back", "commit"])
def test_sigkill_in_any_phase_of_an_incremental_run(tmp_path, phase):
    path = write_pages(tmp_path / "crawl.sqlite", [page(i, i, i) for i in range(30)])
    Deduplicator().run_on_db(path)
    insert(path, [page(i, i + 3, i) for i in range(10)])
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM pages WHERE id IN (2, 5)")
    from conftest import dump

    before = dump(path)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), phase], stdout=subprocess.PIPE, text=True
    )
    for line in child.stdout:
        if line.strip() == phase:
            break
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert dump(path) == before  # pages and state as they were
    assert Deduplicator().run_on_db(path).mode == "incremental"
    assert annotations(path) == full_twin(path, tmp_path, "minhash")


@pytest.mark.parametrize("method", ["minhash", "simhash"])
def test_state_from_schema_7_gets_one_full_run(tmp_path, method):
    # schema 7 kept 37 band rows a page in _webdedup_bands, a minhash page's signature as its
    # sketch, and indexes on _webdedup_prepared(url_key, content_hash) where schema 8 has
    # lookup tables filled in key order: one full run (which also drops the band table)
    path = write_pages(tmp_path / "crawl.sqlite", [page(i, i % 4, 1) for i in range(8)])
    d = Deduplicator(method=method)
    d.run_on_db(path)
    with sqlite3.connect(path) as conn:  # as schema 7 left it
        conn.execute(
            "CREATE TABLE _webdedup_bands (band_key INTEGER NOT NULL, id INTEGER NOT NULL, "
            "PRIMARY KEY (band_key, id)) WITHOUT ROWID"
        )
        conn.execute("INSERT INTO _webdedup_bands SELECT 7, id FROM _webdedup_sketches")
        conn.execute("DROP TABLE _webdedup_url_keys")
        conn.execute("DROP TABLE _webdedup_content_hashes")
        conn.execute("CREATE INDEX _webdedup_prepared_url_key ON _webdedup_prepared(url_key)")
        conn.execute("UPDATE _webdedup_meta SET value = '7' WHERE key = 'schema_version'")
        if method == "minhash":  # a 128-value signature (16-byte header + 512 bytes)
            conn.execute(
                "UPDATE _webdedup_sketches SET scheme = 'minhash-v3:k=5:perm=128:seed=1', "
                "sketch = zeroblob(528)"
            )
    insert(path, [page(30, 1, 2)])
    messages: list[str] = []
    assert d.run_on_db(path, on_message=messages.append).mode == "full"
    assert "older webdedup (schema 7)" in messages[0]
    with sqlite3.connect(path) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        sizes = {r[0] for r in conn.execute("SELECT length(sketch) FROM _webdedup_sketches")}
        lookups = [
            conn.execute("SELECT * FROM _webdedup_url_keys ORDER BY 2").fetchall(),
            conn.execute("SELECT * FROM _webdedup_content_hashes ORDER BY 2").fetchall(),
        ]
        prepared = [
            conn.execute("SELECT url_key, id FROM _webdedup_prepared ORDER BY 2").fetchall(),
            conn.execute(
                "SELECT content_hash, id FROM _webdedup_prepared "
                "WHERE content_hash IS NOT NULL ORDER BY 2"
            ).fetchall(),
        ]
    assert not {"_webdedup_bands", "_webdedup_prepared_url_key"} & names
    assert sizes == {148 if method == "minhash" else 8}
    assert lookups == prepared and len(prepared[0]) == 9
    assert annotations(path) == full_twin(path, tmp_path, method)
    insert(path, [page(31, 2, 3)])
    assert d.run_on_db(path).mode == "incremental"
    assert annotations(path) == full_twin(path, tmp_path, method)


@pytest.mark.parametrize("method", ["simhash", "levenshtein"])
def test_schema_7_state_migrated_outside_a_run_still_grows_regions(tmp_path, method):
    # add_content_hash_column (like a verdict posted in the review app) migrates the state
    # without a run: schema 8's lookup tables must hold the stored rows, or the next nightly
    # run (incremental: nothing else changed for these methods) would miss URL/text links
    pages = [page(i, i % 4, 1) for i in range(8)]
    path = write_pages(tmp_path / "crawl.sqlite", pages)
    d = Deduplicator(method=method)
    d.run_on_db(path)
    with sqlite3.connect(path) as conn:  # as schema 7 left it
        conn.execute("DROP TABLE _webdedup_url_keys")
        conn.execute("DROP TABLE _webdedup_content_hashes")
        conn.execute("UPDATE _webdedup_meta SET value = '7' WHERE key = 'schema_version'")
    Deduplicator.add_content_hash_column(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM _webdedup_url_keys").fetchone()[0] == 8
    insert(path, [page(1, 2, 2), page(30, 1, 2)])  # a re-crawl of one URL, a copy of a text
    assert d.run_on_db(path).mode == "incremental"
    assert annotations(path) == full_twin(path, tmp_path, method)


@pytest.mark.parametrize("n_min", [0, 3])
def test_state_from_schema_11_stays_incremental_and_gets_its_host_lookup(tmp_path, n_min):
    # schema 12 looks a host's stored pages up in _webdedup_hosts (own content, n_min); a
    # state from before it has none: that run reads the prepared rows whole, the upgrade
    # fills the table from them, and the runs after it use the table
    d = Deduplicator(method="minhash", n_min=n_min)
    path = _older_state(tmp_path, d, 11, "DROP TABLE _webdedup_hosts")
    for new in ([page(0, 2, 2), page(30, 1, 2)], [page(5, 3, 3)]):  # a re-crawl, a copy
        insert(path, new)
        assert d.run_on_db(path).mode == "incremental"
        assert annotations(path) == full_twin(path, tmp_path, "minhash", n_min=n_min)
        with sqlite3.connect(path) as conn:
            hosts = conn.execute("SELECT host, id FROM _webdedup_hosts ORDER BY 1, 2").fetchall()
            prepared = conn.execute(
                "SELECT host, id FROM _webdedup_prepared WHERE host IS NOT NULL ORDER BY 1, 2"
            ).fetchall()
        assert hosts == prepared and {h for h, _ in hosts} == {"a.example", "b.example"}


def test_state_from_schema_12_stays_incremental_and_gets_its_scores(tmp_path):
    # schema 13 keeps dup_score in _webdedup_groups; an incremental run finds the groups rows
    # that change before its write, which migrates the table first: on an older state every
    # region row goes in, after the migration
    d = Deduplicator(method="minhash")
    path = _older_state(tmp_path, d, 12, "ALTER TABLE _webdedup_groups DROP COLUMN dup_score")
    for new in ([page(0, 2, 2), page(30, 1, 2)], [page(5, 3, 3)]):  # a re-crawl, a copy
        insert(path, new)
        assert d.run_on_db(path).mode == "incremental"
        assert annotations(path) == full_twin(path, tmp_path, "minhash")
        assert state(path) == state(tmp_path / "twin-minhash.sqlite")


def _older_state(tmp_path: Path, d: Deduplicator, version: int, undo: str) -> Path:
    """A crawl run once by ``d``, its state then made as schema ``version`` left it (``undo``:
    the statement that takes the newer schema's change away)."""
    path = write_pages(tmp_path / "crawl.sqlite", [page(i, i % 5, 1) for i in range(12)])
    d.run_on_db(path)
    with sqlite3.connect(path) as conn:
        conn.execute(undo)
        conn.execute("UPDATE _webdedup_meta SET value = ? WHERE key = 'schema_version'",
                     (str(version),))
    conn.close()
    return path


def test_an_incremental_run_caches_the_scores_it_computed(tmp_path):
    """The pairs a nightly run verifies go into the verification cache; the pairs it finds
    there are not verified again."""
    path = write_pages(tmp_path / "crawl.sqlite", [page(0, 0, 1), page(1, 4, 1)])
    Deduplicator().run_on_db(path)
    before = verified(path)
    insert(path, [page(3, 1, 2), page(4, 5, 2)])  # a cut copy of each old text, other URLs
    assert Deduplicator().run_on_db(path).mode == "incremental"
    with sqlite3.connect(path) as conn:
        hashes = dict(conn.execute("SELECT id, content_hash FROM _webdedup_prepared"))
    new = {tuple(sorted((hashes[1], hashes[3]))), tuple(sorted((hashes[2], hashes[4])))}
    assert {(a, b) for a, b, _ in verified(path) - before} == new
    # a full run on the final pages verifies no pair this cache lacks, with the same scores
    full_twin(path, tmp_path, "minhash")
    assert verified(tmp_path / "twin-minhash.sqlite") <= verified(path)
    # a later run that meets a cached pair again takes its score from the cache (marked 0.97
    # here, so that it shows) and does not store it again
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE _webdedup_verified SET score = 0.97 WHERE hash_a = ? AND hash_b = ?",
            sorted((hashes[1], hashes[3])),
        )
    cache = verified(path)
    insert(path, [page(5, 1, 3)])  # page 3's text again: its group joins the region
    assert Deduplicator().run_on_db(path).mode == "incremental"
    with sqlite3.connect(path) as conn:
        (score,) = conn.execute("SELECT dup_score FROM pages WHERE id = 1").fetchone()
    assert score == 0.97
    assert verified(path) == cache


def test_a_pair_of_own_texts_is_cached_by_its_own_texts_until_they_change(tmp_path):
    """Pages compared by their own texts (their host's navigation cut away) are cached by the
    own texts' keys: a nightly run that meets the pair again takes its score from the cache;
    once the host repeats a line of theirs, their own texts change and the pair is verified
    again."""
    nav = "Example News\nHome\nWorld\nSport\nContact us"

    def lines(words: list[str]) -> str:  # paragraphs of 50 words
        return "\n".join(" ".join(words[k : k + 50]) for k in range(0, len(words), 50))

    bodies = [t["text"].split()[:200] for t in real_texts(limit=7)]
    twin = list(bodies[0])
    twin[20:23] = ["quite", "another", "phrase"]  # a near-duplicate of bodies[0] (1st line)
    texts = [lines(b) for b in (bodies[0], twin, *bodies[1:4])]
    path = write_pages(tmp_path / "crawl.sqlite", [
        make_page(f"https://a.example/{i}", f"{nav}\n{text}") for i, text in enumerate(texts)
    ])
    Deduplicator().run_on_db(path)

    def own_rows() -> list[tuple]:
        with sqlite3.connect(path) as conn:
            return conn.execute(
                "SELECT hash_a, hash_b, score FROM _webdedup_verified "
                "WHERE hash_a LIKE 'o%' AND hash_b LIKE 'o%' ORDER BY 1, 2"
            ).fetchall()

    def score_of_2() -> float:
        with sqlite3.connect(path) as conn:
            return float(conn.execute("SELECT dup_score FROM pages WHERE id = 2").fetchone()[0])

    (pair,) = own_rows()  # the near-duplicates, by their own texts' keys
    assert pair[2] >= 0.8 and score_of_2() == pair[2]
    with sqlite3.connect(path) as conn:  # marked, so that a score from the cache shows
        conn.execute("UPDATE _webdedup_verified SET score = 0.97 WHERE hash_a = ? AND hash_b = ?",
                     pair[:2])
    # a new page of the host: every page of it joins the region, the pair is a candidate again
    insert(path, [make_page("https://a.example/new", f"{nav}\n{lines(bodies[4])}")])
    assert Deduplicator().run_on_db(path).mode == "incremental"
    assert score_of_2() == 0.97 and own_rows() == [(*pair[:2], 0.97)]
    # now two more pages of the host quote the pair's last paragraph: both own texts lose it,
    # and the pair is verified again, by its new own texts
    last = texts[0].split("\n")[-1]
    insert(path, [make_page(f"https://a.example/quote{k}", f"{nav}\n{lines(bodies[k])}\n{last}")
                  for k in (5, 6)])
    assert Deduplicator().run_on_db(path).mode == "incremental"
    rows = own_rows()
    assert len(rows) == 2 and (*pair[:2], 0.97) in rows
    (again,) = [r for r in rows if r[:2] != pair[:2]]
    assert 0.8 <= again[2] < pair[2] and score_of_2() == again[2]
    assert annotations(path) == full_twin(path, tmp_path, "minhash")


def upsert(conn: sqlite3.Connection, p: dict, verb: str = "INSERT OR REPLACE") -> None:
    conn.execute(
        f"{verb} INTO pages (url, content, crawled) VALUES (?, ?, ?)",
        (p["url"], p["content"], p.get("crawled")),
    )


_upsert_op = st.one_of(
    st.tuples(st.just("upsert"), st.lists(_page, min_size=1, max_size=6)),
    st.tuples(st.just("insert_ignore"), _page),
    st.tuples(st.just("update_replace"), st.integers(0, 1000), _page),
    st.tuples(st.just("delete"), st.integers(0, 1000)),
    # a page moved to another id: an existing one (UPDATE OR REPLACE deletes that row) or new
    st.tuples(st.just("move"), st.integers(0, 1000), st.integers(0, 1000)),
)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=st.lists(_page, min_size=1, max_size=10), ops=st.lists(_upsert_op, min_size=1,
                                                                     max_size=5))
def test_a_crawler_upserting_by_a_unique_url_leaves_no_ghost_pages(tmp_path_factory, first, ops):
    """A crawler's upsert (``INSERT OR REPLACE`` on a UNIQUE url) deletes the old row without
    firing a delete trigger: the incremental runs must still equal one full run (before,
    the deleted page stayed in the state and stayed a canonical of the pages it had won)."""
    tmp = tmp_path_factory.mktemp("upsert")
    path = write_pages(tmp / "crawl.sqlite", [])
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE UNIQUE INDEX pages_url ON pages (url)")
        for p in first:
            upsert(conn, page(*p))
    d = Deduplicator(method="minhash")
    assert d.run_on_db(path).mode == "full"
    for op in ops:
        with sqlite3.connect(path) as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM pages ORDER BY id")]
            if op[0] == "upsert":
                for p in op[1]:
                    upsert(conn, page(*p))
            elif op[0] == "insert_ignore":
                upsert(conn, page(*op[1]), "INSERT OR IGNORE")
            elif op[0] == "update_replace" and ids:
                p = page(*op[2])
                conn.execute(
                    "UPDATE OR REPLACE pages SET url = ?, content = ? WHERE id = ?",
                    (p["url"], p["content"], ids[op[1] % len(ids)]),
                )
            elif op[0] == "delete" and ids:
                conn.execute("DELETE FROM pages WHERE id = ?", (ids[op[1] % len(ids)],))
            elif op[0] == "move" and ids:
                to = op[2] % (len(ids) + 2)  # an id held, or one past the last
                target = ids[to] if to < len(ids) else ids[-1] + to - len(ids) + 1
                conn.execute(
                    "UPDATE OR REPLACE pages SET id = ? WHERE id = ?",
                    (target, ids[op[1] % len(ids)]),
                )
        result = d.run_on_db(path)
        assert result.mode == "incremental"
        assert result.pages == pages_in(path)  # REPLACE's deletes counted too
    assert annotations(path) == full_twin(path, tmp, "minhash")
    assert state(path) == state(tmp / "twin-minhash.sqlite")


def test_a_unique_key_added_after_the_triggers_makes_one_full_run(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", [page(i, i, 1) for i in range(8)])
    d = Deduplicator(method="minhash")
    d.run_on_db(path)
    assert d.run_on_db(path).mode == "incremental"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE UNIQUE INDEX pages_url ON pages (url)")
    said: list[str] = []
    assert d.run_on_db(path, on_message=said.append).mode == "full"
    assert any("triggers" in line for line in said)
    assert d.run_on_db(path).mode == "incremental"
