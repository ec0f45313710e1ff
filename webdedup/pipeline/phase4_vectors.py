"""Phase 4 of ``--method vectors``: nearest neighbours of TF-IDF vectors, then verification.

The nodes are those of every method (the distinct texts of the exact groups, long enough:
``sql/near_nodes.sql``). Their normalized texts are read in batches (by this process) and
vectorized three times: document frequencies, an SVD fitted on an evenly spaced sample, then
the reduced vectors (or ``Config.embedder``'s), held as one float32 array (``DIMS`` x 4 bytes
a node). The first and the third pass run in worker processes (``worker_count``; forked, so
they inherit the fitted model), and the third also writes what verification needs of each
text — its word TF-IDF row and its shingle hashes — to a
:class:`~webdedup.store.spool.Spool` (a temporary file). A faiss index gives each node's
nearest neighbours; candidates are verified from the spool, many pairs in one sparse
product (:func:`~webdedup.algorithms.vectors.spooled_scores`, equal to
:func:`~webdedup.algorithms.vectors.verdict_scores` on the texts: only pairs in the
Levenshtein grey zone read their texts again), and edges are grouped as phase 4 groups them
(stars, ``chain_floor``).

The method always makes a full run (:mod:`webdedup.incremental.plan` says so): its IDF
weights, reduction and index are over all the texts, and are not kept between runs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..algorithms import vectors as vec
from ..errors import ConfigError
from ..parallel import ordered_map
from ..store import run_script
from ..store.pages import fetch_texts
from ..store.spool import Spool
from ..store.verdicts import Verdicts
from .context import NearResult, RunContext
from .phase1_prepare import worker_count
from .phase4_near import cluster_edges

#: Nodes whose texts are read at a time.
READ_BATCH = 1_000
#: Candidate pairs verified at a time.
VERIFY_BATCH = 2_000

#: What the worker processes of the third pass share with the main process: they are
#: forked once it is set (the fitted model is too large to send with every batch).
_SHARED: dict[str, Any] = {}


def run(ctx: RunContext, verdicts: Verdicts) -> NearResult:
    """Fill ``run_edges`` and ``run_near`` from the nodes' vectors (see the module);
    ``verdicts``: the reviewers', honoured as by every method (:func:`cluster_edges`)."""
    conn, config, spec = ctx.conn, ctx.config, ctx.spec
    try:
        import faiss  # noqa: F401
        from scipy import sparse
    except ImportError as exc:
        raise ConfigError(
            "--method vectors needs scikit-learn and faiss-cpu: pip install 'webdedup[vectors]'"
        ) from exc
    run_script(conn, "near_nodes", {"min_words": spec.min_words})
    component = dict(conn.execute("SELECT id, component FROM temp.run_near_nodes"))
    ids = sorted(component)
    # the model's workers are forked (they inherit it): elsewhere the passes run here
    workers = worker_count(config, len(ids)) if sys.platform == "linux" else 1

    def texts_of(chunk: Sequence[int]) -> list[str]:
        found = fetch_texts(conn, ctx.layout, chunk)
        return [found[i] for i in chunk]

    batches = [ids[i : i + READ_BATCH] for i in range(0, len(ids), READ_BATCH)]
    bar = ctx.bar("vectors", total=2 * len(ids), unit="page")
    # pass 1: document frequencies, counted by the workers
    df = (np.zeros(vec.WORD_FEATURES, np.int64), np.zeros(vec.CHAR_FEATURES, np.int64))
    counted = ordered_map(vec.document_frequencies, ((texts_of(c),) for c in batches), workers)
    for chunk, (words, chars) in zip(batches, counted, strict=True):
        np.add(df[0], words, out=df[0])
        np.add(df[1], chars, out=df[1])
        bar.update(len(chunk))
    model = vec.new_model(df[0], df[1], len(ids))
    embedder = _embedder(config.embedder)
    parts: list[np.ndarray] = []
    reduce = embedder is None
    if embedder is None and ids:
        # pass 2: the reduction, fitted on an evenly spaced sample
        step = max(1, len(ids) // vec.SVD_SAMPLE)
        sample = ids[::step][: vec.SVD_SAMPLE]
        rows = sparse.vstack(
            [model.tfidf(texts_of(sample[i : i + READ_BATCH]))
             for i in range(0, len(sample), READ_BATCH)],
            format="csr",
        )
        vec.fit_svd(model, rows, vec.DIMS, spec.seed)
        if len(sample) == len(ids):  # the sample is every node: reduced already
            parts.append(model.reduced(rows))
            reduce = False
        del rows
    # pass 3: the reduced vectors (or the embedder's), and what verification needs of
    # each text (its word TF-IDF row, its shingles) into the spool, by the workers
    shingled = replace(spec, method="minhash")
    spool = Spool()
    try:

        def jobs() -> Iterator[tuple[list[str], bool]]:
            for chunk in batches:
                texts = texts_of(chunk)
                if embedder is not None:
                    try:
                        parts.append(vec.embed(embedder, texts))
                    except ValueError as exc:
                        raise ConfigError(f"embedder {config.embedder!r}: {exc}") from exc
                yield texts, reduce

        _SHARED.update(model=model, shingled=shingled)
        try:
            for chunk, (reduced, words, shingles) in zip(
                batches, ordered_map(_vectorize, jobs(), workers), strict=True
            ):
                if reduced is not None:
                    parts.append(reduced)
                spool.add(words, shingles)
                bar.update(len(chunk))
        finally:
            _SHARED.clear()
        bar.close()
        vectors = np.concatenate(parts) if parts else np.zeros((0, vec.DIMS), np.float32)
        parts.clear()
        cutoff = spec.threshold - vec.CANDIDATE_MARGIN
        first, second, _ = vec.neighbour_arrays(vectors, vec.NEIGHBOURS, cutoff)
        del vectors
        of = np.array([component[i] for i in ids], dtype=np.int64)
        apart = of[first] != of[second]  # pairs inside one exact group are not candidates
        first, second = first[apart], second[apart]
        node = np.array(ids, dtype=np.int64)

        def grey_texts(positions: Sequence[int]) -> dict[int, str]:
            found = fetch_texts(conn, ctx.layout, [ids[p] for p in positions])
            return {p: found[ids[p]] for p in positions}

        edges: list[tuple[int, int, float]] = []
        bar = ctx.bar("verify", total=len(first), unit="pair")
        for start in range(0, len(first), VERIFY_BATCH):
            a, b = first[start : start + VERIFY_BATCH], second[start : start + VERIFY_BATCH]
            scores = vec.spooled_scores(spec, spool, a, b, grey_texts)
            for x, y, s in zip(node[a].tolist(), node[b].tolist(), scores, strict=True):
                if s >= spec.threshold:
                    edges.append((x, y, s))
            bar.update(len(a))
        bar.close()
        edges.sort()
        where = {pid: k for k, pid in enumerate(ids)}

        def score_of(x: int, y: int) -> float:
            # x, y are exact groups' winners: a winner need not be its group's node
            if x in where and y in where:
                pair = (np.array([where[x]]), np.array([where[y]]))
                return vec.spooled_scores(spec, spool, *pair, grey_texts)[0]
            texts = fetch_texts(conn, ctx.layout, (x, y))
            return vec.verdict_scores(model, spec, [texts[x]], [texts[y]])[0]

        # as every method: language guard, reviewers' verdicts, stars in election order
        kept = cluster_edges(ctx, verdicts, edges, component, score_of)
    finally:
        spool.close()
    return NearResult(candidates=len(first), edges=len(kept))


def _vectorize(texts: list[str], reduce: bool) -> tuple[np.ndarray | None, Any, list[np.ndarray]]:
    """Pass 3 for one batch (in a worker): the reduced vectors (when ``reduce``), the word
    TF-IDF rows and the shingle hashes of ``texts``."""
    model, shingled = _SHARED["model"], _SHARED["shingled"]
    if reduce:
        words, combined = model.tfidf_parts(texts)
        reduced = model.reduced(combined)
    else:
        words, reduced = model.word_rows(texts), None
    return reduced, words, [vec.shingles_of(shingled, t) for t in texts]


def _embedder(name: str | None) -> vec.Embedder | None:
    if not name:
        return None
    try:
        return vec.load_embedder(name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"embedder {name!r} cannot be loaded: {exc}") from exc
