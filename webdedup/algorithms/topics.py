"""Topic clusters of texts: hashed TF-IDF and mini-batch k-means, in bounded memory (no I/O).

:func:`fit_topics` reads its texts through ``read_batches``, a callable that returns a fresh
iterator of ``(ids, texts)`` batches each time it is called (the caller streams them from
SQLite). It makes a few passes over them, each holding one batch at a time:

1. document frequencies of the hashed terms (``HashingVectorizer``: no vocabulary to keep),
   from which the IDF weights come (smoothed as scikit-learn's ``TfidfTransformer``; terms
   in fewer than ``MIN_DF`` texts or more than ``MAX_DF`` of them weigh nothing);
2. ``MiniBatchKMeans.partial_fit`` over the TF-IDF rows (sublinear term frequency, L2 norm),
   repeated over small collections until about ``MIN_SAMPLES`` rows were seen (the hashed
   counts of a small collection are kept in memory between repeats);
3. each text's cluster, the ``SAMPLES`` texts nearest each centre, and the words behind the
   heaviest hashed features of each centre (a hashed feature has no name: the most frequent
   word of the cluster that hashes to it names it).

Memory: the centres (``k`` x ``N_FEATURES`` floats), one batch, and one int a text for the
labels. Deterministic for a given ``seed`` and batch order.

Example::

    >>> texts = ["apple banana fruit juice"] * 3 + ["engine wheel car road"] * 3
    >>> topics = fit_topics(lambda: iter([(list(range(6)), texts)]), 2, seed=1, min_df=1)
    >>> sorted(topics.labels.tolist()) == [0, 0, 0, 1, 1, 1]
    True
    >>> bool(topics.labels[0] != topics.labels[3])
    True
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

#: Hashed features of the TF-IDF vectors (the centres are k x N_FEATURES floats).
N_FEATURES = 2**16
#: A term in fewer texts than this weighs nothing (it separates single pages, not topics).
MIN_DF = 2
#: A term in more than this share of the texts weighs nothing (a stop word of the crawl).
MAX_DF = 0.5
#: Rows ``partial_fit`` sees at least, repeating a small collection (about ten updates).
MIN_SAMPLES = 20_000
#: At most this many passes over a small collection.
MAX_EPOCHS = 10
#: Below this many texts the hashed counts are kept in memory between passes.
CACHE_TEXTS = 50_000
#: Words shown for each cluster, and texts given as its samples.
TOP_TERMS = 10
SAMPLES = 3
#: Words are letters only (no numbers, no underscores), two or more.
TOKEN_PATTERN = r"[^\W\d_]{2,}"

Batches = Callable[[], Iterable[tuple[list[int], list[str]]]]


@dataclass(frozen=True)
class Cluster:
    """One topic: its id (0 = the largest), size, top terms and sample text ids."""

    id: int
    size: int
    top_terms: list[str]
    samples: list[int]


@dataclass(frozen=True)
class Topics:
    """The clusters, and each text's cluster id (``ids`` sorted, ``labels`` aligned)."""

    clusters: list[Cluster]
    ids: np.ndarray
    labels: np.ndarray

    def cluster_of(self, ids: Iterable[int | None]) -> list[int | None]:
        """The cluster of each id (``None`` for an id that was not clustered)."""
        out: list[int | None] = []
        for i in ids:
            if i is None or self.ids.size == 0:
                out.append(None)
                continue
            k = int(np.searchsorted(self.ids, i))
            found = k < self.ids.size and int(self.ids[k]) == i
            out.append(int(self.labels[k]) if found else None)
        return out


_WORDS = re.compile(TOKEN_PATTERN)


def words(text: str) -> list[str]:
    """The words of a text, lower-cased (letters only, two or more).

    >>> words("Das Öl, 2024: l'été_x A")
    ['das', 'öl', 'été']
    """
    return _WORDS.findall(text.lower())


def _as_is(tokens: list[str]) -> list[str]:
    return tokens


