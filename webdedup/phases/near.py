"""Phase 4, near-duplicates: candidates, verification, clustering.

Sketches (MinHash signatures or SimHashes) and their LSH band keys are computed in phase 1,
while the text is in hand (``prepare.prepare_batch``). The nodes of phase 4 are the distinct
texts of the exact groups (``sql/near_nodes.sql``). Candidates are pairs of nodes of different
groups that share a band key (an SQL self-join on an index); each candidate is **verified**
before it becomes an edge: the overlap coefficient (or Jaccard) of the true shingle sets for
``minhash``, the SimHash similarity for ``simhash``. The ``levenshtein`` method compares each
node with the next ``distance`` ones in canonical-URL order instead. Edges are lifted to the
exact groups and clustered by :func:`group_near` (stars, no chaining).

Pages with fewer than ``min_words`` words are never sketched nor compared.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ..election import order_by_sql
from ..near.cluster import degree_stars
from ..near.levenshtein import window_pairs
from ..near.shingles import shingle_hashes
from ..near.simhash import HASH_BITS, hamming_distances
from ..near.sketch import (
    LEVENSHTEIN_MAX_CHARS,
    NearSpec,
    candidates_from_keys,
    pair_score,
    sketch_texts,
    text_similarity,
)
from ..parallel import ordered_map
from ..store import run_script, sql
from ..text import digest_text
from . import window
from .prepare import PageInput, fetch_pages, fetch_texts, page_text, worker_count

#: Candidate pairs of the simhash method verified at a time.
SIMHASH_BATCH = 100_000
#: Candidate pairs per verification job handed to a worker process.
VERIFY_CHUNK = 1_000
#: Below this many candidate pairs verification stays in one process.
PARALLEL_MIN_PAIRS = 1_000


def levenshtein_edges(
    spec: NearSpec, ids: Sequence[int], texts: Sequence[str], workers: int
) -> Iterator[tuple[int, int, float]]:
    """Edges of the sorted-URL window (``ids``/``texts`` already in canonical-URL order)."""
    for i, j, score in window_pairs(
        texts, spec.distance, spec.threshold, workers=workers, max_chars=LEVENSHTEIN_MAX_CHARS
    ):
        a, b = ids[i], ids[j]
        yield (a, b, score) if a < b else (b, a, score)


# -- the database side -------------------------------------------------------------------------
def store_sketches(
    conn: Any, scheme: str, ids: Sequence[int], sketches: Sequence[tuple[bytes, list[int]]]
) -> None:
    """Insert sketches and their LSH band keys into the run's work tables."""
    conn.executemany(
        "INSERT INTO temp.run_sketches (id, scheme, sketch) VALUES (?, ?, ?)",
        [(pid, scheme, blob) for pid, (blob, _) in zip(ids, sketches, strict=True)],
    )
    store_bands(conn, "run_bands", ids, [keys for _, keys in sketches])


def store_bands(conn: Any, table: str, ids: Sequence[int], keys: Sequence[list[int]]) -> None:
    """Insert ``(band_key, id)`` rows into a TEMP table (one JSON array a page: measured
    twice as fast as a row-by-row executemany)."""
    conn.executemany(
        f"INSERT OR IGNORE INTO temp.{table} (band_key, id) SELECT value, ? FROM json_each(?)",
        [(pid, json.dumps(k)) for pid, k in zip(ids, keys, strict=True)],
    )


def run(ctx: Any) -> dict[str, Any]:
    """Phase 4 over the distinct texts of the exact groups; fills ``run_edges``/``run_near``.

    Returns counts (``candidates``, ``edges``), or, in an incremental levenshtein run whose
    window links the region to pages outside it, ``pull``: those pages' ids (nothing filled;
    the caller grows the region and runs phases 2-4 again).
    """
    conn, config = ctx.conn, ctx.config
    spec = NearSpec.from_config(config)
    run_script(conn, "near_nodes", {"min_words": spec.min_words})
    component = dict(conn.execute("SELECT id, component FROM temp.run_near_nodes"))
    if spec.method == "levenshtein" and ctx.incremental:
        found = window.incremental_run(ctx, spec, component)
        if isinstance(found, set):  # the region must grow first
            return {"candidates": 0, "edges": 0, "pull": found}
        edges = found
        candidates = len(edges)
    elif spec.method == "levenshtein":
        found = window.full_run(ctx, spec, component)
        edges = [e for e in found if component[e[0]] != component[e[1]]]
        candidates = len(edges)
    else:
        candidates, edges = _banded_run(ctx, spec)
    conn.executemany(
        "INSERT OR REPLACE INTO temp.run_edges (a, b, score, method) VALUES (?, ?, ?, ?)",
        [(a, b, s, spec.method) for a, b, s in edges],
    )
    group_edges = component_edges(edges, component)
    linked = {x for pair in group_edges for x in pair}
    order = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM temp.run_prepared WHERE id IN "
            f"({', '.join(map(str, sorted(linked))) or 'NULL'}) "
            f"ORDER BY {order_by_sql(config.election)}"
        )
    ]

    def score_of(a: int, b: int) -> float:
        texts = fetch_texts(ctx, (a, b))
        return text_similarity(spec, texts[a], texts[b])

    assigned = group_near(order, group_edges, score_of, config.chain_floor)
    conn.executemany(
        "INSERT INTO temp.run_near (id, center, score) VALUES (?, ?, ?)",
        [(pid, c, s) for pid, (c, s) in assigned.items()],
    )
    return {"candidates": candidates, "edges": len(edges)}


