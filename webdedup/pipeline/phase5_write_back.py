"""Phase 5, write back: the only phase that writes to the crawl database.

:func:`run` is its one entry point, called at the end of the run's read snapshot. It readies
what it writes while still in the snapshot (the annotations in rowid order and the state
tables' indexes, in TEMP tables), ends the snapshot, then writes in one short write
transaction: migrations, the output columns added to ``pages`` when missing, the annotations
(only the rows whose annotation changes), webdedup's state tables (copied as they are) and
the change-tracking triggers; the pipeline's run row and optional prune follow in the same
transaction (``finish``). A crawler waits for that transaction only.

A large write (a first run, or any full run, on a big crawl) would hold the lock for as long
as it takes to rewrite every row: SQLite rewrites a row's whole record, text included, to
add its annotation. When the write is estimated to take longer than ``Config.write_lock``
seconds (:func:`_batched`), the annotations and a full run's state go first in transactions
sized to that (each measured, the next sized from it), with pauses between them, so a
crawler never waits longer than about ``write_lock``. The first of them marks the stored
state as being rewritten (the next run is then full if this one dies halfway), and every one
checks that no other run wrote meanwhile; the last, short one finishes. Each transaction is
timed from when it has the lock to its commit (``WriteBackResult.lock_seconds``).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial

from ..errors import ConcurrentRun
from ..incremental.plan import MISSED, Plan
from ..store import (
    latest_schema_version,
    migrate,
    quote,
    run_script,
    schema_version,
    sketch_blocks,
    sql,
    table_columns,
    table_exists,
)
from ..store.connection import data_version, transaction, translate
from ..store.layout import Layout, record_annotated, record_crawler_columns
from ..store.schema import OUTPUT_COLUMNS, add_output_columns
from ..store.state import meta_value, set_meta
from ..store.triggers import install_triggers
from . import segments
from .context import RunContext, WriteBackResult

#: ``_webdedup_meta`` key: a count a run moves on when it starts to write (and again in its
#: last transaction); each of its transactions checks it still holds the value the run read
#: (or wrote last), so two runs never interleave their writes: one that finds the count
#: moved by another run stops.
GENERATION = "write_generation"
#: What the next run is told when this one stops between its batched transactions.
INTERRUPTED = (
    "the last run stopped while it wrote its results in batches (some pages carry its "
    "annotations, others the run before's): running a full pass once more"
)
#: Bytes per second a rewrite of rows is estimated at, to decide whether a write fits in
#: ``write_lock`` and to size the first batch (a low figure for a laptop disk; the batches
#: after the first are sized from what the one before took).
WRITE_RATE = 64 * 2**20
MIN_BATCH = 16  # rows: the smallest batch, however slow the disk
#: The share of ``write_lock`` a batch is sized to take, from the time the ones before took:
#: room for a commit that takes longer than the last (a busy disk or machine: at a million
#: pages on a loaded machine, 0.6 with threefold growth let one batch hold the lock 2.2 s;
#: at three million on a quiet one, 0.5 let one hold it 1.10 s). Smaller batches write
#: more, presumably the state tables' index pages that several commits touch, each time:
#: at three million pages 0.4 and the slowest of four wrote 3.04 times the database, 0.5
#: and the last batch alone 2.94 times (2.71 and 2.67 times less the temp files' pages
#: that were never written out).
BATCH_AIM = 0.4
#: Batches whose time a row is sized from: the slowest of the last few. A batch's time a row
#: grows as the WAL grows between two checkpoints (at a million pages, about 11 µs just
#: after one, 21-27 µs after 5 s of holds: ``benchmarks/studies/lock_holds.py``) and jumps
#: by up to 1.8× from one batch to the next; sized from the last batch alone, a fast one
#: just after a checkpoint doubled the next.
RATE_WINDOW = 4
#: Seconds of a pause between two batches: a crawler waiting for the lock gets it then.
#: SQLite's busy handler (Python's ``timeout``) retries at least every 100 ms; with no pause
#: the next batch would take the lock again first, and a crawler could wait out its timeout
#: across batches.
PAUSE = 0.15
HELD_BEFORE_PAUSE = 0.5  # seconds of holding the lock, in one or more batches, then a pause
#: Whether a batched write copies the WAL back into the database as it goes, in a thread
#: of its own (:class:`_Checkpointer`; tests turn it off to see the WAL grow). The run
#: turns SQLite's own checkpoints off, so without these the WAL would grow to the size of
#: the rewritten rows (the whole table in a first run: gigabytes, beside the database),
#: and with it the WAL index that a page read searches (a hash table for each 4,096
#: frames): a row rewritten took about twice as long after 5 s of holds as just after a
#: checkpoint (a million pages; after 2 s, up to 1.7 times).
CHECKPOINTS = True
#: Checkpoints asked for beside a batched write, about, in the whole write (as estimated:
#: :func:`_write_bytes` at :data:`WRITE_RATE`), besides the catch-ups. Each copies again the
#: pages that several batches since the last one touched (the upper pages of the tables
#: being filled): one after each batch wrote 2.99 times the database to the disk at three
#: million pages, where a checkpoint every 5 s of holds had written 2.78 times
#: (``bench_scale --pages 3000000 --sentences fresh``). So on a large write they come no
#: more often than the catch-ups (at three million pages of that corpus, every 9 s of holds
#: as estimated: none between them); at a million, every 3 s; at 20,000, after each batch.
BESIDE_CHECKPOINTS = 40
#: Seconds of holding the lock after which the write waits, between two batches, for a
#: checkpoint to catch up with it (so the WAL starts over; :meth:`_Checkpointer.catch_up`).
#: Every 3 s instead of 5 changed neither the run's time nor its bytes written at three
#: million pages (when the checkpoints were made there, on the run's connection).
CHECKPOINT_AFTER = 5.0
#: Bytes of WAL the write may fill between two catch-ups before it keeps within the WAL
#: file's size: once this much is written since the last catch-up, the write catches up
#: before a batch that could write past the end of the file (twice the most the last few
#: batches wrote, as :class:`_ThreadWrites` counts them). Writing past the end can cost the
#: kernel several times the CPU of writing over frames already in the file (at a million
#: pages on Linux 6.18, ext4, with memory free: ``memset`` in ``ext4_block_write_begin``
#: under ``pwrite``; a commit that grew the WAL took up to 0.67 s, ones of the same size
#: within it 0.03-0.09 s, and those commits were the write's longest holds of the lock; with
#: the page cache full, no such cost: ``benchmarks/studies/lock_holds.py``,
#: docs/benchmarks.md, 2026-12-06). More catch-ups may write more: at ten million pages
#: the write's batches wrote 17.9 GiB more than on ``e56ae61``, before this rule; with the
#: groups state in key order (schema 14: its two indexes had most of their leaves rewritten by
#: each batch), 80.4 GiB in all, 2.73 times the database with the other phases (2026-12-07).
WAL_ROOM = 256 * 2**20
FIRST_BATCH = 2_000  # rows: the largest first batch of a table, before any was timed
#: Pieces a batch is written in, each its own statement in the batch's transaction: before
#: each piece after the first, the batch ends early (the rest goes to the next one) when one
#: more piece at the pace of the ones before would hold the lock past ``write_lock``. A
#: batch is sized from the batches before it; if the disk slows down in the middle of one, it
#: holds the lock as many times its aim as the disk slowed. (The commit is not foreseen: it
#: writes into the WAL what the pieces left in SQLite's cache.)
PIECES = 4
_clock = time.perf_counter  # what the pieces are timed with (a test's clock in tests)
_LOWEST, _HIGHEST = -(2**63), 2**63 - 1  # the smallest and largest rowid SQLite allows


@dataclass(frozen=True)
class StateCopy:
    """A state table of ``main`` and the run's TEMP table it is replaced by (full runs)."""

    main: str
    temp: str
    key: tuple[str, ...]  # the TEMP table's key: a batched copy walks it in order
    same_columns: bool = True  # same columns in the same order: copied with SELECT *


