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
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict, dataclass

from .layout import Layout
from .sqlfiles import quote, run_script, sql
from .state import meta_value, set_meta
from .tables import integer_primary_key

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


def tracked_columns(layout: Layout) -> list[str]:
    present = layout.present
    return sorted({real for name in TRACKED if (real := present.get(name))})


def trigger_columns(conn: sqlite3.Connection, layout: Layout) -> list[str]:
    """The columns whose update the update trigger queues: the input columns, and an
    INTEGER PRIMARY KEY (``UPDATE pages SET id = ...`` moves a page to another id, and an
    ``UPDATE OR REPLACE`` of it deletes the row that had that id: both ids are queued)."""
    columns = tracked_columns(layout)
    key = integer_primary_key(conn, layout.table)
    return sorted({*columns, key}) if key is not None else columns


@dataclass(frozen=True)
class UniqueKey:
    """A UNIQUE key of the crawler's table: its columns with the index's collations, and a
    partial index's ``WHERE`` (None for a whole-table key)."""

    columns: tuple[tuple[str, str], ...]
    where: str | None = None

    def lookup(self, table: str, rowid: str, new: bool) -> str:
        """The statement (``sql/triggers_replace_lookup.sql``) that queues the rows holding
        ``NEW``'s value of this key; ``new``: for an update (the row itself left out)."""
        match = " AND ".join(
            f"{quote(c)} = NEW.{quote(c)} COLLATE {quote(coll)}" for c, coll in self.columns
        )
        text = sql(
            "triggers_replace_lookup",
            table=table,
            rowid=rowid,
            match=match,
            partial=f" AND ({self.where})" if self.where else "",
            other=f" AND {rowid} <> OLD.{rowid}" if new else "",
        )
        return "\n".join(line for line in text.splitlines() if not line.startswith("--"))


def unique_keys(conn: sqlite3.Connection, table: str) -> list[UniqueKey]:
    """The UNIQUE keys of ``table`` (constraints and indexes, partial ones included) made of
    plain columns. Keys on expressions are left out: their conflicts cannot be looked up from
    the new row's columns (:func:`unmirrored_keys` names them)."""
    keys = []
    for name, partial, columns in _unique_indexes(conn, table):
        plain = tuple((c, coll) for c, coll in columns if c is not None)
        if len(plain) < len(columns):
            continue
        where = _partial_where(conn, name) if partial else None
        if partial and where is None:
            continue
        keys.append(UniqueKey(plain, where))
    return sorted(keys, key=lambda k: (k.columns, k.where or ""))


def unmirrored_keys(conn: sqlite3.Connection, table: str) -> list[str]:
    """The UNIQUE indexes of ``table`` whose REPLACE deletes no trigger sees: those on
    expressions, and partial ones whose ``WHERE`` could not be read from their SQL."""
    return [
        name for name, partial, columns in _unique_indexes(conn, table)
        if any(c is None for c, _ in columns)
        or (partial and _partial_where(conn, name) is None)
    ]


def _unique_indexes(
    conn: sqlite3.Connection, table: str
) -> Iterator[tuple[str, bool, list[tuple[str | None, str]]]]:
    """Each UNIQUE index of ``table``: its name, whether it is partial, and its key columns
    in order with their collations (an expression's name is None)."""
    for row in conn.execute(f"PRAGMA main.index_list({quote(table)})").fetchall():
        name, unique, partial = str(row[1]), row[2], bool(row[4])
        if unique:
            info = conn.execute(f"PRAGMA main.index_xinfo({quote(name)})").fetchall()
            yield name, partial, [(r[2], r[4]) for r in sorted(info) if r[5]]


def _partial_where(conn: sqlite3.Connection, index: str) -> str | None:
    """A partial index's ``WHERE`` expression, from its ``CREATE INDEX`` text."""
    found = conn.execute(
        "SELECT sql FROM main.sqlite_schema WHERE type = 'index' AND name = ?", (index,)
    ).fetchone()
    text = found[0] if found and found[0] else ""
    depth, quote_char = 0, ""  # (from the start: a quoted name may hold a parenthesis)
    for i in range(len(text)):
        ch = text[i]
        if quote_char:
            if ch == quote_char:
                quote_char = ""
        elif ch in "'\"`":
            quote_char = ch
        elif ch == "[":
            quote_char = "]"
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                rest = re.match(r"\s*WHERE\s+(.+?)\s*;?\s*$", text[i + 1 :], re.I | re.S)
                return rest.group(1) if rest else None
    return None


def install_triggers(conn: sqlite3.Connection, layout: Layout) -> None:
    """(Re)create the change-tracking triggers on the pages table (inside the write)."""
    columns = trigger_columns(conn, layout)
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
        keyed = sorted({c for key in keys for c, _ in key.columns})
        run_script(
            conn,
            "triggers_replace",
            None,
            table=table,
            keyed=", ".join(map(quote, keyed)),
            insert_lookups="\n".join(k.lookup(table, rowid, new=False) for k in keys),
            update_lookups="\n".join(k.lookup(table, rowid, new=True) for k in keys),
            **replace,
        )
    set_meta(conn, "triggers", json.dumps(_recorded(layout, columns, keys)))


def _recorded(layout: Layout, columns: list[str], keys: list[UniqueKey]) -> dict[str, object]:
    return {"table": layout.table, "columns": columns, "unique": [asdict(k) for k in keys]}


def rows_tracked(conn: sqlite3.Connection, table: str) -> bool:
    """Whether every row added to or deleted from ``table`` since its triggers were
    installed is queued: the insert and delete triggers exist, and so do the REPLACE
    triggers of its UNIQUE keys as they are now (recorded with them), none of which is on an
    expression (whose REPLACE deletes no trigger sees), and the update trigger tracks its
    INTEGER PRIMARY KEY (an ``UPDATE OR REPLACE`` of it deletes the row that held the id;
    triggers from before 2026-11-27 do not). Which input columns the update trigger tracks
    does not matter here (:func:`triggers_intact` checks those too)."""
    names = {trigger_names(table)[f"{op}_trigger"] for op in ("insert", "delete")}
    keys = unique_keys(conn, table)
    if keys:
        names |= set(replace_trigger_names(table).values())
    if not names <= _table_triggers(conn, table) or unmirrored_keys(conn, table):
        return False
    key = integer_primary_key(conn, table)
    try:
        recorded = json.loads(meta_value(conn, "triggers") or "null")
        return bool(
            recorded["table"] == table
            and recorded["unique"] == json.loads(json.dumps([asdict(k) for k in keys]))
            and (key is None or key in recorded["columns"])
        )
    except (ValueError, TypeError, KeyError):
        return False


def triggers_intact(conn: sqlite3.Connection, layout: Layout) -> bool:
    """True when all the triggers exist on the pages table for the tracked columns and its
    UNIQUE keys (a key added since, or a database whose triggers predate the REPLACE
    triggers, is not: the next run is full and installs them)."""
    keys = unique_keys(conn, layout.table)
    names = set(trigger_names(layout.table).values())
    if keys:
        names |= set(replace_trigger_names(layout.table).values())
    if not names <= _table_triggers(conn, layout.table):
        return False
    recorded = meta_value(conn, "triggers")
    want = json.loads(json.dumps(_recorded(layout, trigger_columns(conn, layout), keys)))
    return bool(recorded) and json.loads(recorded or "null") == want


def _table_triggers(conn: sqlite3.Connection, table: str) -> set[str]:
    """The names of the triggers on ``table``."""
    query = "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?"
    return {r[0] for r in conn.execute(query, (table,))}