def component_edges(
    edges: Iterable[tuple[int, int, float]], component: dict[int, int]
) -> dict[tuple[int, int], float]:
    """Lift page edges to edges between exact groups (keyed by their winners), best score."""
    out: dict[tuple[int, int], float] = {}
    for a, b, score in edges:
        ca, cb = component[a], component[b]
        if ca == cb:
            continue
        key = (ca, cb) if ca < cb else (cb, ca)
        if score > out.get(key, -1.0):
            out[key] = score
    return out


def group_near(
    order: Sequence[int],
    group_edges: dict[tuple[int, int], float],
    score_of: Callable[[int, int], float],
    chain_floor: float,
) -> dict[int, tuple[int, float]]:
    """``{exact winner: (canonical, score)}`` for every group that joins a near group (pure).

    The rule against chaining: groups form stars around the best-connected group
    (:func:`degree_stars`), so every member has a verified edge to its centre; the canonical
    of a star is its best member by election order; and a member stays only when its
    similarity to that canonical (the edge's score, else ``score_of``) is at least
    ``chain_floor``. Members that fail are clustered again among themselves. So A~B~C with A
    and C unrelated never becomes one group, while two copies of one original that are a
    little less alike than the threshold (both linked to it) stay together.
    """
    out: dict[int, tuple[int, float]] = {}
    pending = set(order)
    while True:
        sub_order = [n for n in order if n in pending]
        sub_edges = [
            (a, b, s) for (a, b), s in group_edges.items() if a in pending and b in pending
        ]
        stars = degree_stars(sub_order, sub_edges)
        if not stars:
            return out
        evicted: set[int] = set()
        for members in stars.values():
            canonical = members[0]
            for m in members[1:]:
                key = (m, canonical) if m < canonical else (canonical, m)
                score = group_edges.get(key)
                if score is None:
                    score = score_of(m, canonical)
                if score >= chain_floor:
                    out[m] = (canonical, round(score, 6))
                else:
                    evicted.add(m)
            pending.difference_update(set(members) - evicted)
        if not evicted:
            return out


def _banded_run(ctx: Any, spec: NearSpec) -> tuple[int, list[tuple[int, int, float]]]:
    conn = ctx.conn
    if spec.method == "simhash":  # the stored SimHashes are all verification needs: no cache
        return _simhash_run(ctx, spec)
    pairs = conn.execute(sql("near_candidates")).fetchall()
    bar = ctx.bar("verify", total=len(pairs), unit="pair")
    # minhash: true shingle sets, computed from the texts in worker processes; texts verified
    # by an earlier run (cached by their content hashes) are not verified again
    hashes = dict(
        conn.execute(
            "SELECT id, content_hash FROM temp.run_prepared "
            "WHERE id IN (SELECT id FROM temp.run_near_nodes)"
        )
    )
    scores: dict[tuple[int, int], float] = {}
    todo = pairs
    if ctx.incremental:
        todo = []
        for a, b in pairs:
            cached = conn.execute(sql("verified_lookup"), _hash_pair(hashes, a, b)).fetchone()
            if cached is None:
                todo.append((a, b))
            else:
                scores[(a, b)] = cached[0]
        bar.update(len(pairs) - len(todo))
    workers = worker_count(ctx.config, len(todo), minimum=PARALLEL_MIN_PAIRS)
    chunks = [todo[i : i + VERIFY_CHUNK] for i in range(0, len(todo), VERIFY_CHUNK)]
    jobs = (
        (spec, fetch_pages(ctx, {x for pair in chunk for x in pair}), chunk) for chunk in chunks
    )
    for chunk, found in zip(chunks, ordered_map(verify_chunk, jobs, workers), strict=True):
        scores.update(found)
        bar.update(len(chunk))
    bar.close()
    conn.executemany(
        "INSERT OR IGNORE INTO temp.run_verified (hash_a, hash_b, score) VALUES (?, ?, ?)",
        [(*_hash_pair(hashes, a, b), s) for (a, b), s in scores.items()],
    )
    edges = [(a, b, s) for (a, b), s in sorted(scores.items()) if s >= spec.threshold]
    return len(pairs), edges


