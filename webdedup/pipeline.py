"""One run over a crawl database: the phases in order, on one read snapshot, then one write.

Phases 1-4 read ``pages`` inside one read transaction and write only to TEMP work tables, so
a run killed at any point before the final commit leaves the database exactly as it was.
Phase 5 is one short ``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tqdm import tqdm

from . import __version__
from .config import Columns, Config
from .errors import InputError, MissingColumn, NoPagesTable, WebdedupError
from .phases import elect, incremental, near, prepare, write_back
from .phases.prepare import url_hash
from .store import (
    check_schema,
    connect,
    decode_text,
    integer_primary_key,
    is_without_rowid,
    quote,
    run_script,
    sql,
    table_columns,
    table_exists,
    transaction,
    translate,
)

PhaseHook = Callable[[str], None]


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
    groups: int
    renumbered: int
    pruned: int
    candidates: int
    edges: int
    wall_seconds: float
    timings: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        """A few human lines for the end of ``webdedup db``."""
        return (
            f"{self.pages:,} pages ({self.ignored:,} ignored), "
            f"{self.url_duplicates:,} URL duplicates, {self.exact_duplicates:,} exact duplicates, "
            f"{self.near_duplicates:,} near-duplicates in {self.groups:,} groups; "
            f"{self.mode} run over {self.processed:,} pages in {self.wall_seconds:.2f} s"
        )


@dataclass
class RunContext:
    """What every phase gets: the connection, the configuration and the input layout."""

    conn: sqlite3.Connection
    config: Config
    table: str
    present: dict[str, str | None]
    total_pages: int
    progress: bool = False
    on_phase: PhaseHook | None = None
    timings: dict[str, float] = field(default_factory=dict)
    incremental: bool = False
    scratch: dict[str, Any] = field(default_factory=dict)  # what a phase keeps for a rerun

    def bar(self, desc: str, total: int | None = None, unit: str = "it") -> tqdm:
        return tqdm(
            total=total,
            desc=f"{desc:<12}",
            unit=unit,
            disable=not self.progress,
            file=sys.stderr,
            leave=True,
            dynamic_ncols=True,
        )

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        if self.on_phase is not None:
            self.on_phase(name)
        start = time.perf_counter()
        try:
            yield
        finally:
            spent = time.perf_counter() - start  # a phase run again adds up
            self.timings[name] = round(self.timings.get(name, 0.0) + spent, 4)


def resolve_columns(
    conn: sqlite3.Connection, columns: Columns, where: str
) -> dict[str, str | None]:
    """Map webdedup's logical input columns to the table's real ones (None when absent)."""
    table = columns.table
    if not table_exists(conn, table):
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        found = ", ".join(tables) if tables else "none"
        raise NoPagesTable(
            f"{where} has no table {table!r} (tables found: {found}); "
            "name the crawler's table with --table"
        )
    if is_without_rowid(conn, table):
        raise InputError(f"table {table!r} is WITHOUT ROWID; webdedup needs a rowid table")
    have = table_columns(conn, table)
    present: dict[str, str | None] = {}
    for logical in ("url", "content", "html", "title", "crawled", "category"):
        real = getattr(columns, logical)
        present[logical] = real if real in have else None
    present["datetime"] = (
        columns.datetime
        if columns.datetime in have
        else columns.date
        if columns.date in have
        else None
    )
    if present["url"] is None:
        raise MissingColumn(
            f"table {table!r} has no URL column {columns.url!r}; columns found: "
            f"{', '.join(have)}. Map it with --column url=NAME"
        )
    if present["content"] is None and present["html"] is None:
        raise MissingColumn(
            f"table {table!r} has no text column {columns.content!r} (nor an HTML column "
            f"{columns.html!r}); columns found: {', '.join(have)}. "
            "Map it with --column content=NAME"
        )
    return present


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
) -> RunResult:
    """Run the phases over ``db`` and annotate its pages (see :class:`Deduplicator`).

    The first run is full; later runs process only the pages changed since (incremental),
    unless ``full`` is asked or the configuration that shapes signatures and edges changed.
    """
    own = not isinstance(db, sqlite3.Connection)
    where = str(db) if own else "the database"
    conn = connect(db, busy_timeout=config.busy_timeout)
    started, t0 = _now(), time.perf_counter()
    old_factory = conn.text_factory
    conn.text_factory = decode_text  # an adopted connection gets its own factory back below
    try:
        conn.create_function("webdedup_url_hash", 1, _url_hash_sql, deterministic=True)
        check_schema(conn)
        present = resolve_columns(conn, config.columns, where)
        table = config.columns.table
        foreign = write_back.foreign_output_columns(conn, table)
        if foreign:
            names = ", ".join(foreign)
            raise InputError(
                f"table {table!r} already has column(s) {names}, which webdedup writes its "
                "results into, and webdedup did not create them: refusing to overwrite the "
                f"crawler's data. Rename them (ALTER TABLE {quote(table)} RENAME COLUMN "
                f"{quote(foreign[0])} TO ...), or drop them if an earlier webdedup run whose "
                "state was removed wrote them."
            )
        ctx = RunContext(conn, config, table, present, 0, progress, on_phase)
        try:
            version_before = _data_version(conn)
            conn.execute("BEGIN")  # one read snapshot for phases 1-4
            plan = incremental.plan_run(conn, config, table, present, full)
            ctx.incremental = plan.mode == "incremental"
            if on_message is not None:
                on_message(f"{plan.mode} run: {plan.reason}")
            ctx.total_pages = _count(conn, f"SELECT count(*) FROM {quote(table)}")
            renumbered = 0
            if ctx.incremental:
                stable = integer_primary_key(conn, table) is not None
                changed, renumbered = incremental.changed_ids(
                    conn, table, present["url"] or "url", plan.max_seq, stable
                )
                with ctx.phase("prepare"):
                    prepare.run(ctx, only=changed)
                with ctx.phase("region"):
                    incremental.build_region(ctx, changed)
                if config.n_min > 0:
                    conn.execute(sql("small_hosts_incremental"), {"n_min": config.n_min})
            else:
                with ctx.phase("prepare"):
                    prepare.run(ctx)
                renumbered = _renumbered(conn)
                if config.n_min > 0:
                    conn.execute(sql("small_hosts"), {"n_min": config.n_min})
            while True:
                with ctx.phase("elect_url"):
                    elect.run_url(ctx)
                with ctx.phase("elect_exact"):
                    elect.run_exact(ctx)
                with ctx.phase("near"):
                    near_stats = near.run(ctx)
                if not near_stats.get("pull"):
                    break
                # levenshtein: the window links the region to more pages; take them in
                with ctx.phase("region"):
                    incremental.grow_region(ctx, near_stats["pull"])
                if config.n_min > 0:
                    conn.execute(sql("small_hosts_incremental"), {"n_min": config.n_min})
            with ctx.phase("assign"):
                run_script(conn, "assign")
            (processed,) = conn.execute("SELECT count(*) FROM temp.run_assign").fetchone()
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise translate(exc, where) from exc
        pruned = 0
        with ctx.phase("write_back"), transaction(conn):
            # another connection committed since the snapshot while nothing queued changes:
            # updated rows cannot be told apart, so the next run must be full
            missed = not plan.tracked and _data_version(conn) != version_before
            write_back.run(ctx, plan, missed)
            if prune:
                pruned = write_back.prune(conn, table)
            counts = _table_counts(conn, table)
            wall = round(time.perf_counter() - t0, 4)
            result = RunResult(
                run_id=0,
                mode=plan.mode,
                method=config.method,
                pages=ctx.total_pages,
                processed=processed,
                ignored=counts["ignored"],
                url_duplicates=counts["url"],
                exact_duplicates=counts["exact"],
                near_duplicates=counts["near"],
                groups=counts["groups"],
                renumbered=renumbered,
                pruned=pruned,
                candidates=near_stats["candidates"],
                edges=near_stats["edges"],
                wall_seconds=wall,
                timings=dict(ctx.timings),
            )
            result.run_id = _record_run(conn, config, started, result)
            if on_phase is not None:
                on_phase("commit")
        result.wall_seconds = round(time.perf_counter() - t0, 4)
        result.timings = dict(ctx.timings)  # now with write_back (after the run row was written)
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


def _data_version(conn: sqlite3.Connection) -> int:
    """Changes when another connection commits to the database (SQLite's data_version)."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def _url_hash_sql(url: Any) -> str:
    if isinstance(url, bytes):
        url = url.decode("utf-8", "replace")
    return url_hash(url if isinstance(url, str) else None)


def _renumbered(conn: sqlite3.Connection) -> int:
    """Rows whose rowid now holds another URL than at the last run (VACUUM renumbering)."""
    if not table_exists(conn, "_prepared"):
        return 0
    return _count(
        conn,
        "SELECT count(*) FROM temp.run_prepared AS r JOIN main._prepared AS p ON p.id = r.id "
        "WHERE p.url_hash <> r.url_hash",
    )


def _table_counts(conn: sqlite3.Connection, table: str) -> dict[str, int]:
    """Totals over the whole annotated table (whatever part of it this run recomputed)."""
    row = conn.execute(sql("table_counts", pages=quote(table))).fetchone()
    return {"ignored": row[0], "url": row[1], "exact": row[2], "near": row[3], "groups": row[4]}


def _record_run(conn: sqlite3.Connection, config: Config, started: str, r: RunResult) -> int:
    params = config.shaping_parameters() | {"webdedup_version": __version__}
    cur = conn.execute(
        "INSERT INTO _webdedup_runs (started_at, finished_at, mode, method, fingerprint, params, "
        "pages, processed, ignored, url_duplicates, exact_duplicates, near_duplicates, groups, "
        "renumbered, pruned, wall_seconds, timings, status) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ok')",
        (
            started,
            _now(),
            r.mode,
            config.method,
            config.fingerprint(),
            json.dumps(params, sort_keys=True),
            r.pages,
            r.processed,
            r.ignored,
            r.url_duplicates,
            r.exact_duplicates,
            r.near_duplicates,
            r.groups,
            r.renumbered,
            r.pruned,
            r.wall_seconds,
            json.dumps(r.timings),
        ),
    )
    conn.executemany(
        "INSERT OR REPLACE INTO _webdedup_meta(key, value) VALUES (?, ?)",
        [
            ("fingerprint", config.fingerprint()),
            ("config", json.dumps(asdict(config), sort_keys=True, default=list)),
            ("webdedup_version", __version__),
        ],
    )
    return int(cur.lastrowid or 0)


def _drop_run_tables(conn: sqlite3.Connection) -> None:
    """Drop the run's TEMP work tables from a connection the caller keeps using."""
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM temp.sqlite_schema WHERE type = 'table' AND name LIKE 'run\\_%' "
                "ESCAPE '\\'"
            )
        ]
        for name in names:
            conn.execute(f"DROP TABLE IF EXISTS temp.{quote(name)}")
    except sqlite3.Error:  # pragma: no cover - best effort cleanup
        pass
