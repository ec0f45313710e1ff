"""One run over a crawl database: the phases in order, on one read snapshot, then one write.

Phases 1-4 read ``pages`` inside one read transaction and write only to TEMP work tables, so
a run killed at any point before the write leaves the database exactly as it was. Phase 5 is
one short ``BEGIN IMMEDIATE`` transaction; a write too large for ``Config.write_lock`` is
split into transactions of about that length (:mod:`.phase5_write_back`), after which a run
killed halfway leaves the next run a full one.

Example::

    >>> from webdedup.config import Config
    >>> result = run_on_db(":memory:", Config())  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    webdedup.errors.NoPagesTable: the database has no table 'pages' (tables found: none); ...
"""

from __future__ import annotations

import gc
import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol

from ..algorithms.sketch import NearSpec, sketch_width
from ..algorithms.text import compiled
from ..config import Columns, Config
from ..errors import ConfigError, DatabaseLocked, InputError, WebdedupError
from ..incremental import plan as planning
from ..incremental import region
from ..parallel import cpu_count
from ..store import (
    check_schema,
    connect,
    decode_text,
    integer_primary_key,
    quote,
    run_script,
    sketch_blocks,
    sql,
    table_exists,
    translate,
    use_wal,
)
from ..store.connection import data_version, transaction
from ..store.counts import Counts
from ..store.counts import count as count_pages
from ..store.layout import CrawlerTable, Layout
from ..store.pages import rowid_bounds
from ..store.snapshot import CommitWatch, database_file
from ..store.state import host_pages, meta_value, set_meta
from ..store.triggers import unmirrored_keys
from ..version import __version__
from ..words import plural
from . import (
    phase1_prepare,
    phase2_elect_urls,
    phase3_elect_exact,
    phase4_near,
    phase4_vectors,
    phase5_write_back,
    readers,
    segments,
)
from .char_cache import load_char_table
from .context import (
    NearResult,
    PhaseHook,
    RunContext,
    WriteBackResult,
    keep_large_blocks_mapped,
    load_verdicts,
)
from .phase4_window import WindowScores
from .prune import keep_winners
from .prune import prune as phase_prune
from .readers import Readers


@dataclass
class RunResult:
    """What a run did (also stored as a row of ``_webdedup_runs``)."""

    run_id: int
    mode: str
    method: str
    pages: int
    processed: int
    ignored: int
    url_duplicates: int
    exact_duplicates: int
    near_duplicates: int
    #: groups of two or more pages (the vocabulary of :mod:`webdedup.store.counts`)
    groups: int
    renumbered: int
    pruned: int
    candidates: int
    edges: int
    wall_seconds: float
    timings: dict[str, float] = field(default_factory=dict)
    #: each phase's counts (pages prepared, election losers, candidates, rows written...)
    phases: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the whole table's counts after the run, before any pruning (:class:`Counts`)
    counts: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """A few human lines for the end of ``webdedup db``."""
        found = Counts.from_mapping(self.counts).line() if self.counts else plural(
            self.pages, "page"
        )
        return (
            f"{found}\n"
            f"{self.mode} run over {plural(self.processed, 'page')} in {self.wall_seconds:.2f} s"
        )


class Loaded(Protocol):
    """Results computed elsewhere (``webdedup daft``) that stand in for phases 1-4."""

    def check(self, conn: sqlite3.Connection, config: Config, layout: Layout) -> None:
        """Raise when they do not fit the database (before anything is written)."""

    def fill(self, ctx: RunContext) -> NearResult:
        """Fill the TEMP tables phases 1-4 leave (inside the run's read snapshot)."""


