"""A large write in batches (``Config.write_lock``): the same database as one transaction, a
crawler waits for one batch at most, a run killed between batches leaves the next run a full
one, and two runs never interleave their writes.

``write_lock=1e-9`` makes every write "large", so small corpora take the batched path with
batches of the smallest size (``MIN_BATCH`` rows).
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from conftest import annotations, make_page, real_texts, write_pages

from webdedup import Deduplicator
from webdedup.config import Config
from webdedup.errors import ConcurrentRun, ConfigError
from webdedup.incremental.plan import MISSED
from webdedup.pipeline.phase5_write_back import GENERATION, INTERRUPTED, SEGMENT_STATE, STATE
from webdedup.store.sketch_blocks import VALID_FROM

TINY = 1e-9  # every write is larger than this: batched, smallest batches


def crawl(n: int = 60) -> list[dict]:
    """Real texts with near-duplicates (edited, truncated), exact and URL copies."""
    pages = []
    for i, rec in enumerate(real_texts()[:n]):
        words = rec["text"].split()
        url = f"https://site{i % 5}.example.org/a/{i}"
        pages.append(make_page(url, rec["text"]))
        if i % 2 == 0:  # a near-duplicate: a few words changed, on another host
            edited = [w + "s" if k % 40 == 7 else w for k, w in enumerate(words)]
            pages.append(make_page(f"https://mirror{i % 3}.example.net/{i}", " ".join(edited)))
        if i % 3 == 0:  # a truncated copy
            cut = " ".join(words[: int(len(words) * 0.85)])
            pages.append(make_page(f"https://syndic.example.com/story/{i}", cut))
        if i % 4 == 0:  # the same URL again, http and www
            pages.append(make_page(url.replace("https://", "http://www."), rec["text"]))
    return pages


def state(path) -> dict[str, list]:
    """Every state table, the queue, and the meta values a run decides with."""
    conn = sqlite3.connect(path)
    out = {
        c.main: sorted(conn.execute(f"SELECT * FROM {c.main}").fetchall(), key=repr)
        for c in STATE + SEGMENT_STATE
    }
    out["changes"] = conn.execute("SELECT id, op FROM _webdedup_changes ORDER BY id").fetchall()
    out["meta"] = conn.execute(  # (write generations: a batched write claims more of them)
        "SELECT key, value FROM _webdedup_meta WHERE key NOT IN (?, ?, 'config') ORDER BY key",
        (GENERATION, VALID_FROM),
    ).fetchall()
    out["triggers"] = conn.execute(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name"
    ).fetchall()
    conn.close()
    return out


def change(path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE pages SET content = content || ' updated' WHERE id % 7 = 0")
    conn.execute("INSERT INTO pages (url, content) SELECT url || '?p=2', content FROM pages "
                 "WHERE id % 11 = 0")
    conn.execute("DELETE FROM pages WHERE id % 13 = 0")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("method", ["minhash", "levenshtein", "segments"])
def test_batched_write_equals_one_transaction(tmp_path, method):
    batched = write_pages(tmp_path / "batched.sqlite", crawl())
    single = tmp_path / "single.sqlite"
    shutil.copy(batched, single)
    for step in ("first", "incremental", "full"):
        if step == "incremental":
            change(batched)
            change(single)
        full = step == "full"
        options = {"method": method}
        if method == "segments":  # minhash, with the repeated segments counted and stripped
            options = {"count_segments": True, "strip_segments": True, "segment_min_pages": 2}
        a = Deduplicator(write_lock=TINY, **options).run_on_db(batched, full=full)
        b = Deduplicator(write_lock=0, **options).run_on_db(single, full=full)
        assert a.mode == b.mode == ("incremental" if step == "incremental" else "full")
        assert b.phases["write_back"]["transactions"] == 1
        assert a.phases["write_back"]["transactions"] > 3, a.phases["write_back"]
        assert a.phases["write_back"]["written"] == b.phases["write_back"]["written"]
        assert annotations(batched) == annotations(single)
        assert state(batched) == state(single)
        assert 0 < a.timings["write_lock"] < a.timings["write_lock_total"]
    assert a.edges > 0 and a.near_duplicates > 0  # the corpus has something to write
    if method == "segments":
        assert state(batched)["_webdedup_page_segments"]


def test_phase_5_is_one_entry_that_owns_its_batches_and_lock_timing(tmp_path):
    """One ``run(ctx)``: it readies, batches and times its own transactions; the run context
    carries none of its state (the write generation, the batching, missed changes)."""
    import dataclasses
    import inspect

    from webdedup.pipeline import phase5_write_back
    from webdedup.pipeline.context import RunContext

    entries = sorted(
        name for name, f in vars(phase5_write_back).items()
        if inspect.isfunction(f) and f.__module__ == phase5_write_back.__name__
        and not name.startswith("_")
    )
    assert entries == ["run", "write_back_sql"]
    fields = {f.name for f in dataclasses.fields(RunContext)}
    assert not fields & {"generation", "batched_write", "missed_changes"}
    path = write_pages(tmp_path / "crawl.sqlite", crawl(20))
    result = Deduplicator(write_lock=TINY).run_on_db(path)
    assert result.phases["write_back"]["transactions"] > 3
    assert 0 < result.timings["write_lock"] < result.timings["write_lock_total"]
    # which step held the lock longest: each step's longest hold, the longest of all among them
    by_step = {k.partition(".")[2]: v for k, v in result.timings.items()
               if k.startswith("write_lock.")}
    assert {"begin", "triggers", "_webdedup_prepared", "annotations", "last"} <= set(by_step)
    assert max(by_step.values()) == result.timings["write_lock"]
    assert sum(by_step.values()) <= result.timings["write_lock_total"] + 1e-3
    path.unlink()
    add = write_pages(tmp_path / "crawl.sqlite", crawl(20))
    Deduplicator(write_lock=TINY).run_on_db(add)
    conn = sqlite3.connect(add)
    conn.executemany("INSERT INTO pages (url, content) VALUES (?, ?)",
                     [(f"https://n.example/{i}", f"a new page {i} " * 40) for i in range(200)])
    conn.commit()
    conn.close()
    nightly = Deduplicator(write_lock=TINY).run_on_db(add)
    assert nightly.mode == "incremental" and nightly.phases["write_back"]["transactions"] > 1
    steps = {k.partition(".")[2] for k in nightly.timings if k.startswith("write_lock.")}
    assert {"_webdedup_prepared", "_webdedup_sketches", "annotations", "last"} <= steps


def test_a_small_write_stays_one_transaction(tmp_path):
    path = write_pages(tmp_path / "crawl.sqlite", crawl(20))
    result = Deduplicator().run_on_db(path)  # write_lock = 1 s: a few hundred KB fit
    assert result.phases["write_back"]["transactions"] == 1
    assert result.timings["write_lock"] == result.timings["write_lock_total"]


def test_write_lock_is_validated(tmp_path):
    for bad in (-1, float("nan"), "1s", 10**9):
        with pytest.raises(ConfigError, match="write_lock"):
            Config(write_lock=bad)
    config = tmp_path / "webdedup.toml"
    config.write_text("write_lock = 0.25\n")
    assert Config.from_toml(config).write_lock == 0.25


@pytest.mark.parametrize("first", [True, False])
def test_a_crawler_writes_between_the_batches(tmp_path, first):
    """While the run waits between two batches a crawler's insert commits at once (it would
    wait for the whole write with one transaction); the next run picks the new page up, as
    an incremental run: a batched full run installs its triggers before its batches, also
    on the first run."""
    path = write_pages(tmp_path / "crawl.sqlite", crawl(30))
    text = real_texts()[200]["text"]
    seen = []

    def crawler(name: str) -> None:
        if name == "write_batch" and seen.count(name) == 5:
            conn = sqlite3.connect(path, timeout=0)  # no waiting: the lock must be free
            conn.execute("INSERT INTO pages (url, content) VALUES (?, ?)",
                         ("https://new.example.org/late", text))
            conn.commit()
            conn.close()
        seen.append(name)

    if not first:
        Deduplicator(config=Config()).run_on_db(path)
    result = Deduplicator(config=Config(write_lock=TINY), on_phase=crawler).run_on_db(
        path, full=True
    )
    assert result.mode == "full" and seen.count("write_batch") > 5
    conn = sqlite3.connect(path)
    late = conn.execute("SELECT id, dup_group FROM pages WHERE url LIKE '%/late'").fetchone()
    assert late[1] is None  # inserted after the run's snapshot: not annotated by it...
    conn.close()
    second = Deduplicator(config=Config()).run_on_db(path)
    assert second.mode == "incremental" and second.processed >= 1  # ...but queued for the next
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT dup_group FROM pages WHERE id = ?", (late[0],)).fetchone()[0]
    conn.close()


CHILD = """
import os, signal, sys
from webdedup import Deduplicator
from webdedup.config import Config
seen = []
def hook(name):
    seen.append(name)
    if name == "write_batch" and seen.count(name) == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)
