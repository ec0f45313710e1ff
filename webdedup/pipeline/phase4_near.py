"""Phase 4, near-duplicates: candidates, verification, clustering.

Sketches (for ``minhash`` its LSH band keys, for ``simhash`` the SimHash) are computed in phase 1,
while the text is in hand (``phase1_prepare.prepare_batch``). The nodes of phase 4 are the distinct
texts of the exact groups (``sql/near_nodes.sql``). Candidates are pairs of nodes of different
groups that share a band key (found by sorting the band keys of their sketches in memory:
:func:`~webdedup.algorithms.bands.candidate_pairs`); each candidate is **verified**
before it becomes an edge: the Levenshtein ratio, moved ratio or containment of the two texts
(:func:`~webdedup.algorithms.sketch.verify`), for ``minhash`` and ``simhash`` alike (a
``simhash`` candidate's SimHashes are also within the candidate distance). The
``levenshtein`` method compares each node with the next ``distance`` ones in canonical-URL
order instead. Edges are lifted to the exact groups and clustered by
:func:`~webdedup.algorithms.cluster.group_near` (stars, no chaining).

Pages shorter than ``min_words`` words (:func:`~webdedup.algorithms.text.word_length`) are
never sketched nor compared.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence, Set
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..algorithms.bands import (
    candidate_pairs,
    component_order,
    pair_components,
    pairs_by_band,
)
from ..algorithms.cluster import Edges, GroupOf, group_near, group_pairs, groups_apart
from ..algorithms.simhash import hamming_distances, simhash
from ..algorithms.sketch import (
    NearSpec,
    features,
    packed_band_matrix,
    pair_score,
    simhashes,
    sketch_width,
    text_similarity,
)
from ..parallel import ordered_map
from ..progress import Progress
from ..store import lenient_text, run_script, sql
from ..store.pages import PageInput, fetch_pages, fetch_texts, page_digest, page_sketch_utf8
from ..store.spool import BandColumns
from ..store.verdicts import Verdicts
from ..store.work import packed_sketches
from . import language_guard, own_content, phase4_window, segments, staging
from .context import NearResult, RunContext, election_sql
from .phase1_prepare import worker_count
from .phase4_window import WindowScores

#: Candidate pairs of the simhash method compared by their SimHashes at a time.
SIMHASH_BATCH = 100_000
#: Candidate pairs per verification job handed to a worker process.
VERIFY_CHUNK = 1_000
#: Below this many candidate pairs verification stays in one process.
PARALLEL_MIN_PAIRS = 1_000
#: Edges between exact groups clustered at a time (whole connected components: a larger
#: component is clustered whole).
CLUSTER_CHUNK = 20_000


def run(ctx: RunContext, verdicts: Verdicts, window_scores: WindowScores) -> NearResult:
    """Phase 4 over the distinct texts of the exact groups; fills ``run_edges``/``run_near``.

    ``verdicts``: the reviewers' (their "not a duplicate" pairs stay apart, their chosen
    canonicals win). In an incremental levenshtein run whose window links the region to
    pages outside it, the result's ``pull`` names those pages and nothing is filled: the
    caller grows the region and runs phases 2-4 again, with the same ``window_scores`` (the
    window's scores so far, which that run adds to and does not compute again).
    """
    conn, spec = ctx.conn, ctx.spec
    with ctx.step("near.nodes"):
        run_script(conn, "near_nodes", {"min_words": spec.min_words})
    with ctx.step("near.own"):
        ctx.record("own", own_content.run(ctx))  # own texts; thin nodes leave the near nodes
    component: dict[int, int] | GroupOf
    edges: Edges | list[tuple[int, int, float]]
    if spec.method == "levenshtein":  # the window meets every node
        window_component = dict(conn.execute("SELECT id, component FROM temp.run_near_nodes"))
        component = window_component
    if spec.method == "levenshtein" and ctx.incremental:
        window_result = phase4_window.incremental_run(ctx, window_component, window_scores)
        if window_result.pull:  # the region must grow first
            return NearResult(candidates=0, edges=0, pull=window_result.pull)
        edges = window_result.edges
        candidates = len(edges)
    elif spec.method == "levenshtein":
        found = phase4_window.full_run(ctx, window_component)
        edges = [e for e in found if window_component[e[0]] != window_component[e[1]]]
        candidates = len(edges)
    else:
        candidates, edges = _banded_run(ctx, spec)
        # the exact groups of the edges' pages only, as arrays (a dict of every node: 100 MB
        # a million)
        component = GroupOf.from_rows(
            conn.execute(sql("near_edge_components"), (spec.threshold,) * 2)
        )

    def score_of(a: int, b: int) -> float:
        if ctx.config.strip_segments:
            texts = segments.stripped_texts(ctx, (a, b))
        else:
            texts = fetch_texts(conn, ctx.layout, (a, b))
        texts |= {
            i: page_digest(PageInput(i, None, t)).sketch
            for i, t in own_content.own_texts(ctx, (a, b)).items()
        }
        return text_similarity(spec, texts[a], texts[b])

    with ctx.step("near.cluster"):
        edges = cluster_edges(ctx, verdicts, edges, component, score_of)
    return NearResult(candidates=candidates, edges=len(edges))


def cluster_edges(
    ctx: RunContext,
    verdicts: Verdicts,
    edges: Edges | Sequence[tuple[int, int, float]],
    component: GroupOf | dict[int, int],
    score_of: Callable[[int, int], float],
) -> Edges:
    """Store a method's verified edges and group them (every method's last step).

    The language guard drops edges between pages surely in different languages; the edges
    go into ``temp.run_edges``; the reviewers' "not a duplicate" ``verdicts``, lifted to
    the exact groups, keep pairs out of one group; :func:`group_near` makes the stars (no
    chaining, ``chain_floor`` against the canonical by ``score_of``) in election order
    (the reviewers' chosen canonicals first) into ``temp.run_near``, some whole connected
    components at a time (its sets and heaps then hold a chunk's groups, not every linked
    group of the run: at a million pages they took 190 MB at once). Returns the edges kept.
    """
    conn = ctx.conn
    edges = language_guard.keep_same_language(conn, Edges.of(edges))
    method = ctx.spec.method
    conn.executemany(  # (a generator: a list of the rows would be another copy of the edges)
        "INSERT OR REPLACE INTO temp.run_edges (a, b, score, method) VALUES (?, ?, ?, ?)",
        ((a, b, s, method) for a, b, s in edges.rows()),
    )
    apart = _groups_apart(ctx, verdicts.cannot_link)
    lo, hi, score = group_pairs(edges, component, apart)
    apart_of: dict[int, list[tuple[int, int]]] = {}  # each cannot-link pair under its first
    for pair in apart:
        apart_of.setdefault(pair[0], []).append(pair)
    election = _ElectionOrder(ctx, verdicts, np.unique(np.concatenate([lo, hi])))
    labels = pair_components(lo, hi)
    by_component = np.argsort(labels, kind="stable")
    lo, hi, score, labels = (x[by_component] for x in (lo, hi, score, labels))
    for start, end in _whole_components(labels, CLUSTER_CHUNK):
        pairs = zip(lo[start:end].tolist(), hi[start:end].tolist(), strict=True)
        chunk = dict(zip(pairs, score[start:end].tolist(), strict=True))
        nodes = {x for pair in chunk for x in pair}
        order = election.order(nodes)
        here = [pair for x in nodes for pair in apart_of.get(x, ()) if pair[1] in nodes]
        assigned = group_near(order, chunk, score_of, ctx.config.chain_floor, here)
        conn.executemany(
            "INSERT INTO temp.run_near (id, center, score) VALUES (?, ?, ?)",
            [(pid, c, s) for pid, (c, s) in assigned.items()],
        )
    return edges


def _whole_components(labels: np.ndarray, size: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` slices of ``labels`` (sorted) of about ``size`` rows each, cut only
    between two components (a larger component is one slice).

    >>> list(_whole_components(np.array([0, 0, 0, 1, 2, 2]), 2))
    [(0, 3), (3, 6)]
    >>> list(_whole_components(np.array([0, 1, 2, 3, 4]), 2))
    [(0, 2), (2, 4), (4, 5)]
    """
    start = 0
    while start < len(labels):
        end = min(start + size, len(labels))
        while end < len(labels) and labels[end] == labels[end - 1]:
            end += 1
        yield start, end
        start = end


class _ElectionOrder:
    """The election order of the exact groups' winners that have group edges (those of
    ``run_prepared``), as two arrays (16 bytes a node, not a dict's 100)."""

    def __init__(self, ctx: RunContext, verdicts: Verdicts, ids: np.ndarray) -> None:
        conn = ctx.conn
        conn.execute("DELETE FROM temp.run_linked")  # (sql/run_tables.sql; phase 4 may rerun)
        conn.executemany("INSERT INTO temp.run_linked VALUES (?)", ((i,) for i in ids.tolist()))
        query = (
            "SELECT id FROM temp.run_prepared WHERE id IN (SELECT node FROM temp.run_linked) "
            f"ORDER BY {election_sql(ctx.config, verdicts)}"
        )
        ranked = np.fromiter((r[0] for r in conn.execute(query)), np.int64)
        conn.execute("DELETE FROM temp.run_linked")
        self._rank = np.argsort(ranked, kind="stable")  # the rank of the k-th smallest id
        self._ids = ranked[self._rank]  # ascending

    def order(self, nodes: Iterable[int]) -> list[int]:
        """``nodes`` in election order (those it does not know left out)."""
        ask = np.fromiter(nodes, np.int64)
        at = np.searchsorted(self._ids, ask)
        hit = at < len(self._ids)
        hit[hit] = self._ids[at[hit]] == ask[hit]
        return ask[hit][np.argsort(self._rank[at[hit]])].tolist()


def _groups_apart(ctx: RunContext, cannot_link: Set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The cannot-link page pairs of the reviewers' verdicts as pairs of exact groups (their
    winners). Pages that are gone, ignored or outside an incremental region drop out (a
    region is closed under links, so such a pair cannot meet in it); a pair inside one exact
    group (same URL or same text) cannot be split by phase 4 and drops out too."""
    if not cannot_link:
        return set()
    pages = sorted({x for pair in cannot_link for x in pair})
    winner = {
        int(pid): int(w)
        for pid, w in ctx.conn.execute(
            "SELECT u.id, e.exact_winner FROM temp.run_url_election AS u "
            "JOIN temp.run_exact_election AS e ON e.id = u.url_winner "
            f"WHERE u.id IN ({', '.join(map(str, pages))})"
        )
    }
    return groups_apart(cannot_link, winner)


def _banded_run(ctx: RunContext, spec: NearSpec) -> tuple[int, Edges]:
    """Candidates by band collision (:func:`_candidates`), verified on the true shingle sets and
    texts, computed in worker processes (texts verified by an earlier run, cached by their
    keys, content hashes or own texts' keys, are not verified again: :func:`_from_cache`).

    The pairs stay in arrays and the scores go to ``temp.run_scores`` as they come: a
    million pages have about a million candidates, which as Python tuples and dicts (with
    the nodes' content hashes) took several hundred MB. They are verified a connected
    component at a time (:func:`~..algorithms.bands.component_order`): each chunk of pairs
    fetches and shingles its pages, and in id order a page with many candidates was in many
    chunks (at 1M: 1.22 million fetches for 935,717 pairs of 487,206 pages in id order, 0.76
    million by component).
    """
    with ctx.step("near.candidates"):
        first, second = _candidates(ctx, spec)
    bar = ctx.bar("verify", total=len(first), unit="pair")
    with ctx.step("near.verify"):
        return _verify(ctx, spec, first, second, bar)


def _verify(ctx: RunContext, spec: NearSpec, first: np.ndarray, second: np.ndarray,
            bar: Progress) -> tuple[int, Edges]:
    """:func:`_banded_run`'s verification of the candidate pairs (``first[i]``, ``second[i]``)."""
    conn = ctx.conn
    cached_below = 0  # pairs the cache scored under the threshold (not in run_scores)
    if ctx.incremental and not ctx.config.strip_segments:  # stripped texts change with counts
        todo, cached, cached_below = _from_cache(conn, spec, first, second)
        first, second = first[todo], second[todo]
        del todo
        bar.update(cached)
    order = component_order(first, second)  # a page's pairs in few chunks: shingled once
    first = first[order]  # (one array at a time: 8 bytes a pair less at the peak)
    second = second[order]
    del order
    starts = range(0, len(first), VERIFY_CHUNK)

    def chunk(start: int) -> list[tuple[int, int]]:
        end = start + VERIFY_CHUNK
        return list(zip(first[start:end].tolist(), second[start:end].tolist(), strict=True))

    def store(results: Iterable[dict[tuple[int, int], float]]) -> None:
        for found in results:
            conn.executemany(
                "INSERT INTO temp.run_scores (a, b, score) VALUES (?, ?, ?)",
                [(a, b, s) for (a, b), s in found.items()],
            )
            bar.update(len(found))

    if ctx.readers is not None and not ctx.config.strip_segments:  # they read the pages
        # (the staged texts' files stay until every job that reads them is done)
        with staging.pair_buckets(ctx.readers, conn, ctx.layout, first, second) as buckets:
            store(ctx.readers.map(verify_staged, _staged_jobs(ctx, spec, buckets, first,
                                                              second)))
    else:
        workers = worker_count(ctx.config, len(first), minimum=PARALLEL_MIN_PAIRS)
        jobs = (
            (spec, _verify_pages(ctx, {x for pair in pairs for x in pair}), pairs)
            for pairs in map(chunk, starts)
        )
        store(ordered_map(verify_chunk, jobs, workers))
    bar.close()
    run_script(conn, "verified_save")  # the scores by the texts' keys, for later runs
    edges = Edges.from_rows(conn.execute(  # (arrays: 24 bytes an edge, not a list of tuples)
        "SELECT a, b, score FROM temp.run_scores WHERE score >= ? ORDER BY a, b",
        (spec.threshold,),
    ))
    candidates = conn.execute("SELECT count(*) FROM temp.run_scores").fetchone()[0]
    return int(candidates) + cached_below, edges


def _from_cache(
    conn: sqlite3.Connection, spec: NearSpec, first: np.ndarray, second: np.ndarray
) -> tuple[np.ndarray, int, int]:
    """The candidate pairs (``first[i]``, ``second[i]``) of an incremental run that an
    earlier run verified: their scores from the verification cache (``_webdedup_verified``,
    keyed by the pair of the texts' keys, smaller first: a page's content hash, or its own
    text's key, :func:`~.own_content.own_key`, which changes with its host's lines).

    The cached pairs at or above the threshold go into ``temp.run_scores`` (marked cached:
    not saved again); those under it only count. Returns the mask of the pairs left to
    verify, how many were cached and how many of those were under the threshold.

    The region's texts are numbered by their keys' order, and the cache is read for those
    keys alone, in key order (``sql/verified_among.sql``): a nightly run's candidates can be
    millions (at ten million pages, 2.68 million in a region of 46,659 pages: a consent
    banner that many short pages of many hosts share meets in the band keys), too many to
    look up one pair at a time in SQL (docs/benchmarks.md).
    """
    if not len(first):
        return np.ones(0, bool), 0, 0
    ids_keys = conn.execute(sql("verified_region_keys")).fetchall()
    ids = np.fromiter((i for i, _ in ids_keys), np.int64, len(ids_keys))
    distinct = sorted({k for _, k in ids_keys})  # (SQLite's BINARY order: the keys are ASCII)
    code_of = {k: n for n, k in enumerate(distinct)}
    codes = np.fromiter((code_of[k] for _, k in ids_keys), np.int64, len(ids_keys))
    del ids_keys, code_of
    order = np.argsort(ids, kind="stable")
    ids, codes = ids[order], codes[order]
    del order

    def code(pages: np.ndarray) -> np.ndarray:
        """Each page's key's place (every candidate page has a text: an empty one is left
        out before phase 4)."""
        at = np.minimum(np.searchsorted(ids, pages), max(len(ids) - 1, 0))
        if not len(ids) or not bool((ids[at] == pages).all()):
            raise RuntimeError("a candidate page of the region has no text key")
        return codes[at]

    width = np.int64(len(distinct))
    a, b = code(first), code(second)
    pairs = np.minimum(a, b) * width + np.maximum(a, b)  # each pair's key pair as one number
    del a, b
    conn.execute("DROP TABLE IF EXISTS temp.run_keys")
    conn.execute("CREATE TEMP TABLE run_keys (key TEXT PRIMARY KEY, code INTEGER NOT NULL) "
                 "WITHOUT ROWID")
    conn.executemany("INSERT INTO temp.run_keys (code, key) VALUES (?, ?)",
                     enumerate(distinct))
    del distinct
    lows, highs, scores = conn.execute(sql("verified_among")).fetchone()
    conn.execute("DROP TABLE temp.run_keys")
    if not lows:
        return np.ones(len(first), bool), 0, 0
    lo = np.fromstring(lows, dtype=np.int64, sep=",")
    hi = np.fromstring(highs, dtype=np.int64, sep=",")
    known = np.minimum(lo, hi) * width + np.maximum(lo, hi)  # (as the pairs', whatever the order)
    del lo, hi
    # (SQLite gives a REAL as text to 15 significant digits: the scores are rounded to 6
    # decimals when computed, score_pairs, so they come back exactly)
    known_scores = np.fromstring(scores, dtype=np.float64, sep=",")
    del lows, highs, scores
    order = np.argsort(known, kind="stable")
    known, known_scores = known[order], known_scores[order]
    del order
    at = np.minimum(np.searchsorted(known, pairs), len(known) - 1)
    hit = known[at] == pairs
    del pairs, known
    score = known_scores[at[hit]]
    edge = score >= spec.threshold
    conn.executemany(
        "INSERT INTO temp.run_scores (a, b, score, cached) VALUES (?, ?, ?, 1)",
        zip(first[hit][edge].tolist(), second[hit][edge].tolist(), score[edge].tolist(),
            strict=True),
    )
    cached = int(hit.sum())
    return ~hit, cached, cached - int(edge.sum())


def _candidates(ctx: RunContext, spec: NearSpec) -> tuple[np.ndarray, np.ndarray]:
    """The candidate pairs as two arrays of page ids: nodes of different exact groups that
    share a band key; for ``simhash``, also with SimHashes within ``spec.candidate_distance``."""
    nodes = _sketched_nodes(ctx.conn, spec)
    try:
        if spec.method == "simhash":
            return _simhash_candidates(ctx, spec, nodes)
        lo, hi = candidate_pairs(nodes.keys, nodes.components)
        # the rows' page ids, written over the rows (only the looked-up ids held beside
        # them); rows of another type would silently take ids that do not fit
        lo, hi = lo.astype(np.int64, copy=False), hi.astype(np.int64, copy=False)
        lo[...] = nodes.ids[lo]
        hi[...] = nodes.ids[hi]
        return lo, hi
    finally:
        if isinstance(nodes.keys, BandColumns):
            nodes.keys.close()


def _verify_pages(ctx: RunContext, ids: set[int]) -> dict[int, PageInput]:
    """The pages a verification job needs (without their repeated segments when stripping)."""
    with lenient_text(ctx.conn, bytes):  # normalized by the workers (page_sketch_utf8)
        pages = fetch_pages(ctx.conn, ctx.layout, ids)
    pages = segments.stripped_pages(ctx, pages) if ctx.config.strip_segments else pages
    return own_content.own_pages(ctx, pages)


def _staged_jobs(
    ctx: RunContext, spec: NearSpec, buckets: Iterable[tuple[int, int, staging.Located]],
    first: np.ndarray, second: np.ndarray,
) -> Iterator[tuple[NearSpec, staging.Located, dict[int, str], list[tuple[int, int]]]]:
    """The verification jobs of the pairs ``first[i], second[i]`` (in that order): where the
    normalized texts of their pages are, read by the readers in id order
    (:func:`.staging.pair_buckets`), and the own texts of the pages that have one."""
    for start, end, located in buckets:
        own = own_content.own_texts(ctx, located.ids.tolist())
        for lo in range(start, end, VERIFY_CHUNK):
            hi = min(lo + VERIFY_CHUNK, end)
            pairs = list(zip(first[lo:hi].tolist(), second[lo:hi].tolist(), strict=True))
            ids = {x for pair in pairs for x in pair}
            yield (spec, located.take(i for i in ids if i not in own),
                   {i: own[i] for i in ids if i in own}, pairs)


def verify_staged(
    spec: NearSpec, located: staging.Located, own: dict[int, str],
    pairs: Sequence[tuple[int, int]],
) -> dict[tuple[int, int], float]:
    """Score candidate pairs from their pages' normalized texts, read from the readers'
    scratch files (``located``, :func:`~webdedup.store.pages.page_sketch_utf8`'s), or own
    texts (``own``, normalized here) (runs in worker processes)."""
    texts: dict[int, bytes] = {}
    for pid, utf8 in located.read().items():
        if utf8 is not None:  # (a sketch is never None)
            texts[pid] = utf8
    return verify_texts(spec, texts, own, pairs)


def verify_texts(
    spec: NearSpec, texts: dict[int, bytes], own: dict[int, str],
    pairs: Sequence[tuple[int, int]],
) -> dict[tuple[int, int], float]:
    """Score candidate pairs from their pages' normalized texts (``texts``, by
    :func:`~webdedup.store.pages.page_sketch_utf8`) or own texts (``own``, normalized here)
    (pure)."""
    feats = {pid: features(spec, utf8) for pid, utf8 in texts.items()}
    feats |= {pid: features(spec, page_sketch_utf8(PageInput(pid, None, text)))
              for pid, text in own.items()}
    return score_pairs(spec, feats, pairs)


def score_pairs(
    spec: NearSpec, feats: dict[int, Any], pairs: Iterable[tuple[int, int]]
) -> dict[tuple[int, int], float]:
    """The similarity of each candidate pair (features: :func:`features` or SimHashes)."""
    return {(a, b): round(float(pair_score(spec, feats[a], feats[b])), 6) for a, b in pairs}


def verify_chunk(
    spec: NearSpec, pages: dict[int, PageInput], pairs: Sequence[tuple[int, int]]
) -> dict[tuple[int, int], float]:
    """Score candidate pairs from the raw pages (pure; runs in worker processes)."""
    feats = {pid: features(spec, page_sketch_utf8(p)) for pid, p in pages.items()}
    return score_pairs(spec, feats, pairs)


@dataclass
class _Nodes:
    """Phase 4's sketched nodes in id order, as arrays."""

    ids: np.ndarray  # page ids, ascending (int32 where they fit: :func:`_narrow`)
    components: np.ndarray  # the exact group of each (int32 where they fit)
    #: their band keys (sketch.band_matrix): (nodes, bands) in memory for ``simhash`` (a few
    #: bands); for ``minhash`` (37) on disk a band at a time
    keys: np.ndarray | BandColumns
    hashes: np.ndarray  # simhash: the SimHashes (uint64); empty for minhash


def _sketched_nodes(conn: sqlite3.Connection, spec: NearSpec) -> _Nodes:
    """Read the nodes' sketches, packed a chunk at a time, into arrays
    (``sql/near_sketches.sql``, :func:`~webdedup.store.work.packed_sketches`)."""
    ids: list[np.ndarray] = []
    components: list[np.ndarray] = []
    keys: list[np.ndarray] = []
    spilled = BandColumns(spec.bands, np.uint32) if spec.method == "minhash" else None
    hashes: list[np.ndarray] = []
    try:
        for chunk in packed_sketches(conn, "near_sketches", sketch_width(spec)):
            ids.append(_narrow(chunk.ids))
            components.append(_narrow(chunk.columns[0]))
            block = packed_band_matrix(spec, chunk.packed)
            if spilled is not None:
                spilled.append(block)
            else:
                keys.append(block)
            if spec.method == "simhash":
                hashes.append(simhashes([chunk.packed]))
    except BaseException:
        if spilled is not None:
            spilled.close()
        raise
    if not ids:
        if spilled is not None:
            spilled.close()
        empty = np.empty(0, np.int64)
        return _Nodes(empty, empty, np.empty((0, 1), np.int64), np.empty(0, np.uint64))
    # one array at a time, its chunks let go once joined (all at once held every array
    # twice: 310 MB more at ten million pages)
    return _Nodes(
        _joined(ids),
        _joined(components),
        spilled if spilled is not None else _joined(keys),
        _joined(hashes) if hashes else np.empty(0, np.uint64),
    )


def _narrow(values: np.ndarray) -> np.ndarray:
    """``values`` (int64) as int32 where they all fit: the node arrays are the run's largest
    after the pairs (8 bytes a node less; a chunk that does not fit stays int64, and joined
    with the others makes the whole array int64 again).

    >>> _narrow(np.array([1, 2**31 - 1])).dtype, _narrow(np.array([1, 2**31])).dtype
    (dtype('int32'), dtype('int64'))
    """
    if len(values) and (values.min() < -(2**31) or values.max() >= 2**31):
        return values
    return values.astype(np.int32)


def _joined(chunks: list[np.ndarray]) -> np.ndarray:
    """``chunks`` concatenated, the list emptied (its arrays freed unless held elsewhere)."""
    whole = np.concatenate(chunks)
    chunks.clear()
    return whole


def _own_simhashes(ctx: RunContext, nodes: _Nodes) -> np.ndarray:
    """The nodes' SimHashes, of their own texts where they have one (the band keys, which
    find the candidates, stay those of the whole texts)."""
    own = own_content.own_texts(ctx, nodes.ids.tolist())
    if not own:
        return nodes.hashes
    hashes = nodes.hashes.copy()
    where = {pid: i for i, pid in enumerate(nodes.ids.tolist()) if pid in own}
    for pid, i in where.items():
        hashes[i] = simhash(page_digest(PageInput(pid, None, own[pid])).sketch)
    return hashes


def _simhash_candidates(
    ctx: RunContext, spec: NearSpec, nodes: _Nodes
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs that share a band key and whose SimHashes (of their own texts) are within
    ``spec.candidate_distance`` bits, with array arithmetic on the SimHashes of the run (8
    bytes a page, in memory).

    Random band collisions grow with the square of the pages (12 million candidates for
    200,000 pages at 0.9): they come a band at a time (each pair once, in the first band its
    pages share) and are filtered a batch at a time; only the pairs within the distance are
    kept.
    """
    hashes = _own_simhashes(ctx, nodes)
    bar = ctx.bar("band collisions", unit="pair")  # their number is known only at the end
    first: list[np.ndarray] = []
    second: list[np.ndarray] = []
    for lo, hi in pairs_by_band(nodes.keys, nodes.components):
        for start in range(0, len(lo), SIMHASH_BATCH):
            a, b = lo[start : start + SIMHASH_BATCH], hi[start : start + SIMHASH_BATCH]
            near = hamming_distances(hashes[a], hashes[b]) <= spec.candidate_distance
            first.append(nodes.ids[a[near]])
            second.append(nodes.ids[b[near]])
            bar.update(len(a))
    bar.close()
    if not first:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(first, dtype=np.int64), np.concatenate(second, dtype=np.int64)