def _count(conn: sqlite3.Connection, query: str) -> int:
    return int(conn.execute(query).fetchone()[0])


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run_on_db(
    db: str | Path | sqlite3.Connection,
    config: Config,
    *,
    prune: bool = False,
    full: bool = False,
    progress: bool = False,
    on_phase: PhaseHook | None = None,
    on_message: Callable[[str], None] | None = None,
    loaded: Loaded | None = None,
    winners_only: bool = False,
) -> RunResult:
    """Run the phases over ``db`` and annotate its pages (see :class:`Deduplicator`).

    The first run is full; later runs process only the pages changed since (incremental),
    unless ``full`` is asked or the configuration that shapes signatures and edges changed.
    ``loaded``: results of phases 1-4 computed elsewhere (``webdedup db --assignments``),
    written back as a full run's. ``winners_only``: then only the winners stay in the table,
    their URL canonical (:func:`~webdedup.pipeline.prune.keep_winners`, what calling a
    ``Deduplicator`` on a database does), the rest restorable.
    """
    own = not isinstance(db, sqlite3.Connection)
    # an adopted connection gets its transaction handling back (connect() turns it off)
    old_isolation = None if own else db.isolation_level  # type: ignore[union-attr]
    where = str(db) if own else "the database"
    conn = connect(db, busy_timeout=config.busy_timeout)
    started, t0 = _now(), time.perf_counter()
    old_factory = conn.text_factory
    conn.text_factory = decode_text  # an adopted connection gets its own factory back below
    try:
        check_schema(conn)
        found = CrawlerTable.resolve(conn, config.columns, where, remember=True)
        if found.remembered:
            config = replace(config, columns=found.columns)
            if on_message is not None:
                on_message(f"using the table and columns of the last run ({_mapped(found)})")
        layout, foreign = found.layout, found.foreign
        if foreign:
            raise InputError(
                f"table {layout.table!r} already has column(s) {', '.join(foreign)}, which "
                "webdedup writes its results into, and webdedup did not create them: refusing "
                f"to overwrite the crawler's data. Rename them (ALTER TABLE {quote(layout.table)}"
                f" RENAME COLUMN {quote(foreign[0])} TO ...), or drop them if an earlier "
                "webdedup run whose state was removed wrote them."
            )
        spec = config.near_spec()  # built once, used by every phase
        if loaded is not None:
            if config.strip_segments:  # 'webdedup daft' neither counts nor strips segments
                raise ConfigError(
                    "--strip-segments cannot apply the results of 'webdedup daft', which does "
                    "not strip segments; run 'webdedup db' without --assignments instead"
                )
            loaded.check(conn, config, layout)
        if own:  # the checks passed and the run is going to write: only now touch the file
            use_wal(conn, config.busy_timeout)
            # no checkpoint inside the commit: the run checkpoints after it (see below)
            conn.execute("PRAGMA wal_autocheckpoint = 0")
        ctx = RunContext(conn, config, layout, spec, progress=progress, on_phase=on_phase,
                         checkpoints=own)
        keep_large_blocks_mapped()  # (before any worker is forked)
        if loaded is None:
            snap = _run_phases(ctx, full, on_message)
        else:
            snap = _loaded_phases(ctx, loaded, on_message)
        plan, near = snap.plan, snap.near

        done: list[RunResult] = []

        def finish(written: WriteBackResult) -> None:  # inside phase 5's last transaction
            ctx.record("write_back", written)
            # what was found, before pruning: counted here only when pruning (a prune holds
            # the lock for a pass over the table anyway); else once the lock is released
            counts = _counts(conn, layout, ctx) if winners_only or prune else None
            pruned = 0
            if winners_only:
                pruned, _ = keep_winners(conn, layout)
            elif prune:
                pruned = phase_prune(conn, layout.table)
            row = RunResult(
                run_id=0,
                mode=plan.mode,
                method=config.method,
                pages=ctx.total_pages,
                processed=snap.processed,
                ignored=counts.ignored if counts else 0,
                url_duplicates=counts.url_duplicates if counts else 0,
                exact_duplicates=counts.exact_duplicates if counts else 0,
                near_duplicates=counts.near_duplicates if counts else 0,
                groups=counts.groups if counts else 0,
                renumbered=snap.renumbered,
                pruned=pruned,
                candidates=near.candidates,
                edges=near.edges,
                wall_seconds=round(time.perf_counter() - t0, 4),
                timings=dict(ctx.timings),
                counts=counts.as_dict() if counts else {},
            )
            row.run_id = _record_run(conn, config, started, row)
            done.append(row)
            if on_phase is not None:
                on_phase("commit")

        written = phase5_write_back.run(ctx, finish)  # ends the read snapshot
        (result,) = done
        ctx.timings["write_lock"] = written.lock_seconds
        ctx.timings["write_lock_total"] = written.lock_seconds_total
        if written.transactions > 1:  # a batched write: which step held the lock longest
            ctx.timings |= {f"write_lock.{k}": v for k, v in written.lock_by_step.items()}
        if not result.counts:  # counted now, outside the lock; the run row then updated
            with ctx.step("counts"):  # (passes over the groups state)
                _record_counts(conn, result, _counts(conn, layout, ctx))
        # the sketch blocks a nightly run's region reads, written again where missing or stale
        # (their own short transactions, after the run's)
        with ctx.phase("sketch_blocks"):
            blocks = _refresh_blocks(conn, spec, written, own, on_message)
        if blocks.transactions:
            ctx.timings["write_lock.sketch_blocks"] = round(blocks.longest, 4)
            ctx.timings["write_lock"] = max(written.lock_seconds, round(blocks.longest, 4))
        if own:  # copy the WAL back into the file now, without blocking a crawler
            with ctx.phase("checkpoint"):
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        result.wall_seconds = round(time.perf_counter() - t0, 4)
        # now with write_back, write_lock and checkpoint (after the run row was written)
        result.timings = dict(ctx.timings)
        result.phases = {k: dict(v) for k, v in ctx.phase_counts.items()}
        return result
    except WebdedupError:
        raise
    except sqlite3.Error as exc:
        raise translate(exc, where) from exc
    finally:
        if own:
            conn.close()
        else:
            _drop_run_tables(conn)
            conn.text_factory = old_factory
            if not conn.in_transaction:
                conn.isolation_level = old_isolation