full = sys.argv[3] == "full"
Deduplicator(config=Config(write_lock=1e-9), on_phase=hook).run_on_db(sys.argv[1], full=full)
"""


@pytest.mark.parametrize(
    ("mode", "batch"), [("full", 1), ("full", 7), ("full", 20), ("incremental", 1)]
)
def test_a_run_killed_between_batches_leaves_a_full_run_next(tmp_path, mode, batch):
    path = write_pages(tmp_path / "crawl.sqlite", crawl(40))
    twin = tmp_path / "twin.sqlite"
    Deduplicator().run_on_db(path)  # an earlier run: old annotations and state to mix
    change(path)
    shutil.copy(path, twin)
    conn = sqlite3.connect(path)
    crawler_columns = conn.execute("SELECT id, url, content FROM pages ORDER BY id").fetchall()
    conn.close()
    # killed before its batch number `batch` (a full run replaces the state batch by batch)
    child = subprocess.run([sys.executable, "-c", CHILD, str(path), str(batch), mode])
    assert child.returncode == -signal.SIGKILL
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert conn.execute("SELECT id, url, content FROM pages ORDER BY id").fetchall() == (
        crawler_columns
    )
    assert conn.execute("SELECT value FROM _webdedup_meta WHERE key = ?", (MISSED,)).fetchone() == (
        INTERRUPTED,
    )
    conn.close()
    again = Deduplicator().run_on_db(path)
    assert again.mode == "full"
    Deduplicator().run_on_db(twin, full=True)
    assert annotations(path) == annotations(twin)
    assert state(path) == state(twin)


def test_two_runs_never_interleave_their_writes(tmp_path):
    """A run that finds, between two of its batches, that another run wrote stops (exit 4's
    error) and writes nothing more: the other run (full, since the first had marked the
    state as being rewritten) left the database whole."""
    path = write_pages(tmp_path / "crawl.sqlite", crawl(30))
    twin = tmp_path / "twin.sqlite"
    shutil.copy(path, twin)
    other: list[object] = []

    def meanwhile(name: str) -> None:
        if name == "write_batch" and not other:  # another run, start to end, right now
            other.append(Deduplicator().run_on_db(path))

    with pytest.raises(ConcurrentRun, match="another webdedup run wrote"):
        Deduplicator(config=Config(write_lock=TINY), on_phase=meanwhile).run_on_db(path)
    assert ConcurrentRun.exit_code == 4
    assert other[0].mode == "full"  # type: ignore[attr-defined]
    nxt = Deduplicator().run_on_db(path)
    assert nxt.mode == "incremental" and nxt.processed == 0
    Deduplicator().run_on_db(twin)
    assert annotations(path) == annotations(twin)
    assert state(path) == state(twin)


def test_a_run_that_computed_while_another_wrote_refuses_to_write(tmp_path):
    """Two runs read the same state; the second to write finds the first's and stops,
    even with one transaction each."""
    path = write_pages(tmp_path / "crawl.sqlite", crawl(20))
    Deduplicator().run_on_db(path)
    change(path)
    done = threading.Event()

    def at(name: str) -> None:
        if name == "write_back" and not done.is_set():
            done.set()
            Deduplicator().run_on_db(path)  # another run writes first

    with pytest.raises(ConcurrentRun):
        Deduplicator(on_phase=at).run_on_db(path)
    again = Deduplicator().run_on_db(path)  # the database is whole: nothing left to do
    assert again.mode == "incremental" and again.processed == 0


@pytest.mark.parametrize("write_lock", [0, TINY])
def test_the_smallest_and_largest_rowids_are_annotated(tmp_path, write_lock):
    """SQLite allows rowids from -2**63 to 2**63 - 1: the batches' bounds include both."""
    path = tmp_path / "crawl.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
    texts = [t["text"] for t in real_texts()[:40]]
    ids = [-(2**63), -5, *range(1, 37), 2**63 - 1]
    conn.executemany(
        "INSERT INTO pages VALUES (?, ?, ?)",
        [(i, f"https://x.example/{k}", texts[k % 30]) for k, i in enumerate(ids)],
    )
    conn.commit()
    Deduplicator(write_lock=write_lock).run_on_db(path)
    rows = dict(conn.execute("SELECT id, dup_group FROM pages"))
    assert all(rows[i] is not None for i in ids), rows
    conn.close()


