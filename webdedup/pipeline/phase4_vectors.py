"""Phase 4 of ``--method vectors``: nearest neighbours of TF-IDF vectors, then verification.

The nodes are those of every method (the distinct texts of the exact groups, long enough:
``sql/near_nodes.sql``). Their normalized texts are read in batches three times: document
frequencies, then the reduced vectors (an SVD fitted on an evenly spaced sample; or
``Config.embedder``'s vectors), held as one float32 array (``DIMS`` x 4 bytes a node); a
faiss index gives each node's nearest neighbours; candidates are verified on their texts
(:func:`~webdedup.algorithms.vectors.verdict_scores`), and edges are grouped as phase 4
groups them (stars, ``chain_floor``).

The method always makes a full run (:mod:`webdedup.incremental.plan` says so): its IDF
weights, reduction and index are over all the texts, and are not kept between runs.
"""

from __future__ import annotations

import numpy as np

from ..algorithms import vectors as vec
from ..errors import ConfigError
from ..store import run_script
from ..store.pages import fetch_texts
from .context import NearResult, RunContext
from .phase4_near import cluster_edges

#: Nodes whose texts are read at a time.
READ_BATCH = 1_000
#: Candidate pairs verified at a time.
VERIFY_BATCH = 2_000


def run(ctx: RunContext) -> NearResult:
    """Fill ``run_edges`` and ``run_near`` from the nodes' vectors (see the module)."""
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

    def texts_of(chunk: list[int]) -> list[str]:
        found = fetch_texts(conn, ctx.layout, chunk)
        return [found[i] for i in chunk]

    batches = [ids[i : i + READ_BATCH] for i in range(0, len(ids), READ_BATCH)]
    bar = ctx.bar("vectors", total=2 * len(ids), unit="page")
    df = (np.zeros(vec.WORD_FEATURES, np.int64), np.zeros(vec.CHAR_FEATURES, np.int64))
    for chunk in batches:
        vec.count_df(None, texts_of(chunk), df)
        bar.update(len(chunk))
    model = vec.new_model(df[0], df[1], len(ids))
    embedder = _embedder(config.embedder)
    parts: list[np.ndarray] = []
    if embedder is None and ids:
        step = max(1, len(ids) // vec.SVD_SAMPLE)
        sample = ids[::step][: vec.SVD_SAMPLE]
        rows = sparse.vstack(
            [model.tfidf(texts_of(sample[i : i + READ_BATCH]))
             for i in range(0, len(sample), READ_BATCH)],
            format="csr",
        )
        vec.fit_svd(model, rows, vec.DIMS, spec.seed)
        if len(sample) == len(ids):  # the sample is every node: no third pass
            parts.append(model.reduced(rows))
            batches = []
        del rows
    for chunk in batches:
        texts = texts_of(chunk)
        if embedder is None:
            parts.append(model.reduce(texts))
            continue
        try:
            parts.append(vec.embed(embedder, texts))
        except ValueError as exc:
            raise ConfigError(f"embedder {config.embedder!r}: {exc}") from exc
        bar.update(len(chunk))
    bar.close()
    vectors = np.concatenate(parts) if parts else np.zeros((0, vec.DIMS), np.float32)
    del parts
    cutoff = spec.threshold - vec.CANDIDATE_MARGIN
    pairs = [
        (ids[i], ids[j])
        for i, j, _ in vec.neighbour_pairs(vectors, vec.NEIGHBOURS, cutoff)
        if component[ids[i]] != component[ids[j]]
    ]
    del vectors

    scores: dict[tuple[int, int], float] = {}
    bar = ctx.bar("verify", total=len(pairs), unit="pair")
    for start in range(0, len(pairs), VERIFY_BATCH):
        chunk_pairs = pairs[start : start + VERIFY_BATCH]
        found = fetch_texts(conn, ctx.layout, {x for p in chunk_pairs for x in p})
        a = [found[x] for x, _ in chunk_pairs]
        b = [found[y] for _, y in chunk_pairs]
        scores.update(zip(chunk_pairs, vec.verdict_scores(model, spec, a, b), strict=True))
        bar.update(len(chunk_pairs))
    bar.close()
    edges = [(a, b, s) for (a, b), s in sorted(scores.items()) if s >= spec.threshold]

    def score_of(x: int, y: int) -> float:
        texts = fetch_texts(conn, ctx.layout, (x, y))
        return vec.verdict_scores(model, spec, [texts[x]], [texts[y]])[0]

    # as every method: language guard, reviewers' verdicts, stars in election order
    edges = cluster_edges(ctx, edges, component, score_of)
    return NearResult(candidates=len(pairs), edges=len(edges))


def _embedder(name: str | None) -> vec.Embedder | None:
    if not name:
        return None
    try:
        return vec.load_embedder(name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"embedder {name!r} cannot be loaded: {exc}") from exc
