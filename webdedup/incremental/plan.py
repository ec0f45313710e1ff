"""Whether a run is full or incremental, and which pages changed since the last run.

The first run is full and installs triggers (``sql/triggers.sql``) that queue the ids of
inserted, deleted and updated pages in ``_webdedup_changes``. :func:`plan_run` decides what
the next run does (a full run when the parameters that shape stored state changed, when the
triggers are gone, ...); :func:`changed_ids` reads the queue, plus the rows that VACUUM
renumbered (which no trigger sees).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from ..algorithms.urls import url_hash
from ..config import Config
from ..store import integer_primary_key, quote, schema_version, sql, table_exists
from ..store.layout import Layout
from ..store.pages import as_text
from ..store.schema import GROUPS_TABLE
from ..store.state import meta_value, stored_config
from ..store.triggers import rows_tracked, triggers_intact

#: The schema version a nightly run needs: 4 renamed _prepared to _webdedup_prepared.
INCREMENTAL_SCHEMA = 4


@dataclass(frozen=True)
class Plan:
    """What kind of run to do, and why."""

    mode: str  # "full" | "incremental"
    reason: str
    max_seq: int  # the queue rows (seq <= max_seq) this run consumes
    tracked: bool = True  # the triggers queue changes made while this run reads
    #: ``PRAGMA data_version`` as the run's read snapshot began: the write tells from it
    #: whether another connection committed since
    data_version: int = 0


#: ``_webdedup_meta`` key set when a run without change tracking saw the table change.
MISSED = "missed_changes"


def max_queued(conn: sqlite3.Connection) -> int:
    if not table_exists(conn, "_webdedup_changes"):
        return 0
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM _webdedup_changes").fetchone()[0])


def plan_run(conn: sqlite3.Connection, config: Config, layout: Layout, full: bool) -> Plan:
    """Decide between a full and an incremental run (read-only)."""
    table = layout.table
    seq = max_queued(conn)
    version = schema_version(conn)
    tracked = version >= 2 and triggers_intact(conn, layout)
    if full:
        return Plan("full", "a full run was asked for (--full)", seq, tracked)
    if config.method == "vectors":  # its IDF, reduction and index span every page
        return Plan("full", "--method vectors always makes a full run", seq, tracked)
    if version == 0:
        return Plan("full", "first run on this database", seq, tracked)
    if (
        version < INCREMENTAL_SCHEMA
        or not table_exists(conn, "_webdedup_prepared")
        or not table_exists(conn, "_webdedup_page_segments")  # schema 7: segments counted
        or not table_exists(conn, "_webdedup_url_keys")  # schema 8: lookup tables
        or not table_exists(conn, "_webdedup_thin")  # schema 9: thin pages
    ):
        reason = f"the stored state is from an older webdedup (schema {version})"
        return Plan("full", reason, seq, tracked)
    stored = meta_value(conn, "fingerprint")
    if stored != config.fingerprint():
        shaping = meta_value(conn, "shaping")  # recorded since 2026-11-23; else the config
        changed = config.changed_from(json.loads(shaping) if shaping else stored_config(conn))
        what = "; ".join(changed) if changed else f"fingerprint {stored} -> {config.fingerprint()}"
        return Plan(
            "full",
            "the parameters that shape signatures or edges changed since the last run "
            f"({what}): rebuilding everything",
            seq,
            tracked,
        )
    missed = meta_value(conn, MISSED)
    if missed:
        return Plan("full", missed, seq, tracked)
    if not tracked:
        return Plan(
            "full",
            f"the change-tracking triggers on {table!r} are missing or older than this "
            "webdedup's (the table was rebuilt, the triggers dropped, or an older webdedup "
            "installed them): running a full pass and installing them again",
            seq,
            tracked,
        )
    return Plan("incremental", "only the changes queued since the last run", seq)


def changed_ids(
    conn: sqlite3.Connection, layout: Layout, max_seq: int, stable_rowids: bool
) -> tuple[set[int], int]:
    """Queued ids, plus (without an INTEGER PRIMARY KEY) rows renumbered by VACUUM.

    VACUUM fires no trigger; a rowid that now holds another URL than the one prepared for it,
    a new rowid, and a prepared id that no longer exists are all treated as changed. Returns
    the ids and how many were found by that check.
    """
    queued = "SELECT DISTINCT id FROM _webdedup_changes WHERE seq <= ?"
    ids = {r[0] for r in conn.execute(queued, (max_seq,))}
    renumbered: set[int] = set()
    if not stable_rowids:
        prepared = dict(conn.execute("SELECT id, url_hash FROM main._webdedup_prepared"))
        query = f"SELECT {quote(layout.rowid)}, {quote(layout.url)} FROM {quote(layout.table)}"
        for rowid, url in conn.execute(query):
            url = as_text(url)
            if prepared.pop(rowid, None) != url_hash(url if isinstance(url, str) else None):
                renumbered.add(rowid)
        renumbered.update(prepared)  # prepared ids that are gone
    return ids | renumbered, len(renumbered - ids)


def pages_now(conn: sqlite3.Connection, table: str, max_seq: int | None = None) -> int:
    """The rows of the crawler's ``table``, counted from the last run's state and the queue
    (``seq <= max_seq``; all of it by default) when they can tell
    (``sql/pages_count_incremental.sql``, which counts the groups rows: a pass over 17 MiB
    at a million pages, where the prepared rows were 273): an INTEGER PRIMARY KEY (VACUUM
    keeps the rowids, and its updates are queued), every added or deleted row queued
    (:func:`rows_tracked`), and a last run that finished its write. Else ``count(*)``, which
    reads every row of a table with no index, texts included (73 s for a million 2 KB pages
    from a cold disk)."""
    key = integer_primary_key(conn, table)
    if (
        key is not None
        and table_exists(conn, "_webdedup_prepared")
        and not meta_value(conn, MISSED)
        and rows_tracked(conn, table)
    ):
        # (the groups rows: a few numbers a page; a state before schema 11 has none)
        state = GROUPS_TABLE if table_exists(conn, GROUPS_TABLE) else "_webdedup_prepared"
        query = sql("pages_count_incremental", pages=quote(table), rowid=quote(key),
                    state=state)
        upto = 2**63 - 1 if max_seq is None else max_seq
        return int(conn.execute(query, {"max_seq": upto}).fetchone()[0])
    return int(conn.execute(f"SELECT count(*) FROM {quote(table)}").fetchone()[0])
