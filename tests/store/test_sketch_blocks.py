"""The stored sketches packed in blocks (schema 15): what a nightly run's region reads.

A block is a copy of its ids' sketches as they were when it was written; the ids written
since are stale and read from ``_webdedup_sketches``. These tests hold, through full and
incremental runs (batched or not) over ids spread across many blocks, that the pass reads
exactly the stored sketches — no more, no fewer, none old — and that an incremental run
whose region depends on a stale sketch still finds what a full run finds.
"""

from __future__ import annotations

import random
import sqlite3

import pytest
from conftest import real_texts
from test_write_batches import TINY

from benchmarks.studies.nightly_ab import copy_database  # (by SQLite: no file opened)
from webdedup import Deduplicator
from webdedup.config import Config
from webdedup.errors import DatabaseLocked
from webdedup.store import connect, migrate, sketch_blocks, transaction
from webdedup.store.sketch_blocks import BLOCK, BLOCK_BITS, stored_sketches

#: Ids a page apart: 60 pages over about 25 blocks, several pages in most.
SPREAD = 1_700


def crawl_db(path, n: int = 60, start: int = 1):
    """Real texts (every other one with an edited copy) under ids :data:`SPREAD` apart."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE IF NOT EXISTS pages (id INTEGER PRIMARY KEY, url TEXT, "
                 "content TEXT)")
    rows, i = [], start
    for k, rec in enumerate(real_texts()[:n]):
        rows.append((i, f"https://site{k % 4}.example.org/{k}", rec["text"]))
        i += SPREAD
        if k % 2 == 0:
            words = rec["text"].split()
            edited = " ".join(w + "s" if j % 50 == 9 else w for j, w in enumerate(words))
            rows.append((i, f"https://mirror.example.net/{k}", edited))
            i += SPREAD
    conn.executemany("INSERT INTO pages (id, url, content) VALUES (?, ?, ?)", rows)
    conn.commit()
    conn.close()
    return path


def sketches(path) -> dict[int, bytes]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT id, sketch FROM _webdedup_sketches"))
    finally:
        conn.close()


def read_pass(path) -> dict[int, bytes]:
    """What the region's pass reads (checked to read each id once)."""
    conn = sqlite3.connect(path)
    try:
        width = len(conn.execute("SELECT sketch FROM _webdedup_sketches LIMIT 1").fetchone()[0])
        seen: dict[int, bytes] = {}
        for chunk in stored_sketches(conn, width):
            assert len(chunk.packed) == len(chunk.ids) * width
            for k, i in enumerate(chunk.ids.tolist()):
                assert i not in seen, f"id {i} read twice"
                seen[i] = chunk.packed[k * width : (k + 1) * width]
        return seen
    finally:
        conn.close()


def blocks(path) -> tuple[dict[int, int], set[int]]:
    """``{block: ids held}`` of the valid blocks (not older than the last full run) and the
    stale ids, each block checked against the table: its ids
    not stale hold the sketch the table holds, and every id of its range with a sketch that
    is not stale is in it."""
    stored = sketches(path)
    conn = sqlite3.connect(path)
    try:
        stale = {i for (i,) in conn.execute("SELECT id FROM _webdedup_sketch_stale")}
        held = {}
        for block, width, present, packed in conn.execute(
            "SELECT block, width, present, sketches FROM _webdedup_sketch_blocks "
            "WHERE generation >= ?", (sketch_blocks.valid_from(conn),)
        ):
            ids = sketch_blocks.block_ids(block, present).tolist()
            assert len(present) == BLOCK // 8 and len(packed) == len(ids) * width
            copy = {i: packed[k * width : (k + 1) * width] for k, i in enumerate(ids)}
            lo = block << BLOCK_BITS
            now = {i: s for i, s in stored.items() if lo <= i < lo + BLOCK and i not in stale}
            assert {i: s for i, s in copy.items() if i not in stale} == now
            held[block] = len(ids)
        return held, stale
    finally:
        conn.close()


def annotations(path) -> dict[int, tuple]:
    conn = sqlite3.connect(path)
    try:
        return {r[0]: r[1:] for r in conn.execute(
            "SELECT id, dup_group, dup_kind, is_canonical, canonical_id FROM pages ORDER BY id")}
    finally:
        conn.close()


