"""The ``vectors`` method's pure part: TF-IDF vectors, their reduction, neighbours, verdicts.

For reworded copies (synonyms swapped in, sentences reordered), which break the word shingles
that ``minhash`` compares while keeping most of the words:

* each text becomes a TF-IDF vector of hashed word 1-2-grams and character 4-grams of its
  first ``CHAR_CHARS`` characters (``HashingVectorizer``; the IDF weights come from the
  run's texts; character n-grams are costly in Python: 4-grams of the beginning keep a
  spelling fingerprint at a tenth of the cost of 3-5-grams of the whole), reduced to ``DIMS``
  dimensions by a truncated SVD fitted on at most ``SVD_SAMPLE`` of them (seeded);
  or, with an ``embedder`` setting, whatever vectors that function returns;
* each text's ``NEIGHBOURS`` nearest neighbours by cosine come from a faiss index (exact
  inner products up to ``FLAT_MAX`` texts, an HNSW graph above), and a neighbour whose cosine
  is at least ``threshold - CANDIDATE_MARGIN`` is a candidate;
* a candidate is verified on the texts themselves (:func:`verdict`): the cosine of their
  word TF-IDF vectors (unreduced: every word counts; the order of sentences does not), or
  the ``minhash`` measures (shingle overlap, Levenshtein in its grey zone) when they are
  higher (truncated copies, copies with boilerplate). An edge when at least ``threshold``.

Two different articles in one site template share the template's words, but their own words
differ and weigh more (the template's words are in many pages: a low IDF), so their word
cosine stays low.

Example::

    >>> a = "The fox jumps over the dog. It rained all day. Then the sun came out."
    >>> b = "It rained all day. Then the sun came out. The fox jumps over the dog."
    >>> model = fit_model([a, b, "An unrelated text about taxes and budgets."], dims=2, seed=1)
    >>> round(word_cosines(model, [a], [b])[0], 2)  # only the bigrams across sentences differ
    0.94
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .topics import weigh

#: Dimensions the TF-IDF vectors are reduced to (4 bytes each a text in the index).
DIMS = 96
#: Hashed features of the word and of the character n-grams (the randomized SVD holds
#: a few features x DIMS matrices: their number is its cost).
WORD_FEATURES = 2**17
CHAR_FEATURES = 2**15
#: Texts the SVD is fitted on at most (evenly spaced over the run's texts; their TF-IDF
#: rows are held in memory, about 15 kB a text).
SVD_SAMPLE = 10_000
#: Power iterations of the randomized SVD.
SVD_ITERATIONS = 3
#: The share of the word and of the character vectors in the combined vector (squared).
WORD_SHARE = 0.75
#: Neighbours asked of the index for each text.
NEIGHBOURS = 10
#: A neighbour is a candidate from ``threshold - CANDIDATE_MARGIN`` (reduced cosine).
CANDIDATE_MARGIN = 0.15
#: Up to this many texts the index is exact (brute-force inner products), above it HNSW.
FLAT_MAX = 50_000
#: Characters of each normalized text vectorized (its beginning), for words and for characters.
VECTOR_CHARS = 100_000
CHAR_CHARS = 2_000

Embedder = Callable[[list[str]], Any]


def word_vectorizer():  # -> HashingVectorizer
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        n_features=WORD_FEATURES,
        alternate_sign=False,
        norm=None,
        ngram_range=(1, 2),
        token_pattern=r"(?u)\b\w+\b",
        dtype=np.float32,
    )


def char_vectorizer():  # -> HashingVectorizer
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        n_features=CHAR_FEATURES,
        alternate_sign=False,
        norm=None,
        analyzer="char_wb",
        ngram_range=(4, 4),
        dtype=np.float32,
    )


def _idf(df: np.ndarray, n: int) -> np.ndarray:
    """Smoothed IDF as scikit-learn's ``TfidfTransformer`` computes it."""
    return (np.log((1.0 + n) / (1.0 + df)) + 1.0).astype(np.float32)