@dataclass(frozen=True)
class _Snapshot:
    """What phases 1-4 leave for the write, in the read snapshot they leave open: the plan,
    phase 4's result, the pages assigned, and the rowids found renumbered."""

    plan: planning.Plan
    near: NearResult
    processed: int
    renumbered: int


def _compile_kernels(config: Config, on_message: Callable[[str], None] | None) -> bool:
    """Compile the kernels now, with a word, where numba's cache lacks them: else the first
    run on a machine spends its first 20 seconds silent (in every worker at once). The
    nightly runs' own kernel too (``bands.warm_up``): else the first nightly run compiled it.
    Returns whether it compiled them."""
    if config.method not in ("minhash", "simhash"):
        return False
    from ..algorithms import bands
    from ..algorithms.text import compiled

    indexes = compiled().cache_indexes()
    if indexes is None or all(Path(p).exists() for p in indexes):
        return False
    if on_message is not None:
        on_message("compiling webdedup's kernels once for this machine (about 20 s; "
                   "later runs load them)")
    compiled().warm_up()
    bands.warm_up()  # what only nightly runs call, compiled now too
    return True


class _Collector:
    """Python's cycle collector over a run's phases 1-4: paused from their start while numba
    and the kernels load (hundreds of thousands of objects, which each collection meanwhile
    walked again), then every object alive frozen (``gc.freeze``) before the readers fork,
    so that no collection of this process or of the readers walks them again (nor writes
    their collector headers: fewer of the pages the readers share with this process are
    copied; their reference counts still change): ``webdedup db``
    on the 20k bench corpus 3.93 s without, 3.73 s with (``benchmarks.speed.bench_ab``,
    docs/benchmarks.md). Unfrozen when the phases end: meanwhile a cycle among those
    objects (a calling program's other threads' too) waits until then to be collected.
    A caller's own settings stand: a
    collector it turned off stays off, and where it froze objects itself nothing is frozen
    or unfrozen here."""

    def __init__(self) -> None:
        self.enabled = gc.isenabled()
        self.may_freeze = gc.get_freeze_count() == 0
        self.frozen = False
        self.compiled = False  # (set when the run compiled the kernels: no cache of them)
        gc.disable()

    def set_aside(self) -> None:
        """Freeze what is alive (once) and let the collector run again, before a fork;
        after a compilation of the kernels, its garbage collected first (numba leaves cycles
        behind: frozen, they would last the run)."""
        if self.may_freeze and not self.frozen:
            if self.compiled:
                gc.collect()
            gc.freeze()
            self.frozen = True
        if self.enabled:
            gc.enable()

    def end(self) -> None:
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
        if self.enabled:
            gc.enable()


