"""Sketches and similarities of normalized texts for phase 4 (pure: no I/O).

``NearSpec`` holds the phase-4 parameters derived from a :class:`~webdedup.config.Config`;
``sketch_texts`` makes the sketch of each text with its LSH band keys: for ``minhash`` the
sketch *is* the band keys (32 bits each: the signature is not kept), for ``simhash`` the
64-bit SimHash; ``band_matrix`` reads the band keys of stored sketches back as an array;
``verify`` (and its wrappers ``pair_score``, ``text_similarity``) is the verified similarity
of the ``minhash`` and ``simhash`` methods, with the measure that decided it.

``minhash`` verifies a candidate on its shingles first (overlap coefficient or Jaccard,
``similarity``): at or above ``threshold`` it is an edge. Scattered edits break many shingles
(one changed word breaks ``shingle_size`` of them), so a candidate whose shingle measure lies
in the grey zone ``[GREY_FLOOR, threshold)`` is decided on its characters: it is an edge when
the Levenshtein (Indel) ratio of the two normalized texts (their first
``LEVENSHTEIN_MAX_CHARS`` characters, as the ``levenshtein`` method compares them) is at least
``threshold + EDIT_MARGIN``; its score is then that ratio.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from rapidfuzz import fuzz

from . import minhash as mh
from . import simhash as sh
from .shingles import jaccard, shingle_hashes_utf8
from .text import compiled

if TYPE_CHECKING:  # the configuration is above the pure algorithms: no runtime import
    from ..config import Config

#: Characters of normalized text the levenshtein method compares (bounds its quadratic cost).
LEVENSHTEIN_MAX_CHARS = 20_000
#: The lowest shingle measure of a candidate that its Levenshtein ratio may still decide.
GREY_FLOOR = 0.5
#: In the grey zone a candidate is an edge when its Levenshtein ratio >= threshold + this.
EDIT_MARGIN = 0.05


@dataclass(frozen=True)
class Verdict:
    """The verified similarity of two texts and the measure that decided it."""

    score: float
    measure: str  # "overlap", "jaccard", "levenshtein" or "simhash"
    shingle_score: float | None = None  # the shingle measure, also when levenshtein decided


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
            return (
                f"minhash-bands-v1:k={self.shingle_size}:perm={self.num_perm}:seed={self.seed}"
                f":bands={self.bands}x{self.rows}"
            )
        return "simhash-v1:trafilatura"

    def hasher(self) -> mh.MinHasher:
        return mh.MinHasher(num_perm=self.num_perm, seed=self.seed)


# -- sketches and similarities -----------------------------------------------------------------
def sketch_texts(
    spec: NearSpec, texts: Sequence[str | bytes], hasher: mh.MinHasher | None = None
) -> list[tuple[bytes, list[int]]]:
    """``(sketch blob, LSH band keys)`` for each normalized text (minhash or simhash), given
    as ``str`` or as its UTF-8 bytes (:attr:`~.text.TextDigest.utf8`).

    ``minhash``: the blob is the text's band keys, the low 32 bits of each
    :func:`~.minhash.band_keys_batch` key as little-endian uint32 (4 bytes a band); the list
    gives band ``j``'s key as ``j << 32 | key``, so that keys of different bands never meet
    where they are pooled (the Daft pipeline explodes them). Keys of 32 bits collide by
    chance (about 1 pair in 4 billion a band: 4,000 pairs of a million pages in 37 bands),
    and such a candidate fails verification like any other.
    """
    if spec.method == "minhash":
        from . import kernels  # numba loads on first use, not with every command

        hasher = hasher or spec.hasher()
        a, b = hasher.permutations
        # compiled, from the UTF-8 bytes: == hasher.signature(shingle_hashes(t, k)) (tested)
        sigs = np.array(
            [kernels.minhash_signature(t, spec.shingle_size, a, b) for t in texts],
            dtype=np.uint64,
        ).reshape(len(texts), spec.num_perm)
        keys = minhash_band_keys(spec, sigs)
        tags = np.arange(spec.bands, dtype=np.int64) << 32
        return [(row.astype("<u4").tobytes(), (tags | row).tolist()) for row in keys]
    if spec.method == "simhash":
        out = []
        for t in texts:
            h = sh.simhash(t.decode("utf-8", "surrogatepass") if isinstance(t, bytes) else t)
            out.append((h.to_bytes(8, "little"), sh.band_keys(h, spec.max_distance)))
        return out
    raise ValueError(f"method {spec.method!r} has no sketches")


def minhash_band_keys(spec: NearSpec, sigs: np.ndarray) -> np.ndarray:
    """The ``(n, bands)`` uint32 band keys of MinHash signatures: the low 32 bits of
    :func:`~.minhash.band_keys_batch`'s 64-bit keys."""
    wide = mh.band_keys_batch(sigs, spec.bands, spec.rows).view(np.uint64)
    return (wide & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def band_matrix(spec: NearSpec, blobs: Sequence[bytes]) -> np.ndarray:
    """The band keys of stored sketches as an ``(n, keys)`` array, row ``i`` for ``blobs[i]``:
    the same keys :func:`sketch_texts` gave them (minhash: uint32 without the band tag,
    simhash: int64); columns are bands, compared only with the same column.

    >>> spec = NearSpec.from_config(__import__("webdedup").Config())
    >>> blob, keys = sketch_texts(spec, ["a b c d e f g h"])[0]
    >>> band_matrix(spec, [blob]).tolist() == [[k & 0xFFFFFFFF for k in keys]]
    True
    """
    width = sketch_width(spec)
    if any(len(b) != width for b in blobs):
        raise ValueError(
            f"a stored {spec.method} sketch is not {width} bytes: the state is from another "
            "version or configuration; run a full pass (webdedup db --full)"
        )
    return packed_band_matrix(spec, b"".join(blobs))


def sketch_width(spec: NearSpec) -> int:
    """The bytes of one sketch: 4 a band (minhash), 8 (simhash)."""
    if spec.method == "minhash":
        return 4 * spec.bands
    if spec.method == "simhash":
        return 8
    raise ValueError(f"method {spec.method!r} has no sketches")


def packed_band_matrix(spec: NearSpec, packed: bytes) -> np.ndarray:
    """:func:`band_matrix` of sketches given end to end (:func:`sketch_width` bytes each)."""
    if spec.method == "minhash":
        flat = np.frombuffer(packed, dtype="<u4")
        return flat.reshape(len(flat) // spec.bands, spec.bands).astype(np.uint32)
    if spec.method == "simhash":
        return sh.band_keys_array(np.frombuffer(packed, dtype="<u8"), spec.max_distance)
    raise ValueError(f"method {spec.method!r} has no sketches")


def simhashes(blobs: Sequence[bytes]) -> np.ndarray:
    """The uint64 SimHashes of stored ``simhash`` sketches (8 bytes each, little-endian)."""
    return np.frombuffer(b"".join(blobs), dtype="<u8")


def pair_score(spec: NearSpec, a: Any, b: Any) -> float:
    """The verified similarity of a candidate pair (an edge when >= ``spec.threshold``).

    ``a`` and ``b`` are ``(shingle-hash array, normalized text)`` pairs (minhash) or SimHash
    ints (simhash).
    """
    if spec.method == "minhash":
        return verify(spec, a, b).score
    return sh.similarity(a, b)


def features(spec: NearSpec, text: str | bytes) -> tuple[np.ndarray, str | bytes]:
    """What :func:`pair_score` needs of a normalized text (minhash): shingles, compared text.

    The text may be given as its UTF-8 bytes (:attr:`~.text.TextDigest.utf8`): they are
    decoded only for a pair in the grey zone."""
    kept = text if isinstance(text, bytes) else text[:LEVENSHTEIN_MAX_CHARS]
    return shingle_hashes_utf8(text, spec.shingle_size), kept


def _compared(text: str | bytes) -> str:
    """The characters the Levenshtein ratio compares (the first LEVENSHTEIN_MAX_CHARS)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogatepass")
    return text[:LEVENSHTEIN_MAX_CHARS]


def verify(
    spec: NearSpec, fa: tuple[np.ndarray, str | bytes], fb: tuple[np.ndarray, str | bytes]
) -> Verdict:
    """The ``minhash`` verdict on two texts from their :func:`features`.

    Four scattered one-letter edits in 100 words break a fifth of the 5-word shingles, yet
    leave the texts 99% alike character by character:

    >>> spec = NearSpec("minhash", 0.9, 0.5, "overlap", 0, 5, 16, 1, 50, 4, 4, 6)
    >>> a = " ".join(f"word{i}" for i in range(100))
    >>> b = a.replace("word10 ", "wort10 ").replace("word35 ", "wurd35 ")
    >>> b = b.replace("word60 ", "ward60 ").replace("word85 ", "werd85 ")
    >>> v = verify(spec, features(spec, a), features(spec, b))
    >>> v.measure, round(v.score, 3), round(v.shingle_score, 3)
    ('levenshtein', 0.994, 0.792)
    """
    (ha, ta), (hb, tb) = fa, fb
    shingle = overlap(ha, hb) if spec.similarity == "overlap" else jaccard(ha, hb)
    if shingle >= spec.threshold or shingle < GREY_FLOOR:
        return Verdict(shingle, spec.similarity, shingle)
    a, b = _compared(ta), _compared(tb)
    cutoff = spec.threshold + EDIT_MARGIN
    if cutoff > 1.0 or 2 * min(len(a), len(b)) < cutoff * (len(a) + len(b)):
        return Verdict(shingle, spec.similarity, shingle)  # the ratio cannot reach the cutoff
    ratio = fuzz.ratio(a, b, score_cutoff=100.0 * cutoff) / 100.0
    if ratio >= cutoff:
        return Verdict(ratio, "levenshtein", shingle)
    return Verdict(shingle, spec.similarity, shingle)


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Overlap coefficient of two sorted unique shingle-hash arrays (as :func:`features`
    gives them): shared / the smaller's size.

    It stays high when one page is the other plus a header, a footer or comments, or its first
    80%: the duplicates that Jaccard misses (measured: README, "Quality").

    >>> overlap(np.array([1, 2, 3], dtype=np.uint64), np.array([2, 3, 4, 5], dtype=np.uint64))
    0.6666666666666666
    """
    if a.size == 0 or b.size == 0:
        return 0.0
    return compiled().shared_count(a, b) / min(a.size, b.size)


def text_similarity(spec: NearSpec, a: str, b: str) -> float:
    """The method's similarity of two normalized texts (for scores against the canonical)."""
    if spec.method == "minhash":
        return verify(spec, features(spec, a), features(spec, b)).score
    if spec.method == "simhash":
        return sh.similarity(sh.simhash(a), sh.simhash(b))
    return fuzz.ratio(a[:LEVENSHTEIN_MAX_CHARS], b[:LEVENSHTEIN_MAX_CHARS]) / 100.0