@pytest.mark.parametrize("analyzed", [False, True])
def test_the_write_back_walks_the_rows_it_writes_not_the_table(tmp_path, analyzed):
    """A nightly run writes a few thousand rows of a table of millions: the UPDATE must walk
    ``temp.run_write`` and seek each row of ``pages``. Written ``pages.rowid = w.id``, SQLite
    carried the batch's id range over to ``pages`` and scanned the whole table under it
    (3 GB at a million pages) when ``pages`` had statistics and the TEMP table had none."""
    from webdedup.pipeline.phase5_write_back import write_back_sql
    from webdedup.store.layout import Layout

    pages = [make_page(f"https://a.example/{i}") for i in range(50)]
    db = write_pages(tmp_path / "c.sqlite", pages)
    conn = sqlite3.connect(db)
    for column in ("canonical_url", "content_hash", "exact_group_size", "dup_group"):
        conn.execute(f"ALTER TABLE pages ADD COLUMN {column}")
    for column in ("dup_group_size", "canonical_id", "is_canonical", "dup_kind", "dup_score"):
        conn.execute(f"ALTER TABLE pages ADD COLUMN {column}")
    if analyzed:
        conn.execute("ANALYZE main")
    conn.execute(
        "CREATE TEMP TABLE run_write (id INTEGER PRIMARY KEY, url, canonical_url, content_hash,"
        " exact_group_size, dup_group, dup_group_size, canonical_id, is_canonical, dup_kind,"
        " dup_score)"
    )
    statement = write_back_sql(Layout("pages", "url"))
    plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + statement, {"lo": 1, "hi": 9})]
    conn.close()
    assert plan[0].startswith("SEARCH w USING INTEGER PRIMARY KEY"), plan
    assert plan[1] == "SEARCH pages USING INTEGER PRIMARY KEY (rowid=?)", plan