def edit(path, seed: int) -> None:
    """A night of a crawl: pages edited at random ids, some deleted, new ones at new ids and
    in the gaps between the old ones (inside blocks already written)."""
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    ids = [i for (i,) in conn.execute("SELECT id FROM pages ORDER BY id")]
    for i in rng.sample(ids, 8):
        conn.execute("UPDATE pages SET content = content || ' revised' WHERE id = ?", (i,))
    for i in rng.sample(ids, 3):
        conn.execute("DELETE FROM pages WHERE id = ?", (i,))
    top = max(ids)
    texts = real_texts()
    for k in range(6):
        new_id = top + 1 + k * 900 if k % 2 else rng.choice(ids) + 1 + k
        conn.execute("INSERT OR IGNORE INTO pages (id, url, content) VALUES (?, ?, ?)",
                     (new_id, f"https://new.example.com/{seed}/{k}", texts[70 + k]["text"]))
    conn.commit()
    conn.close()


@pytest.mark.parametrize("write_lock", [0, TINY])
def test_the_pass_reads_every_stored_sketch_once_through_runs(tmp_path, write_lock):
    path = crawl_db(tmp_path / "c.sqlite")
    dedup = Deduplicator(config=Config(write_lock=write_lock))
    assert dedup.run_on_db(path).mode == "full"
    held, stale = blocks(path)
    assert len(held) > 15 and stale == set()  # every block written, none stale
    assert read_pass(path) == sketches(path)
    saw_stale = False
    for night in range(4):
        edit(path, night)
        result = dedup.run_on_db(path)
        assert result.mode == "incremental"
        held, stale = blocks(path)
        saw_stale |= bool(stale)
        assert read_pass(path) == sketches(path)
        # every id with a sketch is in a block written since (none is missing)
        assert {i >> BLOCK_BITS for i in sketches(path)} <= set(held)
        full = copy_database(path, tmp_path / f"full{night}.sqlite")
        Deduplicator(config=Config(write_lock=write_lock)).run_on_db(full, full=True)
        assert annotations(path) == annotations(full)
    assert saw_stale  # (the runs left stale ids in the blocks: the pass read them)


def test_a_block_with_many_stale_ids_is_written_again(tmp_path, monkeypatch):
    path = crawl_db(tmp_path / "c.sqlite")
    Deduplicator().run_on_db(path)
    monkeypatch.setattr(sketch_blocks, "STALE_REWRITE", 1)
    edit(path, 1)
    Deduplicator().run_on_db(path)
    held, stale = blocks(path)
    assert stale == set() and read_pass(path) == sketches(path)


def test_a_page_found_only_through_its_stale_sketch(tmp_path, monkeypatch):
    """Page A is rewritten one night (its block keeps its old sketch: A's id is stale) and
    copied as a new page B the next: the next night's region finds A only by A's sketch as it
    is now. Read from the block, A and B would not be grouped; a full run groups them."""
    monkeypatch.setattr(sketch_blocks, "STALE_REWRITE", BLOCK)  # no block written again
    path = crawl_db(tmp_path / "c.sqlite")
    dedup = Deduplicator()
    dedup.run_on_db(path)
    texts = real_texts()
    conn = sqlite3.connect(path)
    a = conn.execute("SELECT id FROM pages ORDER BY id LIMIT 1 OFFSET 20").fetchone()[0]
    conn.execute("UPDATE pages SET content = ? WHERE id = ?", (texts[90]["text"], a))
    conn.commit()
    assert dedup.run_on_db(path).mode == "incremental"
    held, stale = blocks(path)
    assert a in stale and a >> BLOCK_BITS in held
    words = texts[90]["text"].split()  # a near copy (an exact one would meet A by its hash)
    near = " ".join(w + "s" if j % 40 == 3 else w for j, w in enumerate(words))
    conn.execute("INSERT INTO pages (url, content) VALUES (?, ?)",
                 ("https://copy.example.com/a", near))
    conn.commit()
    conn.close()
    dedup.run_on_db(path)
    got = annotations(path)
    b = max(got)
    assert got[a][0] is not None and got[a][0] == got[b][0]
    assert "near" in (got[a][1], got[b][1])  # a near-duplicate pair
    full = copy_database(path, tmp_path / "full.sqlite")
    Deduplicator().run_on_db(full, full=True)
    assert annotations(full) == got