#: Every state table a full run replaces, and from where.
STATE = (
    StateCopy("_webdedup_prepared", "run_prepared", ("id",)),
    StateCopy("_webdedup_url_keys", "run_url_keys", ("url_key", "id")),
    StateCopy("_webdedup_content_hashes", "run_content_hashes", ("content_hash", "id")),
    StateCopy("_webdedup_hosts", "run_hosts", ("host", "id")),
    StateCopy("_webdedup_sketches", "run_sketches", ("id",)),
    StateCopy("_webdedup_edges", "run_edges", ("a", "b")),
    StateCopy("_webdedup_nodes", "run_lev_nodes", ("id",), same_columns=False),
    StateCopy("_webdedup_verified", "run_verified", ("hash_a", "hash_b")),
    StateCopy("_webdedup_thin", "run_thin", ("id",)),
    StateCopy("_webdedup_groups", "run_groups", ("id",)),
    StateCopy("_webdedup_group_members", "run_group_members", ("dup_group", "is_canonical", "id")),
    StateCopy("_webdedup_group_kinds", "run_group_kinds", ("dup_kind", "dup_group", "id")),
)
#: The repeated segments' state, replaced by a full run that counted them (``segments``).
SEGMENT_STATE = (
    StateCopy("_webdedup_page_segments", "run_segments", ("host", "hash", "id"), False),
    StateCopy("_webdedup_segments", "run_segment_counts", ("host", "hash"), False),
)

#: A page's prepared row, sketch and two lookup rows, rewritten by an incremental run for each
#: page of its region whose rows differ (``temp.run_restate``): about 650 bytes on the bench
#: corpora (``benchmarks/speed/bench.py --growth`` prints the state by table); rounded up, to err on
#: the large side.
STATE_ROW_BYTES = 1024

#: A batched incremental write's prepared rows and sketches (by id), the bulk of the region's
#: state (save_region_incremental.sql), a batch at a time.
_REGION_STATE = (("_webdedup_prepared", "run_prepared"), ("_webdedup_sketches", "run_sketches"))
#: ... and the lookup rows of the prepared rows (main table, this run's rows, the stored rows
#: they replace, key), in key order.
_REGION_KEYS = (
    ("_webdedup_url_keys", "run_url_keys", "run_old_url_keys", ("url_key", "id")),
    ("_webdedup_content_hashes", "run_content_hashes", "run_old_content_hashes",
     ("content_hash", "id")),
    ("_webdedup_hosts", "run_hosts", "run_old_hosts", ("host", "id")),
)