@dataclass
class Model:
    """What vectorizes a run's texts: the vectorizers, IDF weights and the fitted SVD."""

    words: Any
    chars: Any
    idf_words: np.ndarray
    idf_chars: np.ndarray
    svd: Any = None  # TruncatedSVD, None when the texts are too few to reduce

    def tfidf(self, texts: Sequence[str]):  # -> scipy CSR
        return self.tfidf_parts(texts)[1]

    def word_rows(self, texts: Sequence[str]):  # -> scipy CSR
        """The word TF-IDF rows (unit length) that :func:`word_cosines` compares."""
        return weigh(self.words.transform([t[:VECTOR_CHARS] for t in texts]), self.idf_words)

    def tfidf_parts(self, texts: Sequence[str]):  # -> (CSR, CSR)
        """:meth:`word_rows` and :meth:`tfidf` of ``texts``, the words transformed once."""
        from scipy import sparse

        words = self.word_rows(texts)
        c = weigh(self.chars.transform([t[:CHAR_CHARS] for t in texts]), self.idf_chars)
        w = words * np.float32(np.sqrt(WORD_SHARE))
        combined = sparse.hstack([w, c * np.float32(np.sqrt(1.0 - WORD_SHARE))], format="csr")
        return words, combined

    def reduce(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length reduced vectors (float32) of ``texts``."""
        return self.reduced(self.tfidf(texts))

    def reduced(self, x: Any) -> np.ndarray:
        """Unit-length reduced vectors (float32) of TF-IDF rows from :meth:`tfidf`."""
        dense = self.svd.transform(x) if self.svd is not None else x.toarray()
        return unit_rows(np.asarray(dense, dtype=np.float32))


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def count_df(model_or_none: Model | None, texts: Sequence[str], df: tuple[np.ndarray, ...]):
    """Add the document frequencies of ``texts`` to ``df`` (words, chars)."""
    words, chars = document_frequencies(texts, model_or_none)
    np.add(df[0], words, out=df[0])
    np.add(df[1], chars, out=df[1])


def document_frequencies(
    texts: Sequence[str], model: Model | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The document frequencies of ``texts``' hashed words and characters (a pure function
    of the texts: worker processes count batches, the caller adds them up)."""
    words, chars = (model.words, model.chars) if model else (word_vectorizer(), char_vectorizer())
    counted = words.transform([t[:VECTOR_CHARS] for t in texts]).indices
    found_words = np.bincount(counted, minlength=WORD_FEATURES).astype(np.int64)
    counted = chars.transform([t[:CHAR_CHARS] for t in texts]).indices
    return found_words, np.bincount(counted, minlength=CHAR_FEATURES).astype(np.int64)


def new_model(df_words: np.ndarray, df_chars: np.ndarray, n: int) -> Model:
    return Model(word_vectorizer(), char_vectorizer(), _idf(df_words, n), _idf(df_chars, n))


def fit_svd(model: Model, sample: Any, dims: int = DIMS, seed: int = 1) -> None:
    """Fit the reduction on the TF-IDF rows ``sample`` (none when it has too few rows)."""
    from sklearn.decomposition import TruncatedSVD

    if sample.shape[0] <= dims:
        return
    svd = TruncatedSVD(
        n_components=dims, algorithm="randomized", n_iter=SVD_ITERATIONS, random_state=seed
    )
    svd.fit(sample)
    model.svd = svd


def fit_model(texts: Sequence[str], dims: int = DIMS, seed: int = 1) -> Model:
    """A model of a few texts held in memory (tests, doctests)."""
    df = (np.zeros(WORD_FEATURES, np.int64), np.zeros(CHAR_FEATURES, np.int64))
    count_df(None, texts, df)
    model = new_model(df[0], df[1], len(texts))
    fit_svd(model, model.tfidf(texts), dims, seed)
    return model


def word_cosines(model: Model, a: Sequence[str], b: Sequence[str]) -> list[float]:
    """Cosine of the word TF-IDF vectors of each pair ``(a[i], b[i])``."""
    if not a:
        return []
    va = weigh(model.words.transform([t[:VECTOR_CHARS] for t in a]), model.idf_words)
    vb = weigh(model.words.transform([t[:VECTOR_CHARS] for t in b]), model.idf_words)
    return np.asarray(va.multiply(vb).sum(axis=1)).ravel().clip(0.0, 1.0).tolist()


def neighbour_pairs(
    vectors: np.ndarray, k: int = NEIGHBOURS, cutoff: float = 0.0
) -> list[tuple[int, int, float]]:
    """Pairs of rows ``(i, j, cosine)``, ``i < j``, where one is among the other's ``k``
    nearest by inner product (unit rows: cosine) and the cosine is at least ``cutoff``.

    >>> v = unit_rows(np.array([[1, 0], [0.99, 0.1], [0, 1]], dtype=np.float32))
    >>> [(i, j, round(c, 2)) for i, j, c in neighbour_pairs(v, k=2, cutoff=0.9)]
    [(0, 1, 0.99)]
    """
    i, j, s = neighbour_arrays(vectors, k, cutoff)
    return list(zip(i.tolist(), j.tolist(), s.tolist(), strict=True))


def neighbour_arrays(
    vectors: np.ndarray, k: int = NEIGHBOURS, cutoff: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`neighbour_pairs` as three arrays (``i``, ``j``: int64, sorted by ``(i, j)``;
    the cosine: float64, at most 1.0): 24 bytes a pair, where a list of tuples takes about
    ten times that (nine million pairs at 1,000,000 pages)."""
    import faiss

    n, d = vectors.shape
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64))
    if n < 2:
        return empty
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    index: Any
    if n <= FLAT_MAX:
        index = faiss.IndexFlatIP(d)
    else:
        index = faiss.IndexHNSWFlat(d, 32, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
        index.hnsw.efSearch = 64
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)  # one thread builds the graph the same way every time
    try:
        index.add(x)
    finally:
        faiss.omp_set_num_threads(threads)
    found_i, found_j, found_s = [], [], []
    step = 10_000
    for start in range(0, n, step):
        scores, neighbours = index.search(x[start : start + step], min(k + 1, n))
        rows = np.broadcast_to(
            np.arange(start, start + len(scores), dtype=np.int64)[:, None], neighbours.shape
        )
        cos = scores.astype(np.float64)  # compared as doubles, as a Python float would be
        keep = (neighbours >= 0) & (neighbours != rows) & (cos >= cutoff)
        a, b = rows[keep], neighbours[keep].astype(np.int64)
        found_i.append(np.minimum(a, b))
        found_j.append(np.maximum(a, b))
        found_s.append(np.minimum(1.0, cos[keep]))
    if not found_i:
        return empty
    i, j, s = np.concatenate(found_i), np.concatenate(found_j), np.concatenate(found_s)
    order = np.lexsort((-s, j, i))  # by (i, j), the highest cosine of a pair first
    i, j, s = i[order], j[order], s[order]
    first = np.ones(len(i), dtype=bool)
    first[1:] = (i[1:] != i[:-1]) | (j[1:] != j[:-1])
    return i[first], j[first], s[first]


def load_embedder(name: str) -> Embedder:
    """The function named ``"module:function"`` (the ``embedder`` setting).

    It takes a list of normalized texts and returns one vector a text (an array-like of
    shape ``(len(texts), d)``); webdedup scales them to unit length and compares by cosine.
    """
    module, _, attr = name.partition(":")
    if not module or not attr:
        raise ValueError(f"embedder must be 'module:function', got {name!r}")
    func = getattr(importlib.import_module(module), attr)
    if not callable(func):
        raise ValueError(f"embedder {name!r} is not a function")
    return func


def embed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Unit-length float32 vectors from an embedder, checked for shape."""
    out = np.asarray(embedder(texts), dtype=np.float32)
    if out.ndim != 2 or out.shape[0] != len(texts):
        raise ValueError(
            f"the embedder returned shape {out.shape} for {len(texts)} texts; it must return "
            "one vector a text, shape (texts, dimensions)"
        )
    return unit_rows(out)


def verdict_scores(model: Model, spec: Any, a: Sequence[str], b: Sequence[str]) -> list[float]:
    """The verified similarity of each pair of normalized texts: the higher of their word
    TF-IDF cosine (:func:`word_cosines`) and the ``minhash`` verdict
    (:func:`~webdedup.algorithms.sketch.verify` under ``spec``'s shingle parameters)."""
    from dataclasses import replace

    from . import sketch

    shingled = replace(spec, method="minhash")
    out = []
    for cos, ta, tb in zip(word_cosines(model, a, b), a, b, strict=True):
        v = sketch.verify(shingled, sketch.features(shingled, ta), sketch.features(shingled, tb))
        out.append(round(max(float(cos), float(v.score)), 6))
    return out


def shingles_of(spec: Any, text: str) -> np.ndarray:
    """The shingle hashes the ``minhash`` verdict compares (``spec``: shingle parameters)."""
    from . import sketch

    return sketch.features(spec, text)[0]


class Records(Protocol):
    """Where :func:`spooled_scores` gets what verification needs of each text: its word
    TF-IDF row (:meth:`Model.word_rows`) and its shingle hashes (:func:`shingles_of`), by
    position (the run keeps them on disk: :class:`webdedup.store.spool.Spool`)."""

    def read(self, positions: np.ndarray) -> tuple[Any, list[np.ndarray]]:
        """The word rows (a CSR, one row each in the order of ``positions``) and the
        shingle hashes of the texts at ``positions``."""
        ...


def spooled_scores(
    spec: Any,
    spool: Records,
    a: np.ndarray,
    b: np.ndarray,
    texts_of: Callable[[Sequence[int]], dict[int, str]],
) -> list[float]:
    """:func:`verdict_scores` of the pairs of spooled texts ``(a[k], b[k])`` (positions in
    ``spool``, any :class:`Records`), equal to it pair for pair, without vectorizing or
    shingling a text again: the word cosines of all the pairs in one sparse product, the
    shingle measure from the spooled hashes. ``texts_of(positions)`` gives the texts of the
    pairs, which the verdict reads (:func:`~webdedup.algorithms.sketch.verify`)."""
    from dataclasses import replace

    from . import sketch

    if len(a) == 0:
        return []
    shingled = replace(spec, method="minhash")
    positions, where = np.unique(np.concatenate([a, b]), return_inverse=True)
    rows, hashes = spool.read(positions)
    at_a, at_b = where[: len(a)], where[len(a) :]
    cosines = np.asarray(rows[at_a].multiply(rows[at_b]).sum(axis=1)).ravel().clip(0.0, 1.0)
    # the verdict weighs the texts' characters (sketch.verify): every pair's texts are read
    texts = texts_of(sorted({int(p) for p in np.concatenate([a, b]).tolist()}))
    out: list[float] = []
    for k, (pa, pb) in enumerate(zip(at_a.tolist(), at_b.tolist(), strict=True)):
        fa = (hashes[pa], texts[int(a[k])])
        fb = (hashes[pb], texts[int(b[k])])
        out.append(sketch.verify(shingled, fa, fb).score)
    return [round(max(float(c), float(v)), 6) for c, v in zip(cosines.tolist(), out, strict=True)]
