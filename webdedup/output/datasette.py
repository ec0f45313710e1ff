"""Datasette metadata for an annotated database (``webdedup export --datasette``).

`Datasette <https://datasette.io>`_ serves an SQLite file as a website; the metadata this
writes hides webdedup's state tables (``_webdedup_*``), describes the output columns and
opens the pages table with the facets ``dup_kind`` and ``dup_group_size``, largest groups
first. YAML for a ``.yml``/``.yaml`` path, JSON otherwise::

    webdedup export crawl.sqlite --datasette metadata.yml
    datasette crawl.sqlite --metadata metadata.yml

Example::

    >>> print(to_yaml({"a": {"hidden": True, "facets": ["x"], "s": "it's"}}))
    a:
      hidden: true
      facets:
        - "x"
      s: "it's"
    <BLANKLINE>
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from ..store import table_exists
from ..store.schema import PRUNED_TABLE, STATE_TABLES
from .files import open_output
from .source import open_source

#: What each output column holds (Datasette shows these under the column names).
COLUMN_DESCRIPTIONS = {
    "canonical_url": "the page's URL in canonical form (tracking parameters, www, ... removed)",
    "content_hash": "SHA-1 of the page's normalized text",
    "exact_group_size": "pages with this exact text",
    "dup_group": "duplicate group id (the lowest page id of the group)",
    "dup_group_size": "pages in the duplicate group (1: no duplicate)",
    "canonical_id": "id of the group's canonical page",
    "is_canonical": "1 for the page the group keeps",
    "dup_kind": "how the page joined its group: url, exact or near (empty: canonical; "
    "ignored: left out)",
    "dup_score": "near: the run's verified similarity to the canonical; url/exact: 1.0",
}
FACETS = ["dup_kind", "dup_group_size"]


def datasette_metadata(db: str | Path | sqlite3.Connection, *, busy_timeout: float = 5.0) -> dict:
    """The metadata dict for ``db`` (its Datasette name is the file name without suffix)."""
    name = "database" if isinstance(db, sqlite3.Connection) else Path(db).stem
    with open_source(db, busy_timeout=busy_timeout) as (conn, layout):
        # every table of webdedup's (its state, ingest's, the pruned rows: any _webdedup_*
        # table in the catalogue) and sqlite_sequence, SQLite's own, made for the
        # AUTOINCREMENT of _webdedup_changes
        names = (*STATE_TABLES, PRUNED_TABLE, "sqlite_sequence")
        hidden = sorted(
            {t for t in names if table_exists(conn, t)}
            | {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'table' "
                "AND substr(name, 1, 10) = '_webdedup_'"
            )}
        )
        params = layout.config
    pages: dict[str, Any] = {
        "description": (
            f"Pages annotated by webdedup (method {params.get('method', '?')}, threshold "
            f"{params.get('threshold', '?')}): every page's duplicate group, its canonical "
            "and how it joined."
        ),
        "facets": FACETS,
        "sort_desc": "dup_group_size",
        "columns": COLUMN_DESCRIPTIONS,
    }
    if layout.title:
        pages["label_column"] = layout.title
    tables: dict[str, Any] = {layout.table: pages}
    tables.update({t: {"hidden": True} for t in hidden})
    return {
        "title": f"webdedup: {name}",
        "description": "Duplicate and near-duplicate pages found by webdedup; review them "
        "with 'webdedup review'.",
        "databases": {name: {"tables": tables}},
    }


def to_yaml(value: Any, indent: int = 0) -> str:
    """Block YAML of dicts, lists, strings, numbers and booleans (strings double-quoted:
    a JSON string is a valid YAML double-quoted scalar)."""
    pad = "  " * indent
    lines = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{_key(key)}:")
                lines.append(to_yaml(item, indent + 1).rstrip("\n"))
            else:
                lines.append(f"{pad}{_key(key)}: {_scalar(item)}")
    elif isinstance(value, list):
        for item in value:
            lines.append(f"{pad}- {_scalar(item)}")
    return "\n".join(lines) + "\n"


def _plain(key: Any) -> bool:
    return isinstance(key, str) and key.replace("_", "").isalnum()


def _key(key: Any) -> str:
    return str(key) if _plain(key) else json.dumps(str(key))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return json.dumps(value)  # empty: {} or []
    return json.dumps(str(value), ensure_ascii=False)


def write_datasette_metadata(
    db: str | Path | sqlite3.Connection, out: str | Path, *, busy_timeout: float = 5.0
) -> dict:
    """Write the metadata to ``out`` (YAML for .yml/.yaml, else JSON); returns it."""
    meta = datasette_metadata(db, busy_timeout=busy_timeout)
    text = (
        to_yaml(meta)
        if str(out).lower().endswith((".yml", ".yaml"))
        else json.dumps(meta, indent=2, ensure_ascii=False) + "\n"
    )
    with open_output(out) as fh:
        fh.write(text)
    return meta