def run(
    ctx: RunContext, finish: Callable[[WriteBackResult], None] | None = None
) -> WriteBackResult:
    """Annotate ``pages`` and save the run's state; call it at the end of the run's read
    snapshot (phases 1-4 and the assignment done), which it ends.

    A full run replaces all state and (re)installs the change-tracking triggers; an
    incremental run replaces the state of its region only. Either consumes the queued
    changes it read (``seq <= plan.max_seq``); changes queued since stay for the next run.
    When the table changed during a run that had no triggers yet (rows updated meanwhile are
    unknown), the next run is told to be full. ``finish(result)`` runs inside the last write
    transaction, before its commit (the run row, a prune). The result counts the rows written
    and the transactions, and times how long each held the lock.
    """
    conn = ctx.conn
    try:
        with ctx.phase("write_prepare"):  # in the snapshot, before the write takes the lock
            writer = _prepare(ctx)
        conn.execute("COMMIT")
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise translate(exc) from exc
        raise
    with ctx.phase("write_back"):
        ahead = _write_ahead(writer) if writer.batched else None
        with writer.hold():
            # another connection committed since the snapshot while nothing queued changes:
            # updated rows cannot be told apart, so the next run must be full (a batched full
            # run knew it when it installed the triggers)
            if ahead is None or writer.plan.mode == "incremental":
                writer.missed_changes = not writer.plan.tracked and writer.changed_since()
            written = _write_last(writer, ahead)
            result = replace(written, transactions=len(writer.holds) + 1)
            if finish is not None:
                finish(result)
    return replace(
        result,
        generation=writer.generation,
        lock_seconds=round(max(writer.holds), 4),
        lock_seconds_total=round(sum(writer.holds), 4),
        lock_by_step={k: round(v, 4) for k, v in writer.longest.items()},
    )


@dataclass
class _Writer:
    """Phase 5's own state: the run's context and plan, the write generation as the run read
    it (then as it last wrote it), whether the write goes in batches (and the bytes it is
    estimated to rewrite), whether changes were missed, and how long each write
    transaction held the lock (and the longest of each step: what it wrote)."""

    ctx: RunContext
    plan: Plan
    generation: str | None
    batched: bool = False
    write_bytes: float = 0.0  # (:func:`_write_bytes`; 0 when write_lock is 0: no batches)
    missed_changes: bool = False
    holds: list[float] = field(default_factory=list)
    longest: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def hold(self, step: str = "last") -> Iterator[None]:
        """One write transaction, timed into ``holds`` from when it has the lock (after
        ``BEGIN IMMEDIATE``, which may wait for a crawler) to its commit; ``step`` names
        what it writes (a TEMP table copied or written from, a batched write's first
        transaction, the last one)."""
        start: float | None = None
        try:
            with transaction(self.ctx.conn):
                start = time.perf_counter()
                yield
        finally:
            if start is not None:
                held = time.perf_counter() - start
                self.holds.append(held)
                self.longest[step] = max(held, self.longest.get(step, 0.0))

    def changed_since(self) -> bool:
        """Whether another connection committed since the run's snapshot began."""
        return data_version(self.ctx.conn) != self.plan.data_version


def _prepare(ctx: RunContext) -> _Writer:
    """Ready what the write writes, in TEMP tables (in the run's read snapshot)."""
    if ctx.plan is None:
        raise ValueError("phase 5 needs the run's plan (RunContext.plan)")
    layout = ctx.layout
    made = ctx.conn.execute(
        "SELECT 1 FROM temp.sqlite_schema WHERE type = 'table' AND name = 'run_url_keys'"
    ).fetchone()
    if made is None:  # (phase 2 makes them; a run of loaded results had none)
        run_script(ctx.conn, "lookup_keys")
    run_script(
        ctx.conn,
        "write_prepare",
        pages=quote(layout.table),
        url=quote(layout.url),
        rowid=quote(layout.rowid),
    )
    incremental = ctx.plan.mode == "incremental"
    if incremental:
        run_script(ctx.conn, "write_prepare_incremental")
        if schema_version(ctx.conn) >= latest_schema_version():
            run_script(ctx.conn, "groups_changed", stored="main._webdedup_groups")
        else:  # the write's migrations make or change the stored groups (schema 11: the
            # table, from the pages' annotations; 13: dup_score): every region row goes in
            ctx.conn.execute("CREATE TEMP TABLE IF NOT EXISTS run_no_groups (id INTEGER "
                             "PRIMARY KEY, dup_group, dup_kind, is_canonical, dup_score)")
            run_script(ctx.conn, "groups_changed", stored="temp.run_no_groups")
            ctx.conn.execute("INSERT INTO temp.run_groups_gone (id) SELECT id FROM "
                             "temp.run_region WHERE id NOT IN (SELECT id FROM temp.run_groups)")
    estimate = _write_bytes(ctx) if float(ctx.config.write_lock) > 0 else 0.0
    writer = _Writer(ctx, ctx.plan, meta_value(ctx.conn, GENERATION),
                     _batched(ctx, estimate), estimate)
    if not incremental:
        run_script(ctx.conn, "group_keys_prepare")
    if not incremental and not writer.batched:
        run_script(ctx.conn, "write_prepare_full")
    return writer


def _batched(ctx: RunContext, write_bytes: float) -> bool:
    """Whether the write is estimated to hold the lock longer than ``write_lock`` seconds
    (``write_bytes``, :func:`_write_bytes`, at :data:`WRITE_RATE`)."""
    limit = float(ctx.config.write_lock)
    return limit > 0 and write_bytes > limit * WRITE_RATE


def _write_bytes(ctx: RunContext) -> float:
    """The bytes the write is estimated to rewrite: the rows to annotate times the
    database's bytes per page row (state included, so it errs on the large side), twice for
    a full run, which also rewrites the state; an incremental run adds the state rows it
    rewrites (:data:`STATE_ROW_BYTES` a page)."""
    conn = ctx.conn
    rows = int(conn.execute("SELECT count(*) FROM temp.run_write").fetchone()[0])
    full = ctx.plan is not None and ctx.plan.mode == "full"
    estimate = rows * _row_bytes(ctx) * (2 if full else 1)
    if not full and table_exists(conn, "run_restate", schema="temp"):
        restate = int(conn.execute("SELECT count(*) FROM temp.run_restate").fetchone()[0])
        estimate += restate * STATE_ROW_BYTES
    return float(estimate)


