"""The region a nightly run recomputes.

A nightly run prepares only the changed pages (:mod:`.plan` finds them), then grows a
*region* from them: every page linked to a changed page by a
canonical URL, a content hash, a stored near-duplicate edge or an LSH band collision, and so
on transitively (``sql/region.sql``). The region is a union of whole components of the link
graph, and every phase's result on a component depends on that component alone, so running
the unchanged phases 2-4 on the region gives exactly what a full run would give there; the
pages outside it keep their annotations.

The levenshtein window links pages by their place in the URL order, which no index holds:
phase 4 finds the window pairs that link the region to pages outside it
(``pipeline.phase4_window.incremental_run``), :func:`grow_region` takes those pages in, and phases
2-4 run again until the region is closed.
"""

from __future__ import annotations

import sqlite3

from ..algorithms.simhash import hamming
from ..algorithms.sketch import NearSpec, band_keys_from_blobs
from ..config import Config
from ..store import run_script, sql
from ..store.work import store_bands


def build_region(
    conn: sqlite3.Connection, config: Config, spec: NearSpec, changed: set[int]
) -> dict[str, int]:
    """Grow the region from the changed pages and load its unchanged pages' state.

    Expects ``temp.run_prepared``/``run_sketches``/``run_bands`` to hold the changed pages
    (phase 1 on them); leaves every region page there and the region ids in ``run_region``.
    """
    run_script(conn, "region_tables")
    conn.executemany("INSERT INTO temp.run_changed (id) VALUES (?)", [(i,) for i in changed])
    conn.execute("INSERT INTO temp.run_region (id) SELECT id FROM temp.run_changed")
    # new near-duplicate candidates of the changed pages: their LSH band collisions
    if spec.method == "simhash":
        _add_simhash_neighbours(conn, spec)
    else:
        run_script(conn, "region_bands")
    if config.n_min > 0:  # a changed page changes its host's page count
        conn.execute(sql("region_small_hosts"))
    conn.execute("INSERT INTO temp.run_frontier (id) SELECT id FROM temp.run_region")
    steps = _close_region(conn)
    run_script(conn, "region_load")
    _load_bands(conn, spec)
    (size,) = conn.execute("SELECT count(*) FROM temp.run_region").fetchone()
    return {"changed": len(changed), "region": size, "steps": steps}


def grow_region(conn: sqlite3.Connection, ids: frozenset[int] | set[int]) -> dict[str, int]:
    """Add unchanged pages (and all they link to) to the region; load their stored state.

    The levenshtein window asks for it when a window pair links the region to them.
    """
    conn.execute("DELETE FROM temp.run_frontier")
    conn.executemany(sql("region_add_frontier"), [{"id": i} for i in sorted(ids)])
    conn.execute("INSERT OR IGNORE INTO temp.run_region (id) SELECT id FROM temp.run_frontier")
    steps = _close_region(conn)
    run_script(conn, "region_load")
    (size,) = conn.execute("SELECT count(*) FROM temp.run_region").fetchone()
    return {"region": size, "steps": steps}


def _add_simhash_neighbours(conn: sqlite3.Connection, spec: NearSpec) -> None:
    """Add the stored pages within the SimHash distance of a changed page to the region.

    Short band keys collide by chance (a 16-bit key with 1 page in 65,536); the SimHashes
    at hand tell at once whether a collision can become an edge, and only those can change
    anything. (A MinHash collision needs the texts to verify: all of them join the region.)
    """
    d = spec.max_distance
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


def _load_bands(conn: sqlite3.Connection, spec: NearSpec) -> None:
    """Band rows of the region from its stored sketches (stored bands have no id index).

    ``run_bands`` gets the bands of the unchanged region pages (the changed ones already have
    theirs), ``run_old_bands`` the stored bands of every region page, for the write-back to
    delete.
    """
    if spec.method == "levenshtein":
        return
    loaded = conn.execute(sql("region_unchanged_sketches")).fetchall()
    store_bands(
        conn,
        "run_bands",
        [i for i, _ in loaded],
        band_keys_from_blobs(spec, [b for _, b in loaded]),
    )
    old = conn.execute(sql("region_stored_sketches")).fetchall()
    store_bands(
        conn, "run_old_bands", [i for i, _ in old], band_keys_from_blobs(spec, [b for _, b in old])
    )