def wal_watch(path: Path, wal: dict[str, int], name: str) -> Callable[[str], None]:
    """An ``on_phase`` that keeps in ``wal[name]`` the largest size of ``path``'s WAL
    between two batches (``stat``: no descriptor of the file is opened)."""

    def between(phase: str) -> None:
        if phase == "write_batch":
            wal[name] = max(wal.get(name, 0), Path(f"{path}-wal").stat().st_size)

    return between


def test_a_batched_write_checkpoints_between_batches_so_the_wal_stays_small(
    tmp_path, monkeypatch, checkpoints_made
):
    """The run turns SQLite's automatic checkpoints off; a batched write copies the WAL back
    as it goes (passive checkpoints, in a thread of their own, on a connection of their
    own), so the WAL restarts instead of growing to the size of every rewritten row, and
    the results are the same."""
    from webdedup.pipeline import phase5_write_back

    pages = crawl(60)
    paths: dict[str, Path] = {}
    wal: dict[str, int] = {}
    made = checkpoints_made
    monkeypatch.setattr(phase5_write_back, "CHECKPOINT_AFTER", 0.0)  # caught up each batch
    for name, on in (("never", False), ("every batch", True)):
        monkeypatch.setattr(phase5_write_back, "CHECKPOINTS", on)
        paths[name] = write_pages(tmp_path / f"{name}.sqlite", pages)
        between = wal_watch(paths[name], wal, name)
        result = Deduplicator(write_lock=TINY, on_phase=between).run_on_db(paths[name])
        assert result.phases["write_back"]["transactions"] > 10
    assert wal["every batch"] * 3 < wal["never"], wal
    assert len(made) == 1 and made[0] > 1, made  # checkpoints while the batches went on
    assert annotations(paths["every batch"]) == annotations(paths["never"])
    assert state(paths["every batch"]) == state(paths["never"])


def test_once_its_room_is_written_a_batched_write_keeps_within_the_wal_file(
    tmp_path, monkeypatch, checkpoints_made
):
    """Writing past the end of the WAL file costs the kernel several times what writing
    over frames already in it does (at a million pages such commits were the write's
    longest holds of the lock): once ``WAL_ROOM`` bytes are written since the last
    catch-up, the write catches up before a batch that could write past the file's end, so
    the file stays about the room's size (plus a batch) — and catches up about once a room,
    not after every batch. With no such rule the WAL grows with the rows rewritten. (No
    catch-ups by time and no checkpoints asked for beside the write, in either: only the
    rule's catch-ups start the WAL over.)"""
    from webdedup.pipeline import phase5_write_back

    if phase5_write_back._ThreadWrites.here() is None:
        pytest.skip("no count of a thread's writes on this system (/proc/thread-self/io)")
    pages = crawl(60)
    room = 64 * 1024
    monkeypatch.setattr(phase5_write_back, "CHECKPOINT_AFTER", float("inf"))
    monkeypatch.setattr(phase5_write_back, "BESIDE_CHECKPOINTS", 1e-300)  # never beside
    paths: dict[str, Path] = {}
    wal: dict[str, int] = {}
    batches: dict[str, int] = {}
    for name, size in (("no room rule", 2**62), ("room", room)):
        monkeypatch.setattr(phase5_write_back, "WAL_ROOM", size)
        paths[name] = write_pages(tmp_path / f"{name}.sqlite", pages)
        between = wal_watch(paths[name], wal, name)
        result = Deduplicator(write_lock=TINY, on_phase=between).run_on_db(paths[name])
        batches[name] = result.phases["write_back"]["transactions"]
    assert batches["room"] > 10
    assert wal["no room rule"] > 8 * room, wal  # (else the test shows nothing)
    assert wal["room"] < 3 * room, wal
    made = dict(zip(["no room rule", "room"], checkpoints_made, strict=True))
    assert made["no room rule"] == 0  # (the last one is the run's own, after the batches)
    # about one a room's worth of WAL (the whole write is about wal["no room rule"])
    assert 2 <= made["room"] <= 2 * wal["no room rule"] // room < batches["room"], made
    assert annotations(paths["room"]) == annotations(paths["no room rule"])
    assert state(paths["room"]) == state(paths["no room rule"])


