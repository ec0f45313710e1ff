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

import numpy as np

from ..algorithms.bands import NewKeys
from ..algorithms.simhash import hamming_distances
from ..algorithms.sketch import NearSpec, band_matrix, packed_band_matrix, simhashes, sketch_width
from ..config import Config
from ..store import run_script, sql
from ..store.sketch_blocks import stored_sketches
from ..store.state import host_pages


def build_region(
    conn: sqlite3.Connection, config: Config, spec: NearSpec, changed: set[int]
) -> dict[str, int]:
    """Grow the region from the changed pages and load its unchanged pages' state.

    Expects ``temp.run_prepared``/``run_sketches`` to hold the changed pages (phase 1 on
    them); leaves every region page there and the region ids in ``run_region``.
    """
    run_script(conn, "region_tables")
    conn.executemany("INSERT INTO temp.run_changed (id) VALUES (?)", [(i,) for i in changed])
    conn.execute("INSERT INTO temp.run_region (id) SELECT id FROM temp.run_changed")
    own = own_content_on(config)
    # a changed page changes its host's page count (n_min) and the lines its host repeats
    if config.n_min > 0 or own:
        conn.execute(sql("region_hosts", host_pages=host_pages(conn)))
    # new near-duplicate candidates of the changed pages: their LSH band collisions; with own
    # content also those of their hosts' other pages, whose own texts may change with the
    # host's repeated lines, and with them whether they are near-duplicates of the pages
    # their band keys meet. One pass over the stored sketches for both.
    if spec.method != "levenshtein":
        of = [_CHANGED_SKETCHES] + ([sql("region_own_host_sketches")] if own else [])
        # with own content a SimHash of an own text may be nearer than the whole text's
        _add_band_neighbours(conn, spec, within=not own, of=of)
    conn.execute("INSERT INTO temp.run_frontier (id) SELECT id FROM temp.run_region")
    steps = _close_region(conn)
    run_script(conn, "region_load")
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


def own_content_on(config: Config) -> bool:
    """Whether near decisions rest on own content (as ``pipeline.own_content.enabled``)."""
    return bool(config.own_content) and config.method != "vectors"


#: The changed pages' sketches (phase 1 made them).
_CHANGED_SKETCHES = "SELECT id, sketch FROM temp.run_sketches ORDER BY id"


def _add_band_neighbours(
    conn: sqlite3.Connection, spec: NearSpec, within: bool, of: list[str]
) -> None:
    """Add the stored pages that share an LSH band key with a page of the queries ``of``
    (``id, sketch`` rows: the changed pages, their hosts' pages) to the region.

    The stored sketches are read a chunk at a time (from their blocks where they are held:
    :func:`~webdedup.store.sketch_blocks.stored_sketches`) and their band keys compared with the
    changed pages' in memory (:class:`~webdedup.algorithms.bands.NewKeys`). ``simhash``
    keeps only the collisions within the distance (``within``; not with own content, whose
    SimHashes are not stored): short band keys collide by chance (a
    16-bit key with 1 page in 65,536) and the SimHashes at hand tell at once whether one can
    become an edge. (A MinHash collision needs the texts to verify: all join the region.)
    """
    changed = [row for query in of for row in conn.execute(query).fetchall()]
    if not changed:
        return
    blobs = [blob for _, blob in changed]
    new_keys = NewKeys(band_matrix(spec, blobs))
    new_hashes = simhashes(blobs) if spec.method == "simhash" and within else None
    found: set[int] = set()
    # a chunk of stored pages at a time: bounded memory at any size
    for chunk in stored_sketches(conn, sketch_width(spec)):
        i, m = new_keys.collisions(packed_band_matrix(spec, chunk.packed))
        if new_hashes is not None and m.size:
            near = hamming_distances(new_hashes[i], simhashes([chunk.packed])[m])
            m = m[near <= spec.candidate_distance]
        found.update(chunk.ids[np.unique(m)].tolist())
    conn.executemany(
        "INSERT OR IGNORE INTO temp.run_region (id) VALUES (?)", [(i,) for i in sorted(found)]
    )


def _close_region(conn: sqlite3.Connection) -> int:
    """Grow the region from its frontier until nothing new links to it; returns the steps."""
    steps = 0
    while True:
        steps += 1
        run_script(conn, "region_step")
        added = conn.execute("SELECT count(*) FROM temp.run_frontier").fetchone()[0]
        if added == 0:
            return steps