def test_a_full_run_writes_the_blocks_anew(tmp_path):
    """A full run empties the blocks before it writes the sketches (none stays from the
    configuration before) and writes them all after; a method without sketches drops them."""
    path = crawl_db(tmp_path / "c.sqlite")
    Deduplicator().run_on_db(path)
    edit(path, 3)
    Deduplicator(config=Config(method="simhash")).run_on_db(path)  # another width: full
    held, stale = blocks(path)
    assert held and stale == set() and read_pass(path) == sketches(path)
    conn = sqlite3.connect(path)
    assert {w for (w,) in conn.execute("SELECT width FROM _webdedup_sketch_blocks")} == {8}
    conn.close()
    Deduplicator(config=Config(method="levenshtein")).run_on_db(path)
    assert blocks(path) == ({}, set())


def test_blocks_of_another_width_are_read_from_the_table(tmp_path):
    """A block whose width is not the pass's (left by another configuration) is not read:
    its ids come from the table of sketches."""
    path = crawl_db(tmp_path / "c.sqlite")
    Deduplicator().run_on_db(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE _webdedup_sketch_blocks SET width = width + 1 "
                 "WHERE block = (SELECT min(block) FROM _webdedup_sketch_blocks)")
    conn.commit()
    conn.close()
    assert read_pass(path) == sketches(path)