def _row_bytes(ctx: RunContext) -> float:
    """The database's bytes per page row (its state included: errs on the large side)."""
    conn = ctx.conn
    size = int(conn.execute("PRAGMA main.page_count").fetchone()[0]) * int(
        conn.execute("PRAGMA main.page_size").fetchone()[0]
    )
    return size / max(ctx.total_pages, 1)


def _write_ahead(writer: _Writer) -> int:
    """The batched part of a large write, each batch its own timed transaction.

    Marks the stored state as being rewritten and adds the output columns; a full run then
    installs the triggers (noting missed changes when another connection wrote since the
    snapshot and nothing tracked it) and replaces the state tables; then ``pages`` is
    annotated in rowid order. Returns the rows written. What is left (an incremental run's
    state, the queue, the run row) is :func:`_write_last`'s.
    """
    spacer = _Spacer(writer)
    try:
        written = _write_ahead_spaced(writer, spacer)
    except BaseException:
        spacer.close(quiet=True)  # (the write's own error, not the checkpoints')
        raise
    spacer.close()
    return written


def _write_ahead_spaced(writer: _Writer, spacer: _Spacer) -> int:
    """:func:`_write_ahead`'s transactions, spaced and checkpointed by ``spacer``."""
    ctx, plan = writer.ctx, writer.plan
    conn, layout = ctx.conn, ctx.layout
    with spacer.transaction("begin"):
        migrate(conn)
        _claim(writer)
        add_output_columns(conn, layout.table)
        record_annotated(conn, layout.table)
        record_crawler_columns(conn, layout.table, list(layout.crawler_columns))
        set_meta(conn, MISSED, INTERRUPTED)
        _sketch_blocks_before(writer)
    if plan.mode == "full":
        with spacer.transaction("triggers"):  # the triggers track every change from here
            _check(writer)
            changed = writer.changed_since()
            writer.missed_changes = not plan.tracked and changed
            install_triggers(conn, layout)
        if changed:  # rows added since the snapshot, before the triggers: queued (found unlocked)
            _queue_unseen(writer, spacer)
        for copy in STATE + (SEGMENT_STATE if segments.counted(ctx) else ()):
            columns = ", ".join(quote(c) for c in table_columns(conn, copy.main))
            insert = (
                f"INSERT INTO main.{quote(copy.main)} ({columns}) SELECT {columns} "
                f"FROM temp.{quote(copy.temp)} WHERE "
            )
            # the stored rows go a key range at a time, each with the new rows of its range
            clear = partial(_clear, conn, f"main.{quote(copy.main)}")
            _batches(
                writer, copy.temp, copy.key, spacer, partial(_execute, conn, insert), clear=clear,
                step=copy.main,
            )
    else:  # the bulk of the region's state (save_region_incremental.sql), old rows out first
        for main, temp, old, key in _REGION_KEYS:
            cols = ", ".join(key)
            drop = f"DELETE FROM main.{main} WHERE ({cols}) IN (SELECT {cols} FROM temp.{old} "
            drop += "WHERE "
            _batches(writer, old, key, spacer, partial(_execute, conn, drop, end=")"),
                     step=f"{main} (old rows)")
            add = f"INSERT OR IGNORE INTO main.{main} SELECT * FROM temp.{temp} WHERE "
            _batches(writer, temp, key, spacer, partial(_execute, conn, add), step=main)
        for main, temp in _REGION_STATE:  # the pages whose rows differ (run_restate)
            drop = f"DELETE FROM main.{main} WHERE id IN (SELECT id FROM temp.run_restate WHERE "
            _batches(
                writer, "run_restate", ("id",), spacer, partial(_execute, conn, drop, end=")"),
                step=f"{main} (old rows)",
            )
            add = f"INSERT INTO main.{main} SELECT * FROM temp.{temp} "
            add += "WHERE id IN (SELECT id FROM temp.run_restate) AND "  # batches of those
            _batches(writer, "run_restate", ("id",), spacer, partial(_execute, conn, add),
                     step=main)
        # the region's groups rows that change (all at once when not batched), with their rows
        # of the group and kind tables
        _batches(writer, "run_groups_gone", ("id",), spacer,
                 partial(_groups_rows, conn, "run_groups_gone"),
                 step="_webdedup_groups (old rows)")
        _batches(writer, "run_groups_changed", ("id",), spacer,
                 partial(_groups_rows, conn, "run_groups_changed"), step="_webdedup_groups")
    before = conn.total_changes
    statement = write_back_sql(layout)
    warm = _warm_rows_sql(conn, layout)
    _batches(
        writer, "run_write", ("id",), spacer, lambda _, params: conn.execute(statement, params),
        step="annotations", warm=partial(_warm, conn, warm),
    )
    return conn.total_changes - before


def _warm(conn: sqlite3.Connection, statement: str, params: dict[str, object]) -> None:
    """Run :func:`_warm_rows_sql`'s read for one batch (``:lo``, ``:hi``)."""
    conn.execute(statement, params).fetchone()


def _warm_rows_sql(conn: sqlite3.Connection, layout: Layout) -> str:
    """``sql/write_warm.sql`` for ``layout``'s table: a read of every cell of the page rows
    a batch of annotations rewrites, made before the batch takes the write lock (at ten
    million pages the table is larger than the page cache: read under the lock, a batch's
    rows held it 7.02 s once; read beforehand, they are read by a read transaction that
    blocks no one)."""
    cells = " + ".join(
        f"coalesce(length(CAST(p.{quote(c)} AS BLOB)), 0)"
        for c in table_columns(conn, layout.table)
    )
    return sql("write_warm", cells=cells or "0", pages=quote(layout.table),
               rowid=quote(layout.rowid))