def _run_phases(
    ctx: RunContext, full: bool, on_message: Callable[[str], None] | None
) -> _Snapshot:
    """Phases 1-4 and the assignment, inside one read snapshot; only TEMP tables written."""
    collector = _Collector()
    try:
        return _phases(ctx, full, on_message, collector)
    finally:
        collector.end()


def _phases(
    ctx: RunContext, full: bool, on_message: Callable[[str], None] | None, collector: _Collector
) -> _Snapshot:
    """:func:`_run_phases`' work, ``collector`` set aside before the readers fork."""
    conn, config, layout = ctx.conn, ctx.config, ctx.layout
    collector.compiled = _compile_kernels(config, on_message)  # (outside the snapshot: up
    # to 20 s on a new machine)
    watch = _commit_watch(ctx)  # before the snapshot begins (webdedup.store.snapshot)
    try:
        version = data_version(conn)
        conn.execute("BEGIN")  # one read snapshot for phases 1-5's reading
        plan = replace(planning.plan_run(conn, config, layout, full), data_version=version)
        ctx.plan = plan
        verdicts = load_verdicts(conn)  # the elections and phase 4 honour them
        if on_message is not None:
            on_message(f"{plan.mode} run: {plan.reason}")
            for name in unmirrored_keys(conn, layout.table):
                on_message(
                    f"note: the UNIQUE index {name!r} on {layout.table!r} is on an expression "
                    "(or has a WHERE webdedup could not read): "
                    "a row an INSERT OR REPLACE deletes under it is not seen by the next "
                    "incremental run (run with --full after such upserts)"
                )
        renumbered = 0
        small_hosts = "small_hosts"
        if ctx.incremental:
            stable = integer_primary_key(conn, layout.table) is not None
            with ctx.step("pages_now"):  # (from the state and the queue: a pass over one)
                ctx.total_pages = planning.pages_now(conn, layout.table, plan.max_seq)
            changed, renumbered = planning.changed_ids(conn, layout, plan.max_seq, stable)
            ctx.readers = _start_readers(ctx, watch, len(changed), collector.set_aside)
            collector.set_aside()  # (done already when it forked readers)
            with ctx.phase("prepare"):
                ctx.record("prepare", phase1_prepare.run(ctx, only=changed))
            changed = changed | _segments(ctx, changed)  # and those whose stripped text changed
            with ctx.phase("region"):
                region.build_region(conn, config, ctx.spec, changed)
            small_hosts = "small_hosts_incremental"
        else:
            ctx.readers = _start_readers(ctx, watch, _rowid_span(conn, layout),
                                         collector.set_aside)
            collector.set_aside()
            if ctx.readers is None:  # (the readers count them as they read them)
                ctx.total_pages = _count(conn, f"SELECT count(*) FROM {quote(layout.table)}")
            with ctx.phase("prepare"):
                prepared = phase1_prepare.run(ctx)
                ctx.record("prepare", prepared)
            if ctx.readers is not None:
                ctx.total_pages = prepared.pages
            _segments(ctx, None)
            renumbered = _renumbered(conn)
        if config.n_min > 0:
            stored = {"host_pages": host_pages(conn)} if ctx.incremental else {}
            conn.execute(sql(small_hosts, **stored), {"n_min": config.n_min})
        window_scores: WindowScores = {}  # phase 4's, kept for its passes after the first
        while True:
            with ctx.phase("elect_url"):
                ctx.record("elect_url", phase2_elect_urls.run(ctx, verdicts))
            with ctx.phase("elect_exact"):
                ctx.record("elect_exact", phase3_elect_exact.run(ctx, verdicts))
            with ctx.phase("near"):
                if config.method == "vectors":
                    near = phase4_vectors.run(ctx, verdicts)
                else:
                    near = phase4_near.run(ctx, verdicts, window_scores)
            ctx.record("near", near)
            if not near.pull:
                break
            # levenshtein: the window links the region to more pages; take them in
            with ctx.phase("region"):
                region.grow_region(conn, near.pull)
            if config.n_min > 0:
                conn.execute(
                    sql("small_hosts_incremental", host_pages=host_pages(conn)),
                    {"n_min": config.n_min},
                )
        _stop_readers(ctx)  # (before the write: their snapshots would hold the WAL back)
        with ctx.phase("assign"):
            run_script(conn, "assign")
        (processed,) = conn.execute("SELECT count(*) FROM temp.run_assign").fetchone()
        return _Snapshot(plan, near, int(processed), renumbered)  # the snapshot stays open
    except BaseException as exc:
        _stop_readers(ctx, exc)
        if isinstance(exc, sqlite3.Error):
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise translate(exc) from exc
        raise
    finally:
        if watch is not None:
            watch.close()


