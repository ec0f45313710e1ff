"""What earlier runs stored: ``_webdedup_meta`` values and the run's configuration.

One loader for the stored configuration (:func:`stored_config`): ``db`` uses it to tell
whether the parameters changed, ``export``, ``explain`` and ``stats`` to find the table and
columns the last run annotated.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..errors import InputError
from .tables import table_exists

META = "_webdedup_meta"


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    """A value of ``_webdedup_meta`` (None when the table or the key is missing)."""
    if not table_exists(conn, META):
        return None
    row = conn.execute("SELECT value FROM _webdedup_meta WHERE key = ?", (key,)).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    """Set a value of ``_webdedup_meta`` (inside the write transaction)."""
    conn.execute("INSERT OR REPLACE INTO _webdedup_meta (key, value) VALUES (?, ?)", (key, value))


def stored_config(conn: sqlite3.Connection, where: str = "the database") -> dict[str, Any]:
    """The configuration the last run stored, as a dict (empty when there is none)."""
    return parse_config(meta_value(conn, "config"), where)


def stored_columns(conn: sqlite3.Connection, where: str = "the database") -> dict[str, str]:
    """The ``[columns]`` mapping (with ``table``) of the last run's configuration."""
    return config_columns(stored_config(conn, where))


def parse_config(raw: str | None, where: str = "the database") -> dict[str, Any]:
    """A stored configuration (the ``config`` value of ``_webdedup_meta``) as a dict."""
    if not raw:
        return {}
    try:
        config = json.loads(raw)
    except ValueError as exc:
        raise InputError(f"{where}: the stored webdedup config is not valid JSON ({exc})") from exc
    return config if isinstance(config, dict) else {}


def config_columns(config: dict[str, Any]) -> dict[str, str]:
    """The ``[columns]`` mapping (with ``table``) of a stored configuration."""
    columns = config.get("columns") or {}
    return {str(k): str(v) for k, v in columns.items() if isinstance(v, str)}


def host_pages(conn: sqlite3.Connection) -> str:
    """The stored pages by host, a ``(host, id)`` table searched by host, to fill into a
    query's ``{host_pages}``: ``_webdedup_hosts`` (schema 12). A state from before it (the
    run that upgrades it reads it first) has only the prepared rows: they are copied once
    into the run's ``temp.run_stored_hosts`` (dropped with the run's other TEMP tables)."""
    if table_exists(conn, "_webdedup_hosts"):
        return "main._webdedup_hosts"
    made = conn.execute(
        "SELECT 1 FROM temp.sqlite_schema WHERE type = 'table' AND name = 'run_stored_hosts'"
    ).fetchone()
    if made is None:
        conn.execute(
            "CREATE TEMP TABLE run_stored_hosts (host TEXT NOT NULL, id INTEGER NOT NULL, "
            "PRIMARY KEY (host, id)) WITHOUT ROWID"
        )
        conn.execute(
            "INSERT INTO temp.run_stored_hosts (host, id) SELECT host, id "
            "FROM main._webdedup_prepared WHERE host IS NOT NULL ORDER BY host, id"
        )
    return "temp.run_stored_hosts"
