"""webdedup's names in a crawl database: output columns, state tables, triggers.

The one module that says what webdedup adds to a database: the output columns on the
crawler's table (with the index that keeps counting them cheap), the prefixed state tables,
and the change-tracking triggers that queue changed page ids for the next run. Which of
the output columns on a table are webdedup's and which the crawler's is read and recorded
with the rest of the crawler's table, in :mod:`.layout`.
"""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING

from .sqlfiles import quote, run_script
from .state import meta_value, set_meta
from .tables import add_column, table_columns

if TYPE_CHECKING:  # the layout reads these names: it is imported above them
    from .layout import Layout

#: webdedup's state tables (created by the migrations in ``sql/migrations/``).
STATE_TABLES = (
    "_webdedup_meta",
    "_webdedup_runs",
    "_webdedup_changes",
    "_webdedup_prepared",
    "_webdedup_url_keys",
    "_webdedup_content_hashes",
    "_webdedup_sketches",
    "_webdedup_edges",
    "_webdedup_verified",
    "_webdedup_nodes",
    "_webdedup_verdicts",
    "_webdedup_page_segments",
    "_webdedup_segments",
    "_webdedup_thin",
)
#: The tables an annotated database must have for ``export``, ``explain`` and ``stats``.
RESULT_TABLES = ("_webdedup_meta", "_webdedup_runs", "_webdedup_prepared", "_webdedup_edges")

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
            add_column(conn, table, name, kind)
            added.append(name)
    index = quote(f"_webdedup_{table}_kind_group")
    conn.execute(f"CREATE INDEX IF NOT EXISTS {index} ON {quote(table)} (dup_kind, dup_group)")
    return added


#: Output columns a crawler may own: webdedup then leaves them as they are (the API webdedup
#: follows stores the SHA-1 of its ``parsed`` text in ``content_hash``) and keeps its own value
#: in its state (``_webdedup_prepared``). Any other foreign output column is refused.
CRAWLER_MAY_OWN = ("content_hash",)


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