def vectorizer():  # -> HashingVectorizer (scikit-learn is imported only when topics are asked)
    """The hashed term counter of word lists (raw counts; weighting is done here)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        n_features=N_FEATURES, alternate_sign=False, norm=None, analyzer=_as_is, dtype=np.float32
    )


def idf_weights(df: np.ndarray, n: int, min_df: int = MIN_DF, max_df: float = MAX_DF) -> np.ndarray:
    """Smoothed IDF (``ln((1 + n) / (1 + df)) + 1``), zero outside ``[min_df, max_df * n]``.

    >>> [round(float(w), 3) for w in idf_weights(np.array([0, 1, 2, 3]), 4)]
    [0.0, 0.0, 1.511, 0.0]
    """
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    idf[(df < min_df) | (df > max_df * n)] = 0.0
    return idf.astype(np.float32)


def weigh(counts, idf: np.ndarray):  # scipy CSR in, CSR out
    """TF-IDF rows: ``1 + ln(tf)`` times the IDF, each row scaled to unit length."""
    from sklearn.preprocessing import normalize

    x = counts.copy()
    x.data = 1.0 + np.log(x.data)
    x = x.multiply(idf).tocsr()
    x.eliminate_zeros()
    return normalize(x, norm="l2", copy=False)


def fit_topics(read_batches: Batches, k: int, *, seed: int = 1, min_df: int = MIN_DF) -> Topics:
    """Cluster the texts of ``read_batches`` into (at most) ``k`` topics.

    Raises ``ValueError`` when there are fewer texts than ``k`` (the caller words the error).
    """
    from scipy import sparse
    from sklearn.cluster import MiniBatchKMeans

    vec = vectorizer()
    # pass 1: document frequencies (and the hashed counts of a small collection)
    df = np.zeros(N_FEATURES, dtype=np.int64)
    n = 0
    cache: list[tuple[list[int], object]] | None = []
    for ids, texts in read_batches():
        counts = vec.transform(map(words, texts))
        df += np.bincount(counts.indices, minlength=N_FEATURES)
        n += len(ids)
        if cache is not None:
            cache.append((list(ids), counts))
            if n > CACHE_TEXTS:
                cache = None
    if n < k:
        raise ValueError(f"{n} texts cannot make {k} clusters")
    idf = idf_weights(df, n, min_df=min_df)

    def counted() -> Iterator[tuple[list[int], object]]:
        if cache is not None:
            yield from cache
        else:
            for ids, texts in read_batches():
                yield ids, vec.transform(map(words, texts))

    # pass 2: the centres (the first partial_fit needs at least k rows: batches are merged)
    model = MiniBatchKMeans(n_clusters=k, random_state=seed, n_init=1, batch_size=1024)
    epochs = max(1, min(MAX_EPOCHS, math.ceil(MIN_SAMPLES / n)))
    for _ in range(epochs):
        pending: list[object] = []
        rows = 0
        for _ids, counts in counted():
            pending.append(counts)
            rows += counts.shape[0]  # type: ignore[attr-defined]
            if rows >= max(k, 1024):
                model.partial_fit(weigh(sparse.vstack(pending), idf))
                pending, rows = [], 0
        if pending:
            x = weigh(sparse.vstack(pending), idf)
            if hasattr(model, "cluster_centers_") or x.shape[0] >= k:
                model.partial_fit(x)
    centres = model.cluster_centers_

    # pass 3: labels, samples, and the words behind each centre's heaviest features
    heavy = np.argsort(-centres, axis=1, kind="stable")[:, : 3 * TOP_TERMS]
    wanted = [
        {int(f): r for r, f in enumerate(row) if centres[c, f] > 0} for c, row in enumerate(heavy)
    ]
    names: list[dict[int, Counter[str]]] = [{} for _ in range(k)]
    nearest: list[list[tuple[float, int]]] = [[] for _ in range(k)]
    all_ids: list[np.ndarray] = []
    all_labels: list[np.ndarray] = []
    for ids, texts in read_batches():
        tokens = [words(t) for t in texts]
        x = weigh(vec.transform(tokens), idf)
        distances = model.transform(x)
        labels = distances.argmin(axis=1)
        all_ids.append(np.asarray(ids, dtype=np.int64))
        all_labels.append(labels.astype(np.int64))
        vocab = sorted({w for ws in tokens for w in ws})
        hashed = vec.transform([w] for w in vocab).indices.tolist() if vocab else []
        where = dict(zip(vocab, hashed, strict=True))
        for pid, label, ws, dist in zip(ids, labels.tolist(), tokens, distances, strict=True):
            heap = nearest[label]
            item = (-float(dist[label]), -int(pid))  # keep the nearest (then lowest id)
            if len(heap) < SAMPLES:
                heapq.heappush(heap, item)
            else:
                heapq.heappushpop(heap, item)
            want = wanted[label]
            for w in set(ws):
                f = where[w]
                if f in want:
                    names[label].setdefault(f, Counter())[w] += 1
    ids_all = np.concatenate(all_ids) if all_ids else np.zeros(0, dtype=np.int64)
    labels_all = np.concatenate(all_labels) if all_labels else np.zeros(0, dtype=np.int64)
    return _renumbered(ids_all, labels_all, heavy, names, nearest, k)


def _top_terms(heavy: np.ndarray, names: dict[int, Counter[str]]) -> list[str]:
    terms: list[str] = []
    for f in heavy.tolist():
        counter = names.get(int(f))
        if not counter:
            continue
        word = min(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        if word not in terms:
            terms.append(word)
        if len(terms) == TOP_TERMS:
            break
    return terms


def _renumbered(
    ids: np.ndarray,
    labels: np.ndarray,
    heavy: np.ndarray,
    names: list[dict[int, Counter[str]]],
    nearest: list[list[tuple[float, int]]],
    k: int,
) -> Topics:
    """Clusters renumbered by size (0 the largest; ties by k-means label), empty ones out."""
    order = np.argsort(ids, kind="stable")
    ids, labels = ids[order], labels[order]
    sizes = np.bincount(labels, minlength=k)
    ranked = sorted((c for c in range(k) if sizes[c] > 0), key=lambda c: (-sizes[c], c))
    new = np.full(k, -1, dtype=np.int64)
    clusters = []
    for rank, c in enumerate(ranked):
        new[c] = rank
        samples = [-pid for _, pid in sorted(nearest[c], reverse=True)]
        clusters.append(Cluster(rank, int(sizes[c]), _top_terms(heavy[c], names[c]), samples))
    return Topics(clusters, ids, new[labels] if labels.size else labels)
