"""Phase 5, write back: the only phase that writes to the crawl database.

:func:`prepare` runs before the write lock, in the run's read snapshot: the annotations in
rowid order and the state tables' indexes, ready in TEMP tables. :func:`run` then runs inside
one short write transaction opened by the pipeline: migrations, the output columns added to
``pages`` when missing, the annotations (only the rows whose annotation changes), webdedup's
state tables (copied as they are) and the change-tracking triggers (the run row and the
optional prune follow in the same transaction). A crawler waits for that transaction only.
"""

from __future__ import annotations

from ..incremental.plan import MISSED
from ..store import migrate, quote, run_script
from ..store.schema import add_output_columns, install_triggers, record_annotated
from ..store.state import set_meta
from . import segments
from .context import RunContext, WriteBackResult


def prepare(ctx: RunContext) -> None:
    """Ready what :func:`run` writes, in TEMP tables (call before the write transaction)."""
    layout = ctx.layout
    run_script(
        ctx.conn,
        "write_prepare",
        pages=quote(layout.table),
        url=quote(layout.url),
        rowid=quote(layout.rowid),
    )
    if ctx.plan is not None and ctx.plan.mode == "full":
        run_script(ctx.conn, "write_prepare_full")


def run(ctx: RunContext) -> WriteBackResult:
    """Annotate ``pages`` and save the run's state (call inside the write transaction).

    A full run replaces all state and (re)installs the change-tracking triggers; an
    incremental run replaces the state of its region only. Either consumes the queued
    changes it read (``seq <= plan.max_seq``); changes queued since stay for the next run.
    ``ctx.missed_changes``: the table changed during a run that had no triggers yet (rows
    updated meanwhile are unknown), so the next run is told to be full. Needs
    :func:`prepare` first.
    """
    conn, layout, plan = ctx.conn, ctx.layout, ctx.plan
    if plan is None:
        raise ValueError("phase 5 needs the run's plan (RunContext.plan)")
    migrate(conn)
    add_output_columns(conn, layout.table)
    record_annotated(conn, layout.table)
    before = conn.total_changes
    run_script(
        conn,
        "write_back",
        pages=quote(layout.table),
        url=quote(layout.url),
        rowid=quote(layout.rowid),
    )
    written = conn.total_changes - before
    if plan.mode == "incremental":
        run_script(conn, "save_state_incremental")
    else:
        run_script(conn, "save_state")
        install_triggers(conn, layout)
        # rows inserted after this run's snapshot, maybe before the triggers existed
        run_script(conn, "queue_unseen", pages=quote(layout.table), rowid=quote(layout.rowid))
    segments.save(ctx)
    conn.execute("DELETE FROM _webdedup_changes WHERE seq <= ?", (plan.max_seq,))
    if ctx.missed_changes:  # see Plan.tracked: the next run must be full
        set_meta(
            conn,
            MISSED,
            f"{layout.table!r} changed while the last run read it, before its changes "
            "were tracked: running a full pass once more",
        )
    elif plan.mode == "full":
        conn.execute("DELETE FROM _webdedup_meta WHERE key = ?", (MISSED,))
    return WriteBackResult(written=written)