def _commit_watch(ctx: RunContext) -> CommitWatch | None:
    """A watch on the database file for the run's readers, when the run may have workers
    and the database is a file they can open (see :mod:`.readers`)."""
    if ctx.config.workers == 1 or (ctx.config.workers == 0 and cpu_count() < 2):
        return None
    path = database_file(ctx.conn)
    if path is None:
        return None
    try:
        return CommitWatch(path, ctx.config.busy_timeout)
    except sqlite3.Error:  # the main process reads then, as without workers
        return None


def _rowid_span(conn: sqlite3.Connection, layout: Layout) -> int:
    """How many rowids lie between the table's first and last (its pages, at most; two
    look-ups, where counting them reads every page)."""
    bounds = rowid_bounds(conn, layout)
    return 0 if bounds is None else bounds[1] - bounds[0] + 1


def _start_readers(ctx: RunContext, watch: CommitWatch | None, pages: int,
                   before_fork: Callable[[], None]) -> Readers | None:
    """The run's readers, when it has a ``watch`` and ``pages`` enough for workers;
    ``before_fork()`` once the kernels are loaded, before they fork."""
    workers = phase1_prepare.worker_count(ctx.config, pages)
    if watch is None or workers < 2:
        return None
    if ctx.spec.method in ("minhash", "simhash"):
        compiled().warm_up()  # once here, inherited by the forked workers
    # here too: this process normalizes a sample of texts before phase 4's verification
    # (staging.sample_text_bytes), and built the table there, once more after the readers
    load_char_table()
    before_fork()
    return readers.start(watch, workers, setup=load_char_table)


def _stop_readers(ctx: RunContext, stopping: BaseException | None = None) -> None:
    """The readers' end: after their jobs, or at once when the run is ``stopping`` on an
    exception."""
    readers, ctx.readers = ctx.readers, None
    if readers is not None:
        readers.close(stopping)


def _segments(ctx: RunContext, changed: set[int] | None) -> set[int]:
    """Count the run's segments (an incremental run: those of its ``changed`` pages); with
    ``strip_segments``, sketch the pages that carry a repeated one again without it. Returns
    the unchanged pages that must count as changed (their repeated segments changed:
    :func:`segments.strip`)."""
    with ctx.phase("segments"):
        ctx.record("segments", segments.count(ctx, changed))
        if not ctx.config.strip_segments:
            return set()
        result, pulled = segments.strip(ctx)
        ctx.record("segments", result)
    return pulled


def _loaded_phases(
    ctx: RunContext, loaded: Loaded, on_message: Callable[[str], None] | None
) -> _Snapshot:
    """Phases 1-4 from results computed elsewhere, then the assignment, as a full run."""
    conn = ctx.conn
    try:
        version = data_version(conn)
        conn.execute("BEGIN")
        plan = planning.plan_run(conn, ctx.config, ctx.layout, True)
        reason = "results computed by 'webdedup daft' (--assignments)"
        plan = replace(plan, reason=reason, data_version=version)
        ctx.plan = plan
        if on_message is not None:
            on_message(f"{plan.mode} run: {plan.reason}")
        ctx.total_pages = _count(conn, f"SELECT count(*) FROM {quote(ctx.layout.table)}")
        with ctx.phase("load"):
            near = loaded.fill(ctx)
        ctx.record("near", near)
        with ctx.phase("assign"):
            run_script(conn, "assign")
        (processed,) = conn.execute("SELECT count(*) FROM temp.run_assign").fetchone()
        return _Snapshot(plan, near, int(processed), 0)  # the snapshot stays open
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise translate(exc) from exc
        raise


