"""Incremental runs: change tracking on ``pages`` and the region a nightly run recomputes.

The first run is full and installs triggers (``sql/triggers.sql``) that queue the ids of
inserted, deleted and updated pages in ``_webdedup_changes``. A later run prepares only the
queued pages, then grows a *region* from them: every page linked to a changed page by a
canonical URL, a content hash, a stored near-duplicate edge or an LSH band collision, and so
on transitively (``sql/region.sql``). The region is a union of whole components of the link
graph, and every phase's result on a component depends on that component alone, so running
the unchanged phases 2-4 on the region gives exactly what a full run would give there; the
pages outside it keep their annotations.

The levenshtein window links pages by their place in the URL order, which no index holds:
phase 4 finds the window pairs that link the region to pages outside it
(``window.incremental_run``), :func:`grow_region` takes those pages in, and phases
2-4 run again until the region is closed.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from ..config import Config
from ..near.simhash import hamming
from ..near.sketch import NearSpec, band_keys_from_blobs
from ..store import quote, run_script, schema_version, sql, table_exists
from .prepare import url_hash

#: The input columns whose updates are queued (never webdedup's output columns).
TRACKED = ("url", "content", "html", "datetime", "crawled", "category")


@dataclass(frozen=True)
class Plan:
    """What kind of run to do, and why."""

    mode: str  # "full" | "incremental"
    reason: str
    max_seq: int  # the queue rows (seq <= max_seq) this run consumes
    tracked: bool = True  # the triggers queue changes made while this run reads


#: ``_webdedup_meta`` key set when a run without change tracking saw the table change.
MISSED = "missed_changes"


def trigger_names(table: str) -> dict[str, str]:
    return {f"{op}_trigger": f"_webdedup_{table}_{op}" for op in ("insert", "delete", "update")}


def tracked_columns(present: dict[str, str | None]) -> list[str]:
    return sorted({real for name in TRACKED if (real := present.get(name))})


def install_triggers(conn: sqlite3.Connection, table: str, present: dict[str, str | None]) -> None:
    """(Re)create the change-tracking triggers on ``table`` (inside the write transaction)."""
    columns = tracked_columns(present)
    names = {k: quote(v) for k, v in trigger_names(table).items()}
    run_script(
        conn, "triggers", table=quote(table), columns=", ".join(map(quote, columns)), **names
    )
    conn.execute(
        "INSERT OR REPLACE INTO _webdedup_meta (key, value) VALUES ('triggers', ?)",
        (json.dumps({"table": table, "columns": columns}),),
    )


def triggers_intact(conn: sqlite3.Connection, table: str, present: dict[str, str | None]) -> bool:
    """True when all three triggers exist on ``table`` for the current tracked columns."""
    found = {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?", (table,)
        )
    }
    if not set(trigger_names(table).values()) <= found:
        return False
    row = conn.execute("SELECT value FROM _webdedup_meta WHERE key = 'triggers'").fetchone()
    want = {"table": table, "columns": tracked_columns(present)}
    return bool(row) and json.loads(row[0]) == want


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    if not table_exists(conn, "_webdedup_meta"):
        return None
    row = conn.execute("SELECT value FROM _webdedup_meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def max_queued(conn: sqlite3.Connection) -> int:
    if not table_exists(conn, "_webdedup_changes"):
        return 0
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM _webdedup_changes").fetchone()[0])


def plan_run(
    conn: sqlite3.Connection,
    config: Config,
    table: str,
    present: dict[str, str | None],
    full: bool,
) -> Plan:
    """Decide between a full and an incremental run (read-only)."""
    seq = max_queued(conn)
    version = schema_version(conn)
    tracked = version >= 2 and triggers_intact(conn, table, present)
    if full:
        return Plan("full", "a full run was asked for (--full)", seq, tracked)
    if version == 0 or not table_exists(conn, "_prepared"):
        return Plan("full", "first run on this database", seq, tracked)
    needed = 3 if config.method == "levenshtein" else 2  # 3: the stored window nodes
    if version < needed:
        reason = f"the stored state is from an older webdedup (schema {version})"
        return Plan("full", reason, seq, tracked)
    stored = _meta(conn, "fingerprint")
    if stored != config.fingerprint():
        return Plan(
            "full",
            "the parameters that shape signatures or edges changed since the last run "
            f"(fingerprint {stored} -> {config.fingerprint()}): rebuilding everything",
            seq,
            tracked,
        )
    missed = _meta(conn, MISSED)
    if missed:
        return Plan("full", missed, seq, tracked)
    if not tracked:
        return Plan(
            "full",
            f"the change-tracking triggers on {table!r} are missing (the table was rebuilt or "
            "the triggers dropped): running a full pass and installing them again",
            seq,
            tracked,
        )
    return Plan("incremental", "only the changes queued since the last run", seq)


def changed_ids(
    conn: sqlite3.Connection, table: str, url_column: str, max_seq: int, stable_rowids: bool
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
        prepared = dict(conn.execute("SELECT id, url_hash FROM main._prepared"))
        for rowid, url in conn.execute(f"SELECT rowid, {quote(url_column)} FROM {quote(table)}"):
            if isinstance(url, bytes):
                url = url.decode("utf-8", "replace")
            if prepared.pop(rowid, None) != url_hash(url if isinstance(url, str) else None):
                renumbered.add(rowid)
        renumbered.update(prepared)  # prepared ids that are gone
    return ids | renumbered, len(renumbered - ids)


def build_region(ctx: Any, changed: set[int]) -> dict[str, int]:
    """Grow the region from the changed pages and load its unchanged pages' state.

    Expects ``temp.run_prepared``/``run_sketches``/``run_bands`` to hold the changed pages
    (phase 1 on them); leaves every region page there and the region ids in ``run_region``.
    """
    conn = ctx.conn
    run_script(conn, "region_tables")
    conn.executemany("INSERT INTO temp.run_changed (id) VALUES (?)", [(i,) for i in changed])
    conn.execute("INSERT INTO temp.run_region (id) SELECT id FROM temp.run_changed")
    # new near-duplicate candidates of the changed pages: their LSH band collisions
    if ctx.config.method == "simhash":
        _add_simhash_neighbours(ctx)
    else:
        run_script(conn, "region_bands")
    if ctx.config.n_min > 0:  # a changed page changes its host's page count
        conn.execute(
            "INSERT OR IGNORE INTO temp.run_region (id) SELECT id FROM main._prepared "
            "WHERE host IN (SELECT host FROM main._prepared WHERE id IN "
            "(SELECT id FROM temp.run_changed) UNION SELECT host FROM temp.run_prepared)"
        )
    conn.execute("INSERT INTO temp.run_frontier (id) SELECT id FROM temp.run_region")
    steps = _close_region(conn)
    run_script(conn, "region_load")
    _load_bands(ctx)
    (size,) = conn.execute("SELECT count(*) FROM temp.run_region").fetchone()
    return {"changed": len(changed), "region": size, "steps": steps}


def grow_region(ctx: Any, ids: set[int]) -> dict[str, int]:
    """Add unchanged pages (and all they link to) to the region; load their stored state.

    The levenshtein window asks for it when a window pair links the region to them.
    """
    conn = ctx.conn
    conn.execute("DELETE FROM temp.run_frontier")
    conn.executemany(
        "INSERT INTO temp.run_frontier (id) SELECT ?1 "
        "WHERE ?1 NOT IN (SELECT id FROM temp.run_region)",
        [(i,) for i in sorted(ids)],
    )
    conn.execute("INSERT OR IGNORE INTO temp.run_region (id) SELECT id FROM temp.run_frontier")
    steps = _close_region(conn)
    run_script(conn, "region_load")
    (size,) = conn.execute("SELECT count(*) FROM temp.run_region").fetchone()
    return {"region": size, "steps": steps}


def _add_simhash_neighbours(ctx: Any) -> None:
    """Add the stored pages within the SimHash distance of a changed page to the region.

    Short band keys collide by chance (a 16-bit key with 1 page in 65,536); the SimHashes
    at hand tell at once whether a collision can become an edge, and only those can change
    anything. (A MinHash collision needs the texts to verify: all of them join the region.)
    """
    d = NearSpec.from_config(ctx.config).max_distance
    conn = ctx.conn
    near = {
        pid
        for a, pid, b in conn.execute(sql("region_band_pairs"))
        if hamming(int.from_bytes(a, "little"), int.from_bytes(b, "little")) <= d
    }
    conn.executemany("INSERT OR IGNORE INTO temp.run_region (id) VALUES (?)", [(i,) for i in near])


def _close_region(conn: sqlite3.Connection) -> int:
    """Grow the region from its frontier until nothing new links to it; returns the steps."""
    steps = 0
    while True:
        steps += 1
        run_script(conn, "region_step")
        added = conn.execute("SELECT count(*) FROM temp.run_frontier").fetchone()[0]
        if added == 0:
            return steps


def _load_bands(ctx: Any) -> None:
    """Band rows of the region from its stored sketches (stored bands have no id index).

    ``run_bands`` gets the bands of the unchanged region pages (the changed ones already have
    theirs), ``run_old_bands`` the stored bands of every region page, for the write-back to
    delete.
    """
    from .near import store_bands

    if ctx.config.method == "levenshtein":
        return
    conn = ctx.conn
    spec = NearSpec.from_config(ctx.config)
    loaded = conn.execute(
        "SELECT id, sketch FROM temp.run_sketches WHERE id NOT IN (SELECT id FROM temp.run_changed)"
    ).fetchall()
    store_bands(
        conn,
        "run_bands",
        [i for i, _ in loaded],
        band_keys_from_blobs(spec, [b for _, b in loaded]),
    )
    old = conn.execute(
        "SELECT id, sketch FROM main._webdedup_sketches "
        "WHERE id IN (SELECT id FROM temp.run_region)"
    ).fetchall()
    store_bands(
        conn, "run_old_bands", [i for i, _ in old], band_keys_from_blobs(spec, [b for _, b in old])
    )
