"""The change-tracking triggers on the crawler's table: they queue the ids of the pages
inserted, deleted, or updated in an input column (never in webdedup's output columns) into
``_webdedup_changes`` for the next, incremental, run.

A row that ``INSERT OR REPLACE`` (or ``UPDATE OR REPLACE``) deletes to make room for another
under a UNIQUE key (a crawler's upsert by URL) fires no delete trigger: SQLite fires them
for such deletes only with ``PRAGMA recursive_triggers`` on, in the crawler's connection.
So each UNIQUE key of plain columns gets a ``BEFORE`` trigger too, which queues the rows that
hold the new row's key (those the statement may delete); one that stays (``INSERT OR
IGNORE``) is only prepared again.
"""

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


def replace_trigger_names(table: str) -> dict[str, str]:
    """The ``BEFORE`` triggers for rows a REPLACE deletes (a table with UNIQUE keys)."""
    return {
        f"{op}_trigger": f"_webdedup_{table}_replace_{op}" for op in ("insert", "update")
    }


def unique_keys(conn: sqlite3.Connection, table: str) -> list[list[str]]:
    """The UNIQUE keys of ``table`` (constraints and indexes) made of plain columns, other
    than its rowid, in name order. Keys on expressions are left out (their conflicts cannot
    be looked up from the new row's columns)."""
    keys = []
    for row in conn.execute(f"PRAGMA main.index_list({quote(table)})").fetchall():
        name, unique = row[1], row[2]
        if not unique:
            continue
        info = conn.execute(f"PRAGMA main.index_info({quote(name)})").fetchall()
        columns = [r[2] for r in sorted(info)]
        if columns and all(c is not None for c in columns):
            keys.append(columns)
    return sorted(keys)


def tracked_columns(layout: Layout) -> list[str]:
    present = layout.present
    return sorted({real for name in TRACKED if (real := present.get(name))})


def install_triggers(conn: sqlite3.Connection, layout: Layout) -> None:
    """(Re)create the change-tracking triggers on the pages table (inside the write)."""
    columns = tracked_columns(layout)
    table, rowid = quote(layout.table), quote(layout.rowid)
    names = {k: quote(v) for k, v in trigger_names(layout.table).items()}
    run_script(
        conn, "triggers", None, table=table, columns=", ".join(map(quote, columns)),
        rowid=rowid, **names,
    )
    keys = unique_keys(conn, layout.table)
    replace = {k: quote(v) for k, v in replace_trigger_names(layout.table).items()}
    for name in replace.values():
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    if keys:
        holders = [
            f"INSERT INTO _webdedup_changes (id, op) SELECT {rowid}, 'delete' FROM {table} "
            "WHERE " + " AND ".join(f"{quote(c)} = NEW.{quote(c)}" for c in key)
            for key in keys
        ]
        conn.execute(
            f"CREATE TRIGGER {replace['insert_trigger']} BEFORE INSERT ON {table} BEGIN "
            + "; ".join(holders) + "; END"
        )
        keyed = sorted({c for key in keys for c in key})
        conn.execute(  # the row updated keeps its own id: only the others are queued
            f"CREATE TRIGGER {replace['update_trigger']} BEFORE UPDATE OF "
            f"{', '.join(map(quote, keyed))} ON {table} BEGIN "
            + "; ".join(f"{h} AND {rowid} <> OLD.{rowid}" for h in holders) + "; END"
        )
    set_meta(conn, "triggers", json.dumps(_recorded(layout, columns, keys)))


def _recorded(layout: Layout, columns: list[str], keys: list[list[str]]) -> dict[str, object]:
    return {"table": layout.table, "columns": columns, "unique": keys}


def triggers_intact(conn: sqlite3.Connection, layout: Layout) -> bool:
    """True when all the triggers exist on the pages table for the tracked columns and its
    UNIQUE keys (a key added since, or a database whose triggers predate the REPLACE
    triggers, is not: the next run is full and installs them)."""
    found = {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?",
            (layout.table,),
        )
    }
    keys = unique_keys(conn, layout.table)
    names = set(trigger_names(layout.table).values())
    if keys:
        names |= set(replace_trigger_names(layout.table).values())
    if not names <= found:
        return False
    recorded = meta_value(conn, "triggers")
    want = _recorded(layout, tracked_columns(layout), keys)
    return bool(recorded) and json.loads(recorded or "null") == want