def test_the_room_rule_asks_whether_the_next_batch_could_pass_the_wal_file_s_end(tmp_path):
    """Before ``WAL_ROOM`` bytes since the last catch-up: never. After: when the bytes
    since, plus twice the most a recent batch wrote, pass the file's size; never without a
    meter or a file to measure."""
    from collections import deque
    from types import SimpleNamespace

    from webdedup.pipeline.phase5_write_back import WAL_ROOM, _Spacer

    wal = tmp_path / "crawl.sqlite-wal"  # (a file of our own, of a known size)
    with open(wal, "wb") as f:
        f.truncate(WAL_ROOM + 1000)

    def asks(since: int, recent: list[int], meter: object = object(), path: Path = wal) -> bool:
        spacer = SimpleNamespace(writes=meter, since_catch_up=since, wal_path=str(path),
                                 batch_bytes=deque(recent))
        return _Spacer._next_batch_could_grow_the_wal(spacer)  # type: ignore[arg-type]

    assert not asks(WAL_ROOM - 1, [10_000])  # not yet a room's worth
    assert not asks(WAL_ROOM, [200, 500])  # 1,000 bytes at most: within the file
    assert asks(WAL_ROOM, [200, 501])  # 1,002: past its end
    assert asks(WAL_ROOM + 1000, [1])
    assert not asks(WAL_ROOM, [10_000], meter=None)
    assert not asks(WAL_ROOM, [10_000], path=tmp_path / "none-wal")


def test_a_thread_s_writes_are_counted_as_its_own(tmp_path):
    """The meter the room rule reads counts the bytes the calling thread wrote, not
    another thread's (the checkpoints beside the write are another thread's)."""
    from webdedup.pipeline.phase5_write_back import _ThreadWrites

    meter = _ThreadWrites.here()
    if meter is None:
        pytest.skip("no count of a thread's writes on this system (/proc/thread-self/io)")
    with open(tmp_path / "scratch", "wb", buffering=0) as f:
        before = meter.bytes()
        f.write(b"x" * 10_000)
        mine = meter.bytes() - before
        other = threading.Thread(target=lambda: f.write(b"y" * 50_000))
        before = meter.bytes()
        other.start()
        other.join()
        theirs = meter.bytes() - before
    assert mine >= 10_000 and theirs < 10_000, (mine, theirs)


def test_a_failed_checkpoint_stops_the_run_with_its_error(tmp_path, monkeypatch):
    """A checkpoint that fails in its thread (here: its connection cannot open the file) is
    not lost: the run stops with it once the batches are written, and the next run is full
    (the stored state is marked as being rewritten)."""
    from webdedup.errors import WebdedupError
    from webdedup.pipeline import phase5_write_back

    path = write_pages(tmp_path / "crawl.sqlite", crawl(30))
    gone = tmp_path / "no such folder" / "crawl.sqlite"
    monkeypatch.setattr(phase5_write_back, "_main_file", lambda conn: str(gone))
    with pytest.raises(WebdedupError, match="no such folder"):
        Deduplicator(write_lock=TINY).run_on_db(path)
    monkeypatch.undo()
    assert Deduplicator().run_on_db(path).mode == "full"


def test_no_checkpoint_on_a_connection_the_caller_passed_in(tmp_path, monkeypatch):
    """The run checkpoints between batches only on a connection it opened: a caller's own
    connection (its checkpoints off, even) is left to the caller's policy."""
    from webdedup.pipeline import phase5_write_back

    made: list[str] = []
    monkeypatch.setattr(phase5_write_back, "_Checkpointer", lambda *a: made.append("one"))
    path = write_pages(tmp_path / "crawl.sqlite", crawl(30))
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = wal")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    said: list[str] = []
    conn.set_trace_callback(said.append)
    result = Deduplicator(write_lock=TINY).run_on_db(conn)
    conn.set_trace_callback(None)
    conn.close()
    assert result.phases["write_back"]["transactions"] > 10
    assert not [s for s in said if "wal_checkpoint" in s.lower()]
    assert not made  # nor on a connection of its own


def _todo(rows: int):
    """A TEMP table of ``rows`` ids to walk in batches, its connection, a run context with a
    ``write_lock`` of 1 s and a writer: what ``_batches`` takes, without a database."""
    from types import SimpleNamespace

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TEMP TABLE todo (id INTEGER PRIMARY KEY)")
    conn.executemany("INSERT INTO temp.todo VALUES (?)", ((i,) for i in range(rows)))
    ctx = SimpleNamespace(conn=conn, config=Config(write_lock=1.0), on_phase=None,
                          total_pages=rows)
    return conn, ctx, SimpleNamespace(ctx=ctx, generation=None)


def test_a_fast_batch_does_not_size_the_next_past_the_slow_ones(monkeypatch):
    """Batches are sized from the slowest time a row of the last few: one fast batch (the
    WAL just checkpointed) does not double the next into a slow stretch. A clock of our own
    makes it exact: each batch "takes" its rows times a cost that drops to half every
    seventh batch."""
    from contextlib import contextmanager

    from webdedup.pipeline import phase5_write_back as wb

    conn, ctx, writer = _todo(400_000)
    held: list[float] = []
    cost = 1e-4  # seconds a row

    class Spacer:
        batch: list[int] = []  # the rows of the transaction's pieces

        @contextmanager
        def transaction(self, step):
            took = wb._Took()
            yield took
            rows = sum(self.batch)
            self.batch.clear()
            fast = len(held) % 7 == 6
            took.seconds = rows * cost * (0.5 if fast else 1.0)
            held.append(took.seconds)

    spacer = Spacer()
    monkeypatch.setattr(wb, "_row_bytes", lambda ctx: 3_000.0)  # bytes a page row

    def write(condition, params):
        spacer.batch.append(conn.execute(
            "SELECT count(*) FROM temp.todo WHERE id BETWEEN :lo AND :hi", params
        ).fetchone()[0])

    wb._batches(writer, "todo", ("id",), spacer, write, step="annotations")
    assert len(held) > 20
    aim = wb.BATCH_AIM * ctx.config.write_lock
    assert max(held) <= 1.05 * aim, max(held)