def test_an_older_state_gets_its_blocks_on_its_next_run(tmp_path):
    """A database annotated at schema 14 (no blocks): its next run, incremental, reads the
    table of sketches and writes the blocks at its end."""
    path = crawl_db(tmp_path / "c.sqlite")
    Deduplicator().run_on_db(path)
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE _webdedup_sketch_blocks")
    conn.execute("DROP TABLE _webdedup_sketch_stale")
    conn.execute("UPDATE _webdedup_meta SET value = '14' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    assert read_pass(path) == sketches(path)  # (no blocks: the table, as before)
    edit(path, 5)
    assert Deduplicator().run_on_db(path).mode == "incremental"
    held, _ = blocks(path)
    assert {i >> BLOCK_BITS for i in sketches(path)} <= set(held)
    assert read_pass(path) == sketches(path)


def test_a_full_run_leaves_no_old_block_read(tmp_path, monkeypatch):
    """A full run over the blocks of the same width: the blocks written before it are not
    read (they hold the sketches it replaced), even where nothing writes them again."""
    path = crawl_db(tmp_path / "c.sqlite")
    Deduplicator().run_on_db(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE pages SET content = content || ' and a new ending' WHERE id % 3 = 1")
    conn.commit()
    conn.close()
    old = sketches(path)
    monkeypatch.setattr(sketch_blocks, "refresh",
                        lambda *a, **k: sketch_blocks.Refreshed())  # no block written again
    Deduplicator().run_on_db(path, full=True)
    assert sketches(path) != old  # (the edits changed sketches the blocks still hold)
    assert read_pass(path) == sketches(path)


def store_only(tmp_path, ids, encoding="UTF-8"):
    """webdedup's state tables alone, with a sketch of 8 bytes for each of ``ids``."""
    conn = connect(tmp_path / "s.sqlite", must_exist=False)
    conn.execute(f"PRAGMA encoding = '{encoding}'")
    with transaction(conn):
        migrate(conn)
        conn.executemany("INSERT INTO _webdedup_sketches (id, scheme, sketch) VALUES (?, 's', ?)",
                         [(i, (i % 2**62).to_bytes(8, "little")) for i in ids])
    return conn


@pytest.mark.parametrize("encoding", ["UTF-8", "UTF-16le"])
def test_blocks_at_the_ends_of_the_rowids(tmp_path, encoding):
    """Ids at both ends of SQLite's rowids (the top block's last id is 2**63 - 1), sketches
    changed after their blocks were written (stale), where text is UTF-16 too."""
    top, bottom = 2**63 - 1, -(2**63)
    ids = [bottom, bottom + 3, -5, 0, 7, 4095, 4096, top - 4096, top - 2, top]
    conn = store_only(tmp_path, ids, encoding)
    done = sketch_blocks.refresh(conn, 8, 1, lambda: True)
    assert done.written == 6 and not done.stopped

    def read() -> dict[int, bytes]:
        got: dict[int, bytes] = {}
        for chunk in stored_sketches(conn, 8):
            for k, i in enumerate(chunk.ids.tolist()):
                assert i not in got
                got[i] = chunk.packed[8 * k : 8 * k + 8]
        return got

    def table() -> dict[int, bytes]:
        return dict(conn.execute("SELECT id, sketch FROM _webdedup_sketches"))

    assert read() == table()
    with transaction(conn):  # as an incremental run writes: marked stale, then written
        for i in (top, bottom, 7):
            conn.execute("INSERT INTO _webdedup_sketch_stale (id) VALUES (?)", (i,))
        conn.execute("UPDATE _webdedup_sketches SET sketch = x'0102030405060708' "
                     "WHERE id IN (?, ?)", (top, bottom))
        conn.execute("DELETE FROM _webdedup_sketches WHERE id = 7")
    assert read() == table()
    monkey = sketch_blocks.STALE_REWRITE
    sketch_blocks.STALE_REWRITE = 1
    try:
        sketch_blocks.refresh(conn, 8, 2, lambda: True)
    finally:
        sketch_blocks.STALE_REWRITE = monkey
    assert conn.execute("SELECT count(*) FROM _webdedup_sketch_stale").fetchone() == (0,)
    assert read() == table()
    conn.close()


def test_the_refresh_stops_when_another_run_claims_a_write(tmp_path, monkeypatch):
    """Between a run's write and the end of its refresh another run may claim a write (and
    mark ids stale, then write their sketches in later transactions): the refresh checks the
    write generation in each of its transactions and stops."""
    conn = store_only(tmp_path, range(0, 40_000, 7))
    calls = []

    def ours() -> bool:
        calls.append(1)
        return len(calls) < 3  # another run claims before the third transaction

    monkeypatch.setattr(sketch_blocks, "REFRESH_BYTES", 3 * 8 * sketch_blocks.BLOCK)
    done = sketch_blocks.refresh(conn, 8, 1, ours)
    assert done.stopped and done.transactions == 2 and done.written == 6
    assert conn.execute("SELECT count(*) FROM _webdedup_sketch_blocks").fetchone() == (6,)
    conn.close()
    # and a run's refresh asks about the generation its own write claimed
    path = crawl_db(tmp_path / "c.sqlite")
    real = sketch_blocks.refresh

    def claimed_meanwhile(conn, *args, **kwargs):
        with transaction(conn):  # as another run's first write transaction would
            conn.execute("UPDATE _webdedup_meta SET value = value + 1 "
                         "WHERE key = 'write_generation'")
        return real(conn, *args, **kwargs)

    monkeypatch.setattr(sketch_blocks, "refresh", claimed_meanwhile)
    Deduplicator().run_on_db(path)
    assert blocks(path) == ({}, set())  # nothing written
    assert read_pass(path) == sketches(path)


def test_a_crawler_holding_the_lock_leaves_the_blocks_to_the_next_run(tmp_path, monkeypatch):
    """The run's write is committed when its refresh begins: a busy lock then ends the
    refresh with a word, not the run with an error."""
    path = crawl_db(tmp_path / "c.sqlite")

    def locked(*args, **kwargs):
        raise DatabaseLocked("database is locked")

    monkeypatch.setattr(sketch_blocks, "refresh", locked)
    said: list[str] = []
    result = Deduplicator().run_on_db(path, on_message=said.append)
    assert result.mode == "full" and result.near_duplicates > 0
    assert any("sketch blocks were left for the next run" in m for m in said)
    assert read_pass(path) == sketches(path)
    monkeypatch.undo()
    edit(path, 9)
    Deduplicator().run_on_db(path)  # the next run writes them
    held, _ = blocks(path)
    assert {i >> BLOCK_BITS for i in sketches(path)} <= set(held)