def _mapped(found: CrawlerTable) -> str:
    """The names of the last run's mapping that differ from the defaults (for the message
    that says a run reuses them)."""
    defaults = Columns()
    return ", ".join(
        f"{f.name}={getattr(found.columns, f.name)}"
        for f in fields(found.columns)
        if getattr(found.columns, f.name) != getattr(defaults, f.name)
    )


def _renumbered(conn: sqlite3.Connection) -> int:
    """Rows whose rowid now holds another URL than at the last run (VACUUM renumbering)."""
    if not table_exists(conn, "_webdedup_prepared"):
        return 0
    return _count(
        conn,
        "SELECT count(*) FROM temp.run_prepared AS r "
        "JOIN main._webdedup_prepared AS p ON p.id = r.id "
        "WHERE p.url_hash <> r.url_hash",
    )


def _record_run(conn: sqlite3.Connection, config: Config, started: str, r: RunResult) -> int:
    params = config.shaping_parameters() | {"webdedup_version": __version__}
    row = asdict(r) | {
        "started_at": started,
        "finished_at": _now(),
        "method": config.method,
        "fingerprint": config.fingerprint(),
        "params": json.dumps(params, sort_keys=True),
        "timings": json.dumps(r.timings),
    }
    cur = conn.execute(sql("record_run"), row)
    set_meta(conn, "fingerprint", config.fingerprint())
    set_meta(conn, "shaping", json.dumps(config.shaping_parameters(), sort_keys=True))
    set_meta(conn, "config", json.dumps(asdict(config), sort_keys=True, default=list))
    set_meta(conn, "webdedup_version", __version__)
    return int(cur.lastrowid or 0)


def _counts(conn: sqlite3.Connection, layout: Layout, ctx: RunContext) -> Counts:
    """The table's counts after the run (its pages as the run's snapshot counted them:
    counting the table again would read all of it)."""
    return count_pages(conn, layout.table, pages=ctx.total_pages)


def _refresh_blocks(
    conn: sqlite3.Connection,
    spec: NearSpec,
    written: WriteBackResult,
    own: bool,
    on_message: Callable[[str], None] | None,
) -> sketch_blocks.Refreshed:
    """The sketch blocks written again after the run's write (:func:`.sketch_blocks.refresh`),
    while the write generation is the one it claimed. They are a copy for the nightly pass:
    a crawler that keeps the lock past the busy timeout leaves them to the next run."""
    width = sketch_width(spec) if spec.method in ("minhash", "simhash") else None
    generation = written.generation

    def ours() -> bool:
        return meta_value(conn, phase5_write_back.GENERATION) == generation

    try:
        return sketch_blocks.refresh(conn, width, int(generation or 0), ours, checkpoint=own)
    except DatabaseLocked as exc:
        if on_message is not None:
            on_message(f"the sketch blocks were left for the next run to write ({exc})")
        return sketch_blocks.Refreshed(stopped=True)


def _record_counts(conn: sqlite3.Connection, result: RunResult, counts: Counts) -> None:
    """``counts`` into ``result`` and its row of ``_webdedup_runs`` (one short write)."""
    result.counts = counts.as_dict()
    result.ignored, result.groups = counts.ignored, counts.groups
    result.url_duplicates = counts.url_duplicates
    result.exact_duplicates = counts.exact_duplicates
    result.near_duplicates = counts.near_duplicates
    try:
        with transaction(conn):
            conn.execute(
                "UPDATE _webdedup_runs SET ignored = ?, url_duplicates = ?, exact_duplicates = ?, "
                "near_duplicates = ?, groups = ? WHERE id = ?",
                (counts.ignored, counts.url_duplicates, counts.exact_duplicates,
                 counts.near_duplicates, counts.groups, result.run_id),
            )
    except DatabaseLocked:  # the run is written and committed: its row keeps zero counts
        pass


def _drop_run_tables(conn: sqlite3.Connection) -> None:
    """Drop the run's TEMP work tables from a connection the caller keeps using."""
    try:
        names = [r[0] for r in conn.execute(sql("run_table_names"))]
        for name in names:
            conn.execute(f"DROP TABLE IF EXISTS temp.{quote(name)}")
    except sqlite3.Error:  # pragma: no cover - best effort cleanup
        pass
