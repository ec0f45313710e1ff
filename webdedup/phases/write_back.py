"""Phase 5, write back: the only phase that writes to the crawl database.

Everything here runs inside one short write transaction opened by the pipeline: migrations,
the output columns added to ``pages`` when missing, the annotations, webdedup's state tables,
the run row, and the optional prune.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..store import (
    integer_primary_key,
    migrate,
    quote,
    run_script,
    table_columns,
    table_exists,
)
from .incremental import MISSED, install_triggers

#: The columns webdedup adds to ``pages``, with their SQL types.
OUTPUT_COLUMNS: dict[str, str] = {
    "canonical_url": "TEXT",
    "content_hash": "TEXT",
    "exact_group_size": "INTEGER",
    "dup_group": "INTEGER",
    "dup_group_size": "INTEGER",
    "canonical_id": "INTEGER",
    "is_canonical": "INTEGER",
    "dup_kind": "TEXT",
    "dup_score": "REAL",
}

PRUNED_TABLE = "_webdedup_pruned"


def add_output_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """``ALTER TABLE ... ADD COLUMN`` for each missing output column; returns those added.

    Also one covering index on ``(dup_kind, dup_group)``: the output columns sit at the end of
    each row, past the text, so counting them without it reads every page's whole text.
    """
    have = set(table_columns(conn, table))
    added = []
    for name, kind in OUTPUT_COLUMNS.items():
        if name not in have:
            conn.execute(f"ALTER TABLE {quote(table)} ADD COLUMN {quote(name)} {kind}")
            added.append(name)
    index = quote(f"_webdedup_{table}_kind_group")
    conn.execute(f"CREATE INDEX IF NOT EXISTS {index} ON {quote(table)} (dup_kind, dup_group)")
    return added


def foreign_output_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """Output column names that ``table`` already has and webdedup did not create (read-only).

    Webdedup's own are recognised by the tables it recorded as annotated (or, for a database
    annotated before that record, by the last run's table), or by its index on them. Writing
    into a crawler's own ``content_hash`` would destroy the crawler's data.
    """
    present = [c for c in OUTPUT_COLUMNS if c in set(table_columns(conn, table))]
    if not present or table in annotated_tables(conn):
        return []
    index = f"_webdedup_{table}_kind_group"
    found = conn.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?", (index,)
    ).fetchone()
    return [] if found else present


def annotated_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables webdedup has written its output columns into."""
    if not table_exists(conn, "_webdedup_meta"):
        return []
    rows = dict(
        conn.execute(
            "SELECT key, value FROM _webdedup_meta WHERE key IN ('annotated_tables', 'config')"
        )
    )
    if "annotated_tables" in rows:
        return list(json.loads(rows["annotated_tables"]))
    if "config" in rows:  # written before the record existed: the last run's table
        return [json.loads(rows["config"])["columns"]["table"]]
    return []


def _record_annotated(conn: sqlite3.Connection, table: str) -> None:
    tables = sorted(set(annotated_tables(conn)) | {table})
    conn.execute(
        "INSERT OR REPLACE INTO _webdedup_meta (key, value) VALUES ('annotated_tables', ?)",
        (json.dumps(tables),),
    )