def _hash_pair(hashes: dict[int, str], a: int, b: int) -> tuple[str, str]:
    ha, hb = hashes[a], hashes[b]
    return (ha, hb) if ha < hb else (hb, ha)


def score_pairs(
    spec: NearSpec, feats: dict[int, Any], pairs: Iterable[tuple[int, int]]
) -> dict[tuple[int, int], float]:
    """The similarity of each candidate pair (features: shingle arrays or SimHashes)."""
    return {(a, b): round(float(pair_score(spec, feats[a], feats[b])), 6) for a, b in pairs}


def verify_chunk(
    spec: NearSpec, pages: dict[int, PageInput], pairs: Sequence[tuple[int, int]]
) -> dict[tuple[int, int], float]:
    """Score candidate pairs from the raw pages (pure; runs in worker processes)."""
    feats = {
        pid: shingle_hashes(digest_text(page_text(page)).sketch, spec.shingle_size)
        for pid, page in pages.items()
    }
    return score_pairs(spec, feats, pairs)


def _simhash_run(ctx: Any, spec: NearSpec) -> tuple[int, list[tuple[int, int, float]]]:
    """Stream the candidates with their SimHashes and keep those within the distance.

    Random band collisions grow with the square of the pages (12 million candidates for
    200,000 pages at 0.9): they are never held all at once, and each batch is verified with
    array arithmetic against the SimHashes of the run (8 bytes a page, in memory).
    """
    conn = ctx.conn
    stored = conn.execute("SELECT id, sketch FROM temp.run_sketches ORDER BY id").fetchall()
    known = np.array([pid for pid, _ in stored], dtype=np.int64)  # sorted
    hashes = np.frombuffer(b"".join(blob for _, blob in stored), dtype="<u8")
    del stored
    cursor = conn.execute(sql("near_candidates"))
    bar = ctx.bar("verify", unit="pair")
    candidates = 0
    edges: list[tuple[int, int, float]] = []
    while rows := cursor.fetchmany(SIMHASH_BATCH):
        ids = np.array(rows, dtype=np.int64)
        ha = hashes[np.searchsorted(known, ids[:, 0])]
        hb = hashes[np.searchsorted(known, ids[:, 1])]
        distance = hamming_distances(ha, hb)
        for k in np.flatnonzero(distance <= spec.max_distance).tolist():
            score = round((HASH_BITS - int(distance[k])) / HASH_BITS, 6)
            edges.append((int(ids[k, 0]), int(ids[k, 1]), score))
        candidates += len(rows)
        bar.update(len(rows))
    bar.close()
    return candidates, sorted(edges)


def near_in_memory(
    spec: NearSpec,
    nodes: Sequence[tuple[int, int, str, str]],
    order: Sequence[int],
    texts: dict[int, str],
) -> tuple[list[tuple[int, int, float]], dict[int, tuple[int, float]]]:
    """The twin of :func:`run` for ``run_on_list``.

    ``nodes`` are ``(page id, exact group winner, url_key, normalized text)``; ``order`` lists
    the exact winners in election order; ``texts`` maps page ids to normalized texts.
    """
    component = {n[0]: n[1] for n in nodes}
    if spec.method == "levenshtein":
        ordered = sorted(nodes, key=lambda n: (n[2], n[0]))
        edges = [
            e
            for e in levenshtein_edges(spec, [n[0] for n in ordered], [n[3] for n in ordered], 1)
            if component[e[0]] != component[e[1]]
        ]
    else:
        sketches = sketch_texts(spec, [n[3] for n in nodes])
        keys = {n[0]: s[1] for n, s in zip(nodes, sketches, strict=True)}
        if spec.method == "minhash":
            feats: dict[int, Any] = {n[0]: shingle_hashes(n[3], spec.shingle_size) for n in nodes}
        else:
            feats = {
                n[0]: int.from_bytes(s[0], "little") for n, s in zip(nodes, sketches, strict=True)
            }
        pairs = [
            (a, b) for a, b in sorted(candidates_from_keys(keys)) if component[a] != component[b]
        ]
        edges = [
            (a, b, s)
            for (a, b), s in score_pairs(spec, feats, pairs).items()
            if s >= spec.threshold
        ]
    group_edges = component_edges(edges, component)
    linked = {x for pair in group_edges for x in pair}
    assigned = group_near(
        [w for w in order if w in linked],
        group_edges,
        lambda a, b: text_similarity(spec, texts[a], texts[b]),
        spec.chain_floor,
    )
    return edges, assigned