def _write_last(writer: _Writer, ahead: int | None) -> WriteBackResult:
    """The last write transaction's part (inside it): everything when the write is not
    batched (``ahead`` None), else what :func:`_write_ahead`, which annotated ``ahead`` rows
    and wrote a full run's state, left: an incremental run's state, the queue, the marks."""
    ctx, plan = writer.ctx, writer.plan
    conn, layout = ctx.conn, ctx.layout
    migrate(conn)
    _claim(writer)
    written = ahead or 0
    if ahead is None:
        add_output_columns(conn, layout.table)
        record_annotated(conn, layout.table)
        record_crawler_columns(conn, layout.table, list(layout.crawler_columns))
        before = conn.total_changes
        conn.execute(write_back_sql(layout), {"lo": _LOWEST, "hi": _HIGHEST})
        written = conn.total_changes - before
    if ahead is None:  # (a batched write did it in its first transaction)
        _sketch_blocks_before(writer)
    if plan.mode == "incremental":
        run_script(conn, "save_state_incremental")
        if ahead is None:  # (a batched write wrote these in its batches)
            run_script(conn, "save_region_incremental")
            for temp in ("run_groups_gone", "run_groups_changed"):  # all at once
                _groups_rows(conn, temp, "1", {})
    elif ahead is None:  # (write_ahead did this for a batched full run)
        for copy in STATE:
            _copy_whole(conn, copy)
        install_triggers(conn, layout)
        if writer.changed_since():  # rows inserted after this run's snapshot, before the triggers
            run_script(conn, "queue_unseen", pages=quote(layout.table), rowid=quote(layout.rowid))
    if ahead is None or plan.mode == "incremental":  # (a batched full run: write_ahead)
        segments.save(ctx)
    # the rows changed since the snapshot keep the groups of their annotations
    since = {"max_seq": plan.max_seq}
    changed = "SELECT id FROM main._webdedup_changes WHERE seq > :max_seq"
    run_script(conn, "group_keys_drop", since, ids=changed)
    run_script(conn, "groups_resync", since, pages=quote(layout.table),
               rowid=quote(layout.rowid))
    run_script(conn, "group_keys_add", since, ids=changed)
    conn.execute("DELETE FROM _webdedup_changes WHERE seq <= ?", (plan.max_seq,))
    if writer.missed_changes:  # see Plan.tracked: the next run must be full
        set_meta(
            conn,
            MISSED,
            f"{layout.table!r} changed while the last run read it, before its changes "
            "were tracked: running a full pass once more",
        )
    elif plan.mode == "full" or ahead is not None:  # ahead: the mark write_ahead left
        conn.execute("DELETE FROM _webdedup_meta WHERE key = ?", (MISSED,))
    return WriteBackResult(written=written)


def _sketch_blocks_before(writer: _Writer) -> None:
    """In the transaction that claims the write, before the sketches are written: a full run
    makes the sketch blocks written before it invalid, an incremental one marks its rewritten
    pages stale in them (:mod:`~webdedup.store.sketch_blocks`; ``run_on_db`` writes them again
    after, while the write generation is still this run's)."""
    conn = writer.ctx.conn
    if writer.plan.mode == "incremental":
        if sketch_blocks.have_blocks(conn):
            conn.execute(sketch_blocks.mark_stale_sql())
    else:
        sketch_blocks.invalidate(conn, int(writer.generation or 0))


def _queue_unseen(writer: _Writer, spacer: _Spacer) -> None:
    """Queue the rows added since the run's snapshot, before the triggers existed (a batched
    full run, after the triggers' transaction): found without the lock (a pass over the
    table's rowids, long on a big table), then queued in one short transaction. A row found
    that the triggers queued too is queued twice: a run reads the queue's distinct ids."""
    ctx = writer.ctx
    conn, layout = ctx.conn, ctx.layout
    run_script(conn, "unseen_find", pages=quote(layout.table), rowid=quote(layout.rowid))
    with spacer.transaction("unseen"):
        _check(writer)
        conn.execute(
            "INSERT INTO _webdedup_changes (id, op) SELECT id, 'insert' FROM temp.run_unseen"
        )
    conn.execute("DROP TABLE temp.run_unseen")


def _claim(writer: _Writer) -> None:
    """Check that no other run wrote since this one read (or wrote last), and say this one
    writes now (inside a write transaction)."""
    _check(writer)
    writer.generation = str(int(writer.generation or 0) + 1)
    set_meta(writer.ctx.conn, GENERATION, writer.generation)


def _check(writer: _Writer) -> None:
    if meta_value(writer.ctx.conn, GENERATION) != writer.generation:
        raise ConcurrentRun(
            "another webdedup run wrote to this database while this one was running; "
            "this run stopped without finishing its write (the next run makes up for it): "
            "run 'webdedup db' again, one run at a time"
        )


def write_back_sql(layout: Layout) -> str:
    """``sql/write_back.sql`` for the output columns webdedup owns on this table (not the
    crawler's own ``content_hash``: ``layout.crawler_columns``)."""
    mine = [c for c in OUTPUT_COLUMNS if c not in layout.crawler_columns]
    pages = quote(layout.table)
    return sql(
        "write_back",
        pages=pages,
        url=quote(layout.url),
        rowid=quote(layout.rowid),
        set=",\n    ".join(f"{quote(c)} = w.{quote(c)}" for c in mine),
        old=", ".join(f"{pages}.{quote(c)}" for c in mine),
        new=", ".join(f"w.{quote(c)}" for c in mine),
    )


