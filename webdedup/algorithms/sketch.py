"""Sketches and similarities of normalized texts for phase 4 (pure: no I/O).

``NearSpec`` holds the phase-4 parameters derived from a :class:`~webdedup.config.Config`;
``sketch_texts`` makes the MinHash signature or SimHash of each text with its LSH band keys;
``pair_score`` and ``text_similarity`` are the verified similarities.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from rapidfuzz import fuzz

from . import minhash as mh
from . import simhash as sh
from .shingles import jaccard, shingle_hashes

if TYPE_CHECKING:  # the configuration is above the pure algorithms: no runtime import
    from ..config import Config

#: Characters of normalized text the levenshtein method compares (bounds its quadratic cost).
LEVENSHTEIN_MAX_CHARS = 20_000


@dataclass(frozen=True)
class NearSpec:
    """The parameters of phase 4, derived from a :class:`Config` (pure)."""

    method: str
    threshold: float
    chain_floor: float
    similarity: str
    min_words: int
    shingle_size: int
    num_perm: int
    seed: int
    distance: int
    bands: int
    rows: int
    max_distance: int

    @classmethod
    def from_config(cls, config: Config) -> NearSpec:
        bands, rows = mh.optimal_lsh_params(float(config.lsh_threshold), int(config.num_perm))
        return cls(
            method=config.method,
            threshold=float(config.threshold),
            chain_floor=float(config.chain_floor),
            similarity=config.similarity,
            min_words=int(config.min_words),
            shingle_size=int(config.shingle_size),
            num_perm=int(config.num_perm),
            seed=int(config.seed),
            distance=int(config.distance),
            bands=bands,
            rows=rows,
            max_distance=sh.max_distance_for(float(config.threshold)),
        )

    @property
    def scheme(self) -> str:
        if self.method == "minhash":
            return f"minhash-v3:k={self.shingle_size}:perm={self.num_perm}:seed={self.seed}"
        return "simhash-v1:trafilatura"

    def hasher(self) -> mh.MinHasher:
        return mh.MinHasher(num_perm=self.num_perm, seed=self.seed)


# -- sketches and similarities -----------------------------------------------------------------
def sketch_texts(
    spec: NearSpec, texts: Sequence[str], hasher: mh.MinHasher | None = None
) -> list[tuple[bytes, list[int]]]:
    """``(sketch blob, LSH band keys)`` for each normalized text (minhash or simhash)."""
    if spec.method == "minhash":
        hasher = hasher or spec.hasher()
        # one text at a time: measured twice as fast as MinHasher.signatures' batch reduceat
        sigs = np.array(
            [hasher.signature(shingle_hashes(t, spec.shingle_size)) for t in texts],
            dtype=np.uint64,
        ).reshape(len(texts), spec.num_perm)
        keys = mh.band_keys_batch(sigs, spec.bands, spec.rows)
        return [
            (hasher.serialize(sig), [int(k) for k in row])
            for sig, row in zip(sigs, keys, strict=True)
        ]
    if spec.method == "simhash":
        out = []
        for t in texts:
            h = sh.simhash(t)
            out.append((h.to_bytes(8, "little"), sh.band_keys(h, spec.max_distance)))
        return out
    raise ValueError(f"method {spec.method!r} has no sketches")


def band_keys_from_blobs(spec: NearSpec, blobs: Sequence[bytes]) -> list[list[int]]:
    """The LSH band keys of stored sketches (the same keys :func:`sketch_texts` gave them)."""
    if not blobs:
        return []
    if spec.method == "minhash":
        sigs = np.stack([mh.deserialize(b)[0] for b in blobs])
        return mh.band_keys_batch(sigs, spec.bands, spec.rows).tolist()
    return [sh.band_keys(int.from_bytes(b, "little"), spec.max_distance) for b in blobs]


def pair_score(spec: NearSpec, a: Any, b: Any) -> float:
    """The verified similarity of a candidate pair (an edge when >= ``spec.threshold``).

    ``a`` and ``b`` are shingle-hash arrays (minhash) or SimHash ints (simhash).
    """
    if spec.method == "minhash":
        return overlap(a, b) if spec.similarity == "overlap" else jaccard(a, b)
    return sh.similarity(a, b)


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Overlap coefficient of two unique shingle-hash arrays: shared / the smaller's size.

    It stays high when one page is the other plus a header, a footer or comments, or its first
    80%: the duplicates that Jaccard misses (measured: README, "Quality").

    >>> overlap(np.array([1, 2, 3], dtype=np.uint64), np.array([2, 3, 4, 5], dtype=np.uint64))
    0.6666666666666666
    """
    if a.size == 0 or b.size == 0:
        return 0.0
    shared = np.intersect1d(a, b, assume_unique=True).size
    return shared / min(a.size, b.size)


def text_similarity(spec: NearSpec, a: str, b: str) -> float:
    """The method's similarity of two normalized texts (for scores against the canonical)."""
    if spec.method == "minhash":
        ha, hb = shingle_hashes(a, spec.shingle_size), shingle_hashes(b, spec.shingle_size)
        return overlap(ha, hb) if spec.similarity == "overlap" else jaccard(ha, hb)
    if spec.method == "simhash":
        return sh.similarity(sh.simhash(a), sh.simhash(b))
    return fuzz.ratio(a[:LEVENSHTEIN_MAX_CHARS], b[:LEVENSHTEIN_MAX_CHARS]) / 100.0