def test_a_batch_ends_early_when_the_disk_slows_down_under_it(monkeypatch):
    """A batch is sized from the ones before it; when writing gets ten times slower in the
    middle of one, it stops after the piece that showed it (the rest goes to the next
    batch), so the lock is held about ``write_lock`` at most, not ten times the aim; and
    every row is written once. A clock of our own: each piece "takes" its rows times a cost
    that grows tenfold once 30,000 rows are written (and again at 200,000)."""
    from contextlib import contextmanager

    from webdedup.pipeline import phase5_write_back as wb

    conn, ctx, writer = _todo(400_000)
    now = [0.0]
    written: list[int] = []
    held: list[float] = []
    monkeypatch.setattr(wb, "_clock", lambda: now[0])
    monkeypatch.setattr(wb, "_row_bytes", lambda ctx: 3_000.0)

    class Spacer:
        @contextmanager
        def transaction(self, step):
            took, start = wb._Took(), now[0]
            yield took
            took.seconds = now[0] - start
            held.append(took.seconds)

    def write(condition, params):
        ids = [r[0] for r in conn.execute(
            "SELECT id FROM temp.todo WHERE id BETWEEN :lo AND :hi", params)]
        cost = 1e-5 * (10 if len(written) >= 30_000 else 1) * (10 if len(written) >= 200_000
                                                               else 1)
        now[0] += len(ids) * cost
        written.extend(ids)

    wb._batches(writer, "todo", ("id",), Spacer(), write, step="annotations")
    assert written == list(range(400_000))
    assert max(held) <= 1.3 * ctx.config.write_lock, max(held)
    # the batches after a slow one are sized from its slow pieces (shrinking at most
    # fourfold a batch): shorter at once, and about the aim again by the second
    aim = wb.BATCH_AIM * ctx.config.write_lock
    slow = [i for i, h in enumerate(held[:-2]) if h > 1.05 * aim]
    assert slow and all(held[i + 1] < held[i] for i in slow), held
    assert all(held[i + 2] <= 1.05 * aim for i in slow if i + 1 not in slow), held


def test_a_batch_is_warmed_whole_before_its_pieces(monkeypatch):
    """``warm`` gets the whole batch's ``:lo`` and ``:hi`` (from its first piece's to its
    last's), once a batch, before its transaction. A clock of our own: a row "takes" 10 us,
    so the batches grow and none ends early."""
    from contextlib import contextmanager

    from webdedup.pipeline import phase5_write_back as wb

    conn, ctx, writer = _todo(100_000)
    now = [0.0]
    events: list[tuple] = []
    monkeypatch.setattr(wb, "_clock", lambda: now[0])
    monkeypatch.setattr(wb, "_row_bytes", lambda ctx: 3_000.0)

    class Spacer:
        @contextmanager
        def transaction(self, step):
            took, start = wb._Took(), now[0]
            events.append(("begin",))
            yield took
            took.seconds = now[0] - start
            events.append(("end",))

    def write(condition, params):
        (rows,) = conn.execute("SELECT count(*) FROM temp.todo WHERE id BETWEEN :lo AND :hi",
                               params).fetchone()
        now[0] += rows * 1e-5
        events.append(("write", params["lo"], params["hi"]))

    wb._batches(writer, "todo", ("id",), Spacer(), write, step="annotations",
                warm=lambda params: events.append(("warm", params["lo"], params["hi"])))
    batches = []  # (the warmed range, the pieces' ranges)
    for kind, *bounds in events:
        if kind == "warm":
            batches.append((tuple(bounds), []))
        elif kind == "write":
            batches[-1][1].append(tuple(bounds))
    assert len(batches) == sum(kind == "begin" for kind, *_ in events) > 2
    assert all(len(pieces) == wb.PIECES for _, pieces in batches[:-1]), batches
    for (lo, hi), pieces in batches:
        assert (lo, hi) == (pieces[0][0], pieces[-1][1]), (lo, hi, pieces)