def _groups_rows(
    conn: sqlite3.Connection, temp: str, where: str, params: dict[str, object]
) -> None:
    """One batch of an incremental run's groups rows (``where`` ``"1"``: all of them): the ids
    of ``temp.<temp>`` in ``where``, gone (``run_groups_gone``) or changed
    (``run_groups_changed``: replaced by its rows). Their stored rows of the group and kind
    tables go first, the changed rows' new ones in after (``group_keys_drop.sql``,
    ``group_keys_add.sql``)."""
    ids = f"SELECT id FROM temp.{quote(temp)} WHERE {where}"
    run_script(conn, "group_keys_drop", params, ids=ids)
    if temp == "run_groups_gone":
        conn.execute(f"DELETE FROM main._webdedup_groups WHERE id IN ({ids})", params)
        return
    columns = "id, dup_group, dup_kind, is_canonical, dup_score"
    conn.execute(f"INSERT OR REPLACE INTO main._webdedup_groups ({columns}) "
                 f"SELECT {columns} FROM temp.{quote(temp)} WHERE {where}", params)
    run_script(conn, "group_keys_add", params, ids=ids)


def _execute(
    conn: sqlite3.Connection, prefix: str, where: str, params: dict[str, object], end: str = ""
) -> None:
    conn.execute(prefix + where + end, params)


def _clear(conn: sqlite3.Connection, table: str, where: str, params: dict[str, object]) -> None:
    """Delete a key range of ``table``; all of it for ``where`` ``"1"`` without a ``WHERE``,
    which SQLite does by dropping the table's pages, not row by row (a table of a million
    rows, with its indexes: seconds under the lock)."""
    if where == "1":
        conn.execute(f"DELETE FROM {table}")
    else:
        conn.execute(f"DELETE FROM {table} WHERE {where}", params)


def _copy_whole(conn: sqlite3.Connection, copy: StateCopy) -> None:
    """One state table replaced in one statement: SQLite copies rows and index entries as
    they are between tables of the same columns and indexes (``write_prepare_full``)."""
    conn.execute(f"DELETE FROM main.{quote(copy.main)}")
    if copy.same_columns:
        conn.execute(f"INSERT INTO main.{quote(copy.main)} SELECT * FROM temp.{quote(copy.temp)}")
        return
    columns = table_columns(conn, copy.main)
    order = ", ".join(quote(c) for c in _primary_key(conn, copy.main))
    listed = ", ".join(quote(c) for c in columns)
    conn.execute(
        f"INSERT INTO main.{quote(copy.main)} ({listed}) SELECT {listed} "
        f"FROM temp.{quote(copy.temp)} ORDER BY {order}"
    )