def run(ctx: Any, plan: Any, missed: bool = False) -> dict[str, int]:
    """Annotate ``pages`` and save the run's state (call inside the write transaction).

    A full run replaces all state and (re)installs the change-tracking triggers; an
    incremental run replaces the state of its region only. Either consumes the queued
    changes it read (``seq <= plan.max_seq``); changes queued since stay for the next run.
    ``missed``: the table changed during a run that had no triggers yet (rows updated
    meanwhile are unknown), so the next run is told to be full.
    """
    conn = ctx.conn
    migrate(conn)
    add_output_columns(conn, ctx.table)
    _record_annotated(conn, ctx.table)
    before = conn.total_changes
    run_script(conn, "write_back", pages=quote(ctx.table), url=quote(ctx.present["url"]))
    written = conn.total_changes - before
    if plan.mode == "incremental":
        run_script(conn, "save_state_incremental")
    else:
        run_script(conn, "save_state")
        install_triggers(conn, ctx.table, ctx.present)
        # rows inserted after this run's snapshot, maybe before the triggers existed
        run_script(conn, "queue_unseen", pages=quote(ctx.table))
    conn.execute("DELETE FROM _webdedup_changes WHERE seq <= ?", (plan.max_seq,))
    if missed:  # see Plan.tracked: the next run must be full
        conn.execute(
            "INSERT OR REPLACE INTO _webdedup_meta (key, value) VALUES (?, ?)",
            (MISSED, f"{ctx.table!r} changed while the last run read it, before its changes "
             "were tracked: running a full pass once more"),
        )
    elif plan.mode == "full":
        conn.execute("DELETE FROM _webdedup_meta WHERE key = ?", (MISSED,))
    return {"written": written}


def prune(conn: sqlite3.Connection, table: str) -> int:
    """Move every non-canonical annotated row of ``table`` into ``_webdedup_pruned``.

    The side table keeps the original rowid and every column, so :func:`restore` can put the
    rows back. Call inside the write transaction, after :func:`run`.
    """
    cols = table_columns(conn, table)
    if not table_exists(conn, PRUNED_TABLE):
        col_defs = ", ".join(quote(c) for c in cols)
        conn.execute(
            f"CREATE TABLE {quote(PRUNED_TABLE)} (_rowid INTEGER PRIMARY KEY, "
            f"_pruned_at TEXT NOT NULL, {col_defs})"
        )
    else:
        have = set(table_columns(conn, PRUNED_TABLE))
        for c in cols:
            if c not in have:
                conn.execute(f"ALTER TABLE {quote(PRUNED_TABLE)} ADD COLUMN {quote(c)}")
    col_list = ", ".join(quote(c) for c in cols)
    where = "is_canonical = 0"
    conn.execute(
        f"INSERT INTO {quote(PRUNED_TABLE)} (_rowid, _pruned_at, {col_list}) "
        f"SELECT rowid, datetime('now'), {col_list} FROM {quote(table)} WHERE {where}"
    )
    cur = conn.execute(f"DELETE FROM {quote(table)} WHERE {where}")
    return cur.rowcount


def restore(conn: sqlite3.Connection, table: str) -> int:
    """Put every pruned row back into ``table`` under its original rowid; returns the count.

    Columns that ``table`` no longer has are dropped; a rowid taken meanwhile by a new row
    keeps that new row, and the pruned row is restored under a fresh rowid.
    """
    if not table_exists(conn, PRUNED_TABLE):
        return 0
    pruned_cols = set(table_columns(conn, PRUNED_TABLE))
    cols = [c for c in table_columns(conn, table) if c in pruned_cols]
    pk = integer_primary_key(conn, table)
    restored = 0
    rows = conn.execute(
        f"SELECT _rowid, {', '.join(quote(c) for c in cols)} FROM {quote(PRUNED_TABLE)}"
    ).fetchall()
    for rowid, *values in rows:
        taken = conn.execute(f"SELECT 1 FROM {quote(table)} WHERE rowid = ?", (rowid,)).fetchone()
        names, vals = list(cols), list(values)
        if taken and pk in names:  # the old id is in use: let SQLite pick a new one
            i = names.index(pk)
            del names[i], vals[i]
        elif not taken and pk is None:
            names, vals = ["rowid", *names], [rowid, *vals]
        conn.execute(
            f"INSERT INTO {quote(table)} ({', '.join(quote(c) for c in names)}) "
            f"VALUES ({', '.join('?' * len(vals))})",
            vals,
        )
        restored += 1
    conn.execute(f"DELETE FROM {quote(PRUNED_TABLE)}")
    return restored