@pytest.mark.parametrize("nightly", [False, True])
def test_each_batch_of_annotations_is_read_before_it_takes_the_lock(tmp_path, monkeypatch,
                                                                     nightly):
    """The rows a batch of annotations rewrites are read first, outside any transaction
    (``sql/write_warm.sql``): at ten million pages they were read from the disk under the
    lock. One read a batch, before its transaction, of the batch's rows of
    ``temp.run_write`` and no others (a nightly run's rows are scattered: a range of rowids
    would read the table between them), searched by rowid."""
    from webdedup.pipeline import phase5_write_back as wb
    from webdedup.store.layout import Layout

    warmed: list[tuple[bool, int, int, int]] = []  # (in a transaction, lo, hi, rows read)
    ranges: list[int] = []  # the rows of pages in each batch's range of rowids
    holds: list[str] = []
    real_hold = wb._Writer.hold

    def warm(conn, statement, params):
        inside = conn.in_transaction
        (cells,) = conn.execute(statement, params).fetchone()
        (rows,) = conn.execute(
            "SELECT count(*) FROM temp.run_write WHERE id BETWEEN :lo AND :hi", params
        ).fetchone()
        every = " + ".join(f"coalesce(length(CAST(\"{c}\" AS BLOB)), 0)"
                           for (c,) in conn.execute("SELECT name FROM pragma_table_info('pages')"))
        (expected,) = conn.execute(
            f"SELECT sum({every}) FROM pages "
            "WHERE id IN (SELECT id FROM temp.run_write WHERE id BETWEEN :lo AND :hi)", params
        ).fetchone()
        assert cells == expected  # every cell of the batch's rows, and of no other row
        ranges.append(conn.execute(
            "SELECT count(*) FROM pages WHERE id BETWEEN :lo AND :hi", params).fetchone()[0])
        warmed.append((inside, int(params["lo"]), int(params["hi"]), rows))

    def hold(self, step="last"):
        holds.append(step)
        return real_hold(self, step)

    path = write_pages(tmp_path / "crawl.sqlite", crawl(40))
    if nightly:  # a page on a host of its own, with a text of its own: a small region
        Deduplicator().run_on_db(path)
        with closing(sqlite3.connect(path)) as conn, conn:
            conn.execute("INSERT INTO pages (url, content) VALUES (?, ?)",
                         ("https://alone.example.com/x", real_texts()[45]["text"]))
    monkeypatch.setattr(wb, "_warm", warm)
    monkeypatch.setattr(wb._Writer, "hold", hold)
    Deduplicator(write_lock=TINY).run_on_db(path)
    assert len(warmed) == holds.count("annotations") > (0 if nightly else 3), (warmed, holds)
    assert not any(inside for inside, _, _, _ in warmed)
    conn = sqlite3.connect(path)
    ids = [i for (i,) in conn.execute("SELECT id FROM pages ORDER BY id")]
    covered = sorted(i for i in ids for _, lo, hi, _ in warmed if lo <= i <= hi)
    assert covered == ids  # the batches' ranges: every row once
    read = sum(rows for _, _, _, rows in warmed)
    if nightly:  # only the region's rows, though their batches' ranges span the table
        assert 0 < read < len(ids) == sum(ranges), (read, len(ids))
    else:
        assert read == len(ids)
    conn.execute("CREATE TEMP TABLE run_write (id INTEGER PRIMARY KEY)")
    statement = wb._warm_rows_sql(conn, Layout("pages", "url"))
    plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + statement, {"lo": 1, "hi": 9})]
    conn.close()
    assert plan == ["SEARCH w USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
                    "SEARCH p USING INTEGER PRIMARY KEY (rowid=?)"], plan


@pytest.mark.parametrize("multi", [False, True])
def test_batches_ended_early_write_every_key_once_and_clear_every_range(monkeypatch, multi):
    """Batches of several pieces, some ended early by pieces made slow at random: every key
    of the TEMP table is written once, in order, and the ranges ``clear`` gets cover every
    key there may be (below the first, between two, above the last) exactly once; one key or
    two (a text and an integer, as the state tables' copies walk them)."""
    import random
    from contextlib import contextmanager
    from types import SimpleNamespace

    from webdedup.pipeline import phase5_write_back as wb

    rnd = random.Random(7)
    conn = sqlite3.connect(":memory:")
    if multi:
        key: tuple[str, ...] = ("h", "id")
        keys = sorted({(rnd.choice(["", "a", "b", "bb"]), rnd.randrange(-50, 10**6))
                       for _ in range(6_000)})
        conn.execute("CREATE TEMP TABLE todo (h TEXT, id INTEGER, PRIMARY KEY (h, id))")
        probes = sorted(set(keys) | {(h, i + d) for h, i in keys for d in (-1, 1)}
                        | {("", -(10**9)), ("c", 0), ("bb\0", 5)})
    else:
        key = ("id",)
        keys = sorted((k,) for k in rnd.sample(range(-(10**6), 10**7), 6_000))
        conn.execute("CREATE TEMP TABLE todo (id INTEGER PRIMARY KEY)")
        probes = sorted(set(keys) | {(k[0] + d,) for k in keys for d in (-1, 1)}
                        | {(-(2**63),), (2**63 - 1,)})
    marks = ", ".join("?" * len(key))
    conn.executemany(f"INSERT INTO temp.todo VALUES ({marks})", keys)
    conn.execute(f"CREATE TEMP TABLE probes ({', '.join(key)})")
    conn.executemany(f"INSERT INTO temp.probes VALUES ({marks})", probes)
    ctx = SimpleNamespace(conn=conn, config=Config(write_lock=1.0), on_phase=None,
                          total_pages=len(keys))
    now = [0.0]
    monkeypatch.setattr(wb, "_clock", lambda: now[0])
    monkeypatch.setattr(wb, "_row_bytes", lambda ctx: 30.0)  # large first batches
    cols = ", ".join(key)
    written: list[tuple] = []
    cleared: dict[tuple, int] = {}
    pieces: list[int] = []
    held: list[float] = []

    class Spacer:
        @contextmanager
        def transaction(self, step):
            took, start = wb._Took(), now[0]
            pieces.append(0)
            yield took
            took.seconds = now[0] - start
            held.append(took.seconds)

    def write(condition, params):
        rows = conn.execute(f"SELECT {cols} FROM temp.todo WHERE {condition}", params).fetchall()
        written.extend(rows)
        pieces[-1] += 1
        now[0] += len(rows) * (1e-3 if rnd.random() < 0.3 else 1e-5)

    def clear(condition, params):
        for row in conn.execute(f"SELECT {cols} FROM temp.probes WHERE {condition}", params):
            cleared[row] = cleared.get(row, 0) + 1

    wb._batches(SimpleNamespace(ctx=ctx, generation=None), "todo", key, Spacer(), write,
                clear=clear, step="copy")
    assert written == keys
    assert cleared == dict.fromkeys(probes, 1)
    assert max(pieces) > 1 and len(set(pieces)) > 1  # batches of pieces, some ended early