def _batches(
    writer: _Writer,
    temp: str,
    key: Sequence[str],
    spacer: _Spacer,
    write: Callable[[str, dict[str, object]], object],
    first: Callable[[], object] | None = None,
    clear: Callable[[str, dict[str, object]], object] | None = None,
    step: str = "",
    warm: Callable[[dict[str, object]], object] | None = None,
) -> None:
    """Walk ``temp.<temp>`` in ``key`` order a batch at a time, each batch written by
    ``write(condition, parameters)`` inside its own timed write transaction (``spacer``).

    The parameters also carry the piece's bounds as ``:lo`` and ``:hi`` (both inclusive) when
    ``key`` is one integer (the ``write_back`` statement's form).
    ``first()`` runs in the first batch's transaction (in one of its own when there is no
    row). ``clear(condition, parameters)``, before each ``write``, gets the piece's key range
    alone (no ``ORDER BY``): the ranges of all batches together cover every key, so a
    table cleared by it a range at a time is cleared whole (at once when there is no row).
    The batch after a timed one is sized to take about :data:`BATCH_AIM` ``write_lock``
    seconds (room for a slower one) at the slowest time a row of the last
    :data:`RATE_WINDOW` batches, growing at most twofold from one batch to the next
    (eightfold while batches take under a twentieth of that). A batch is written in
    :data:`PIECES` statements and ends early when the next piece, at the pace of the ones
    before it, would hold the lock past ``write_lock``: ``clear`` and ``write`` get a piece's
    range and bounds, and the next batch starts after the last piece written. A batch's time
    a row is its own or its slowest piece's, whichever is longer. The pieces' bounds are
    found before the lock. ``step`` names
    the transactions in the run's lock timings (``temp`` if not given). ``warm(parameters)``,
    when given, runs before each batch's transaction, outside it, with the whole batch's
    ``:lo`` and ``:hi`` (:func:`_warm_rows_sql`; an integer key's).
    """
    step = step or temp
    ctx = writer.ctx
    conn, target = ctx.conn, float(ctx.config.write_lock)
    cols = ", ".join(quote(c) for c in key)
    marks = ", ".join(f":{n}" for n in _names("a", key))
    ends = ", ".join(f":{n}" for n in _names("b", key))
    source = f"temp.{quote(temp)}"
    if conn.execute(f"SELECT 1 FROM {source} LIMIT 1").fetchone() is None:
        if first is not None or clear is not None:
            with spacer.transaction(step):
                _check(writer)
                if first is not None:
                    first()
                if clear is not None:
                    clear("1", {})
        return

    def span(after: tuple[object, ...] | None, rows: int
             ) -> tuple[str, dict[str, object], tuple[object, ...] | None]:
        """The next ``rows`` keys after ``after``: their condition, its parameters and the
        last key (None: they reach the table's end)."""
        lower = "1" if after is None else f"({cols}) > ({marks})"
        params: dict[str, object] = dict(zip(_names("a", key), after or (), strict=False))
        upto = conn.execute(
            f"SELECT {cols} FROM {source} WHERE {lower} ORDER BY {cols} LIMIT 1 OFFSET :n",
            params | {"n": rows - 1},
        ).fetchone()
        upper = "1" if upto is None else f"({cols}) <= ({ends})"
        params |= dict(zip(_names("b", key), upto or (), strict=False))
        if len(key) == 1 and all(isinstance(k[0], int) for k in (after, upto) if k):
            params["lo"] = _LOWEST if after is None else int(after[0]) + 1  # type: ignore[call-overload]
            params["hi"] = _HIGHEST if upto is None else upto[0]
        within = " AND ".join(c for c in (lower, upper) if c != "1") or "1"
        return within, params, None if upto is None else tuple(upto)

    after: tuple[object, ...] | None = None
    per_row: deque[float] = deque(maxlen=RATE_WINDOW)  # seconds a row of the last batches
    # the first batch as if its rows were page rows, at WRITE_RATE; then as measured
    rows = max(MIN_BATCH, min(FIRST_BATCH, int(target * WRITE_RATE / _row_bytes(ctx))))
    while True:
        if ctx.on_phase is not None:  # between two transactions (the tests kill here)
            ctx.on_phase("write_batch")
        # the pieces' bounds before the lock: a walk of the TEMP table, whose pages may be
        # read from the disk (those of the pieces not written are dropped)
        pieces: list[tuple[int, str, dict[str, object], tuple[object, ...] | None]] = []
        start_at, left = after, rows
        size = max(MIN_BATCH, -(-rows // PIECES))
        while left > 0 and (not pieces or pieces[-1][3] is not None):
            n = min(size, left)
            pieces.append((n, *span(start_at, n)))
            start_at, left = pieces[-1][3], left - n
        if warm is not None:  # the whole batch: from its first piece's :lo to its last's :hi
            warm({"lo": pieces[0][2].get("lo"), "hi": pieces[-1][2].get("hi")})
        done, end, slowest = 0, False, 0.0  # slowest: seconds a row of the slowest piece
        with spacer.transaction(step) as took:
            start = _clock()
            _check(writer)
            if first is not None and after is None:
                first()
            for n, within, params, upto in pieces:
                before = _clock()
                if done and (before - start) * (done + n) / done > target:
                    break  # one more piece at this batch's pace would hold the lock too long
                if clear is not None:
                    clear(within, params)
                write(f"{within} ORDER BY {cols}", params)
                slowest = max(slowest, (_clock() - before) / n)
                done += n
                end, after = upto is None, upto
        if end:
            return
        # the batch's time a row, or its slowest piece's if slower (the pace it ended at)
        per_row.append(max(took.seconds / done, slowest, 1e-6 / done))
        aim = BATCH_AIM * target / (max(per_row) * done)
        rows = max(MIN_BATCH, int(done * min(8.0 if aim > 12 else 2.0, max(0.25, aim))))


@dataclass
class _Took:
    seconds: float = 0.0


class _Spacer:
    """Timed write transactions with a pause for whoever waited meanwhile: :data:`PAUSE`
    once the lock was held for :data:`HELD_BEFORE_PAUSE` seconds (or ``write_lock``, if
    shorter) since the last pause. A crawler thus waits about that long at most, however
    many short transactions follow one another, and short ones do not pause each. When the
    run opened the connection and turned SQLite's automatic checkpoints off
    (``RunContext.checkpoints``; never on a caller's connection), commits ask
    :class:`_Checkpointer` for a passive checkpoint of ``main``, made while the next batches
    are written (about :data:`BESIDE_CHECKPOINTS` in the write), and after
    :data:`CHECKPOINT_AFTER` seconds of holds the write waits for one to catch up — sooner,
    once :data:`WAL_ROOM` bytes were written since the last, when the next batch could
    write past the end of the WAL file (where :class:`_ThreadWrites` can count them)."""

    def __init__(self, writer: _Writer) -> None:
        self.writer, self.held, self.unchecked, self.unasked = writer, 0.0, 0.0, 0.0
        conn = writer.ctx.conn
        wal = conn.execute("PRAGMA main.journal_mode").fetchone()[0] == "wal"
        path = _main_file(conn)
        self.checkpointer = (
            _Checkpointer(path, float(writer.ctx.config.busy_timeout))
            if CHECKPOINTS and writer.ctx.checkpoints and wal and path else None
        )
        # the WAL written since the last catch-up, and what the last batches each wrote
        self.writes = _ThreadWrites.here() if self.checkpointer is not None else None
        self.wal_path = f"{path}-wal" if self.writes is not None else ""
        self.since_catch_up = 0
        self.batch_bytes: deque[int] = deque(maxlen=RATE_WINDOW)
        # seconds of holds between two checkpoints asked for beside the write: about
        # BESIDE_CHECKPOINTS in the whole write, as estimated
        self.spacing = writer.write_bytes / WRITE_RATE / BESIDE_CHECKPOINTS

    @contextmanager
    def transaction(self, step: str) -> Iterator[_Took]:
        took = _Took()
        wrote = self._written()
        with self.writer.hold(step):
            start = time.perf_counter()  # holding the lock from here (BEGIN may have waited)
            yield took
        took.seconds = time.perf_counter() - start
        self.held += took.seconds
        self.unchecked += took.seconds
        self.unasked += took.seconds
        if wrote is not None and (now := self._written()) is not None:
            self.batch_bytes.append(now - wrote)
            self.since_catch_up += self.batch_bytes[-1]
        if self.checkpointer is not None and (
            self.unchecked >= CHECKPOINT_AFTER or self._next_batch_could_grow_the_wal()
        ):
            # all of it copied (unless a reader's snapshot still needs some): the next batch
            # can start the WAL over
            self.checkpointer.catch_up()
            self.unchecked = self.unasked = 0.0
            self.since_catch_up = 0
        elif self.checkpointer is not None and self.unasked >= self.spacing:
            self.checkpointer.request()  # the frames committed, copied while the next batch goes
            self.unasked = 0.0
        limit = min(HELD_BEFORE_PAUSE, float(self.writer.ctx.config.write_lock))
        if self.held >= limit:
            time.sleep(min(PAUSE, limit))
            self.held = 0.0

    def _written(self) -> int | None:
        """The run thread's bytes written so far, or None without a meter (one that fails
        is dropped: the count only spaces the catch-ups, and the time rule stays)."""
        if self.writes is None:
            return None
        try:
            return self.writes.bytes()
        except (OSError, StopIteration, ValueError):
            self.writes = None
            return None

    def _next_batch_could_grow_the_wal(self) -> bool:
        """Whether the next batch could write past the end of the WAL file, once
        :data:`WAL_ROOM` bytes were written since the last catch-up: a batch is sized at
        most twice the one before (eightfold only while batches are very short, and so
        small), so twice the most the last few wrote."""
        if self.writes is None or not self.batch_bytes or self.since_catch_up < WAL_ROOM:
            return False
        try:
            size = os.stat(self.wal_path).st_size  # (a stat opens no descriptor of it)
        except OSError:
            return False
        return self.since_catch_up + 2 * max(self.batch_bytes) > size

    def close(self, quiet: bool = False) -> None:
        """Wait for the checkpoint under way (its error, if it failed, raised here unless
        ``quiet``)."""
        if self.checkpointer is not None:
            self.checkpointer.close(quiet)


class _ThreadWrites:
    """The bytes the thread that calls :meth:`bytes` has handed to ``write`` so far
    (Linux's ``/proc/thread-self/io``, ``wchar``): during a write transaction on the run's
    thread, the WAL frames SQLite writes, and any TEMP pages it spills to a file (a count
    too high at worst: a catch-up comes sooner). The checkpoints beside are another
    thread's."""

    PATH = "/proc/thread-self/io"

    @classmethod
    def here(cls) -> _ThreadWrites | None:
        """A meter, or None where the system gives no such count."""
        meter = cls()
        try:
            meter.bytes()
        except (OSError, StopIteration, ValueError):
            return None
        return meter

    def bytes(self) -> int:
        with open(self.PATH, "rb") as f:
            return next(int(line.split()[1]) for line in f if line.startswith(b"wchar:"))


def _main_file(conn: sqlite3.Connection) -> str:
    """The file of the connection's ``main`` database ("" for one in memory)."""
    return next((str(r[2] or "") for r in conn.execute("PRAGMA database_list") if r[1] == "main"),
                "")


class _Checkpointer:
    """Passive checkpoints of the database while the batched write goes on: a thread with a
    connection of its own copies the WAL's committed frames back into the database (and
    syncs it) while the next batch rewrites rows. Done on the run's connection between two
    batches, that copy and its sync stopped the write (on a disk, the run's last one alone
    took as long as the write-back of 20,000 pages). A passive checkpoint waits for no one
    and takes no write lock: a crawler's commit goes on meanwhile; it copies no frame that
    a reader's snapshot still needs. Requests made while one runs are met by one more
    after it.

    A checkpoint that runs beside the writer rarely catches up with it, and the WAL starts
    over only after one did: :meth:`catch_up` (every :data:`CHECKPOINT_AFTER` seconds of
    holds, or sooner by :data:`WAL_ROOM`) waits, between two batches, for one begun after
    it was called (which copies everything but the frames a reader's snapshot still
    needs)."""

    def __init__(self, path: str, busy_timeout: float) -> None:
        self._path, self._timeout = path, busy_timeout
        self._changed = threading.Condition()
        self._asked = 0  # requests so far (each a number)
        self._met = 0  # the number of the last request met by a finished checkpoint
        self._stopping = False
        self._error: BaseException | None = None
        self.checkpoints = 0
        self._thread = threading.Thread(target=self._loop, name="webdedup-checkpoints",
                                        daemon=True)
        self._thread.start()

    def request(self) -> int:
        """Ask for a checkpoint (without waiting); returns the request's number."""
        with self._changed:
            self._asked += 1
            self._changed.notify_all()
            return self._asked

    def catch_up(self) -> None:
        """Wait for a checkpoint begun after now (its error, if it failed, raised here)."""
        asked = self.request()
        with self._changed:
            while self._met < asked and self._error is None and self._thread.is_alive():
                self._changed.wait()
        self._raise()

    def _loop(self) -> None:
        conn: sqlite3.Connection | None = None
        try:  # (SQLite's own connection: the crawler's locks on the file are kept)
            conn = sqlite3.connect(self._path, timeout=self._timeout, isolation_level=None,
                                   check_same_thread=False)
            while True:
                with self._changed:
                    while self._met == self._asked and not self._stopping:
                        self._changed.wait()
                    if self._stopping:
                        break
                    meets = self._asked  # every request made before it begins
                conn.execute("PRAGMA main.wal_checkpoint(PASSIVE)").fetchall()
                with self._changed:
                    self._met = meets
                    self.checkpoints += 1
                    self._changed.notify_all()
        except BaseException as exc:  # raised in the run's thread (catch_up, close)
            with self._changed:
                self._error = exc
                self._changed.notify_all()
        finally:
            if conn is not None:
                conn.close()

    def close(self, quiet: bool = False) -> None:
        """Stop after the checkpoint under way; raise its error, if it failed (unless
        ``quiet``)."""
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        self._thread.join()
        if not quiet:
            self._raise()

    def _raise(self) -> None:
        error = self._error
        if error is None:
            return
        if isinstance(error, sqlite3.Error):
            raise translate(error, self._path) from error
        raise error


def _names(prefix: str, key: Sequence[str]) -> list[str]:
    return [f"{prefix}{i}" for i in range(len(key))]


def _primary_key(conn: sqlite3.Connection, table: str) -> list[str]:
    rows = conn.execute(f"PRAGMA main.table_info({quote(table)})").fetchall()
    return [r[1] for r in sorted(rows, key=lambda r: r[5]) if r[5]]
