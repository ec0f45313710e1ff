"""webdedup's names in a crawl database: output columns, state tables, triggers.

The one module that says what webdedup adds to a database: the output columns on the
crawler's table (with the index that keeps counting them cheap), the prefixed state tables,
and the change-tracking triggers that queue changed page ids for the next run.
"""

from __future__ import annotations

import json
import sqlite3

from .layout import Layout
from .sqlfiles import quote, run_script
from .state import meta_value, set_meta, stored_columns
from .tables import add_column, table_columns

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


#: Output columns a crawler may own: webdedup then leaves them as they are (the API webdedup
#: follows stores the SHA-1 of its ``parsed`` text in ``content_hash``) and keeps its own value
#: in its state (``_webdedup_prepared``). Any other foreign output column is refused.
CRAWLER_MAY_OWN = ("content_hash",)
_CRAWLER_COLUMNS = "crawler_columns"


def crawler_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The output columns of ``table`` that are the crawler's, not webdedup's: those recorded
    at an earlier run, else those found now (:func:`foreign_output_columns`) that a crawler
    may own. Webdedup never writes into them."""
    recorded = meta_value(conn, _CRAWLER_COLUMNS)
    if recorded:
        mine = json.loads(recorded).get(table)
        if mine is not None:
            return [c for c in mine if c in set(table_columns(conn, table))]
    return [c for c in foreign_output_columns(conn, table) if c in CRAWLER_MAY_OWN]


def record_crawler_columns(conn: sqlite3.Connection, table: str, columns: list[str]) -> None:
    """Remember which output columns of ``table`` are the crawler's (inside the write)."""
    recorded = json.loads(meta_value(conn, _CRAWLER_COLUMNS) or "{}")
    if recorded.get(table) == list(columns) or (not columns and table not in recorded):
        return
    recorded[table] = list(columns)
    set_meta(conn, _CRAWLER_COLUMNS, json.dumps(recorded, sort_keys=True))


def annotated_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables webdedup has written its output columns into."""
    recorded = meta_value(conn, "annotated_tables")
    if recorded:
        return list(json.loads(recorded))
    table = stored_columns(conn).get("table")  # written before the record existed
    return [table] if table else []


def record_annotated(conn: sqlite3.Connection, table: str) -> None:
    """Remember that ``table`` carries webdedup's output columns (inside the write)."""
    set_meta(conn, "annotated_tables", json.dumps(sorted(set(annotated_tables(conn)) | {table})))


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