#: The groups state's steps of a full run's batched write (schema 14).
GROUP_STEPS = ("_webdedup_groups", "_webdedup_group_members", "_webdedup_group_kinds")


def _pages_a_batch(tmp_path: Path, monkeypatch, old_indexes: bool) -> dict[str, int]:
    """The most pages one transaction of each groups step wrote into the WAL in a batched
    full run (no checkpoints: the WAL only grows) over exact copies spread at random ids
    (so a multi-page group's number, its first member's id, is unrelated to its members'),
    with ``old_indexes``: the two indexes of schema 13 put back on ``_webdedup_groups``."""
    import random
    from contextlib import contextmanager

    from webdedup.pipeline import phase5_write_back

    texts = [r["text"] for r in real_texts(limit=700, min_words=40)]
    pages = [make_page(f"https://a.example.org/{i}", t) for i, t in enumerate(texts)]
    pages += [make_page(f"https://b.example.org/{i}", t) for i, t in enumerate(texts)]
    random.Random(5).shuffle(pages)
    path = write_pages(tmp_path / f"spread-{old_indexes}.sqlite", pages)
    Deduplicator().run_on_db(path)
    if old_indexes:
        with closing(sqlite3.connect(path)) as conn:
            conn.execute("CREATE INDEX _webdedup_groups_kind ON _webdedup_groups(dup_kind, "
                         "dup_group)")
            conn.execute("CREATE INDEX _webdedup_groups_group ON _webdedup_groups(dup_group, "
                         "is_canonical)")
            conn.commit()
    monkeypatch.setattr(phase5_write_back, "CHECKPOINTS", False)
    sizes: list[tuple[str, int]] = []
    hold = phase5_write_back._Writer.hold
    wal = Path(f"{path}-wal")

    @contextmanager
    def timed(self, step: str = "last"):
        with hold(self, step):
            yield
        sizes.append((step, wal.stat().st_size if wal.exists() else 0))

    monkeypatch.setattr(phase5_write_back._Writer, "hold", timed)
    result = Deduplicator(write_lock=TINY).run_on_db(path, full=True)
    assert result.exact_duplicates >= 600
    most: dict[str, int] = {}
    for (_, before), (step, after) in zip(sizes, sizes[1:], strict=False):
        if step in GROUP_STEPS:
            most[step] = max(most.get(step, 0), (after - before) // (4096 + 24))
    return most


def test_a_batch_of_the_groups_state_writes_a_few_pages_however_random_the_groups(
    tmp_path, monkeypatch
):
    """The groups state is copied in three key orders (``_webdedup_groups`` by id, its rows by
    group and by kind in two tables keyed by them), each walked in its own order: a batch
    appends to the right edge of its B-tree. With the two indexes of schema 13, each batch's
    entries landed on leaves all over both indexes: at a million pages the groups' 45 MiB
    of state took 404 MiB of writes (``benchmarks/studies/lock_holds.py``)."""
    now = _pages_a_batch(tmp_path, monkeypatch, old_indexes=False)
    assert set(now) == set(GROUP_STEPS)
    assert max(now.values()) <= 6, now  # a leaf or two, a split's new one, their parents
    before = _pages_a_batch(tmp_path, monkeypatch, old_indexes=True)
    assert before["_webdedup_groups"] > 2 * max(now.values()), (before, now)
