"""The change-tracking triggers on the crawler's table: they queue the ids of the pages
inserted, deleted, or updated in an input column (never in webdedup's output columns) into
``_webdedup_changes`` for the next, incremental, run."""

from __future__ import annotations

import json
import sqlite3

from .layout import Layout
from .sqlfiles import quote, run_script
from .state import meta_value, set_meta

#: The input columns whose updates are queued (never webdedup's output columns).
TRACKED = (
    "url", "content", "content_fallback", "html", "datetime", "crawled", "category", "lang"
)


def trigger_names(table: str) -> dict[str, str]:
    return {f"{op}_trigger": f"_webdedup_{table}_{op}" for op in ("insert", "delete", "update")}


def tracked_columns(layout: Layout) -> list[str]:
    present = layout.present
    return sorted({real for name in TRACKED if (real := present.get(name))})


def install_triggers(conn: sqlite3.Connection, layout: Layout) -> None:
    """(Re)create the change-tracking triggers on the pages table (inside the write)."""
    columns = tracked_columns(layout)
    names = {k: quote(v) for k, v in trigger_names(layout.table).items()}
    run_script(
        conn,
        "triggers",
        None,
        table=quote(layout.table),
        columns=", ".join(map(quote, columns)),
        rowid=quote(layout.rowid),
        **names,
    )
    set_meta(conn, "triggers", json.dumps({"table": layout.table, "columns": columns}))


def triggers_intact(conn: sqlite3.Connection, layout: Layout) -> bool:
    """True when all three triggers exist on the pages table for the tracked columns."""
    found = {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?",
            (layout.table,),
        )
    }
    if not set(trigger_names(layout.table).values()) <= found:
        return False
    recorded = meta_value(conn, "triggers")
    want = {"table": layout.table, "columns": tracked_columns(layout)}
    return bool(recorded) and json.loads(recorded or "null") == want
