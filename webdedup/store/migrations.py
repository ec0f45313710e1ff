"""Versioned migrations of webdedup's state tables (``sql/migrations/NNNN_name.sql``)."""

from __future__ import annotations

import json
import re
import sqlite3
from importlib import resources

from ..errors import InputError, SchemaTooNew
from .sqlfiles import quote, split_statements, sql
from .tables import table_exists


def _migrations() -> list[tuple[int, str]]:
    folder = resources.files("webdedup.sql.migrations")
    found = []
    for entry in folder.iterdir():
        m = re.match(r"^(\d{4})_[a-z0-9_]+\.sql$", entry.name)
        if m:
            found.append((int(m.group(1)), entry.name[:-4]))
    return sorted(found)


def latest_schema_version() -> int:
    return _migrations()[-1][0]


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version of webdedup's state in this database (0 when it has none)."""
    if not table_exists(conn, "_webdedup_meta"):
        return 0
    try:
        row = conn.execute(
            "SELECT value FROM _webdedup_meta WHERE key = 'schema_version'"
        ).fetchone()
        return int(row[0]) if row else 0
    except (sqlite3.OperationalError, ValueError, TypeError) as exc:
        raise InputError(
            f"the table _webdedup_meta of this database is not webdedup's ({exc}); rename it, "
            "webdedup keeps its state under that name"
        ) from exc


def check_schema(conn: sqlite3.Connection) -> int:
    """Refuse a database whose state was written by a newer webdedup."""
    found, known = schema_version(conn), latest_schema_version()
    if found > known:
        raise SchemaTooNew(
            f"this database's webdedup state has schema version {found}, newer than this "
            f"webdedup understands ({known}); upgrade webdedup to use it"
        )
    return found


#: The schema that keeps each annotated page's group beside the pages (``_webdedup_groups``).
GROUPS_SCHEMA = 11
#: The schema that keeps each annotated page's ``dup_score`` there too.
SCORES_SCHEMA = 13

#: First line of a migration that only upgrades state written by an earlier schema.
UPGRADE_ONLY = "-- upgrade only"


_ADD_COLUMN = re.compile(r"\bALTER\s+TABLE\s+\S+\s+ADD\s+COLUMN\s", re.IGNORECASE)


def _execute(conn: sqlite3.Connection, statement: str) -> None:
    """Run one statement of a migration; an ``ADD COLUMN`` of a column that is already
    there (state a newer webdedup wrote, then relabelled older) is a no-op."""
    try:
        conn.execute(statement)
    except sqlite3.OperationalError as exc:
        if not (_ADD_COLUMN.search(statement) and "duplicate column name" in str(exc)):
            raise


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the pending migrations. Call inside a write transaction; returns the new version.

    A migration whose first line is ``-- upgrade only`` is skipped on a new database (its
    version is recorded all the same): it changes what an older schema created.
    """
    start = current = check_schema(conn)
    for version, name in _migrations():
        if version > current:
            script = sql("migrations/" + name)
            if not (start == 0 and script.startswith(UPGRADE_ONLY)):
                for statement in split_statements(script):
                    _execute(conn, statement)
                if start > 0 and version == GROUPS_SCHEMA:
                    _fill_groups(conn)
                if start > 0 and version == SCORES_SCHEMA:
                    _fill_scores(conn)
            conn.execute(
                "INSERT OR REPLACE INTO _webdedup_meta(key, value) VALUES ('schema_version', ?)",
                (str(version),),
            )
            current = version
    return current


def _annotated_table(conn: sqlite3.Connection, needs: set[str]) -> tuple[str, str] | None:
    """The last run's table and its rowid (quoted), when it has the columns ``needs``."""
    row = conn.execute("SELECT value FROM _webdedup_meta WHERE key = 'config'").fetchone()
    try:
        table = json.loads(row[0])["columns"]["table"] if row and row[0] else None
    except (ValueError, TypeError, KeyError):
        table = None
    if not isinstance(table, str) or not table_exists(conn, table):
        return None
    have = {r[1] for r in conn.execute(f"PRAGMA main.table_info({quote(table)})")}
    if not needs <= have:
        return None
    from .layout import rowid_alias  # (layout reads the schema this module writes)

    return quote(table), quote(rowid_alias(conn, table))


def _fill_scores(conn: sqlite3.Connection) -> None:
    """Upgrading to :data:`SCORES_SCHEMA`: the groups' ``dup_score`` from the annotations,
    each row read by its rowid, once."""
    found = _annotated_table(conn, {"dup_score"})
    if found is None:
        return
    table, rowid = found
    conn.execute(
        f"UPDATE _webdedup_groups SET dup_score = (SELECT p.dup_score FROM {table} AS p "
        f"WHERE p.{rowid} = _webdedup_groups.id)"
    )


def _fill_groups(conn: sqlite3.Connection) -> None:
    """Upgrading to :data:`GROUPS_SCHEMA`: ``_webdedup_groups`` from the annotations on the
    last run's table (one read of that table, once; a run writes the table's rows since)."""
    found = _annotated_table(conn, {"dup_group", "dup_kind", "is_canonical"})
    if found is None:
        return
    table, rowid = found
    conn.execute(
        "INSERT OR REPLACE INTO _webdedup_groups (id, dup_group, dup_kind, is_canonical) "
        f"SELECT {rowid}, dup_group, dup_kind, is_canonical FROM {table} "
        "WHERE dup_group IS NOT NULL OR dup_kind IS NOT NULL"
    )
