"""Sketches and similarities of normalized texts for phase 4 (pure: no I/O).

``NearSpec`` holds the phase-4 parameters (the configuration builds it: ``Config.near_spec``);
``sketch_texts`` makes the sketch of each text with its LSH band keys: for ``minhash`` the
sketch *is* the band keys (32 bits each: the signature is not kept), for ``simhash`` the
64-bit SimHash; ``band_matrix`` reads the band keys of stored sketches back as an array;
``verify`` (and its wrappers ``pair_score``, ``text_similarity``) is the verified similarity
of the ``minhash`` and ``simhash`` methods, with the measure that decided it: their sketches
only propose candidates (a shared MinHash band key; SimHashes within
:func:`~.simhash.candidate_distance_for` the threshold), the texts decide.

``minhash`` and ``simhash`` decide a candidate so that ``threshold`` is a **Levenshtein
ratio**, with two duplicates by design beside it (:func:`verify`): a pair is an edge when

* the Levenshtein (Indel) ratio of the two normalized texts (their first
  ``LEVENSHTEIN_MAX_CHARS`` characters, as the ``levenshtein`` method compares them) is at
  least ``threshold``;
* or its *moved ratio* is: the same count of characters, but a block of text found in the
  other text elsewhere costs nothing (paragraphs in another order). A token is matched when
  one of its :data:`MATCH_SHINGLE`-token shingles is found in the other text (as multisets,
  in text order): the moved ratio is the matched characters of both texts over all their
  characters. Where nothing moved it is at most about the ratio (a changed word loses the
  whole word, the ratio a letter);
* or (``similarity="overlap"``, the default) the shorter text is *contained* in the longer:
  the share of its characters matched, and the share matched of the longer's span from its
  first matched token to its last (a truncated copy, a copy framed by other text) are both at
  least ``threshold``. A text inserted in the middle lies inside that span: it costs what it
  costs the ratio, and more.

The characters compared are the first ``LEVENSHTEIN_MAX_CHARS`` of each text. Two cheaper
tests on the texts' shingle sets come first and decide most edges: the characters the shared
shingles stand for (each text's length times its share of shingles shared, the smaller of the
two) over all the characters at or above ``threshold``, or (``overlap``) the shorter's
shingles and characters (estimated so) all but a ``1 - threshold`` share found in the
longer, whose characters from the first found shingle to the last are found all but that
share too. The shingle
measure (overlap coefficient or Jaccard, ``similarity``) is kept as ``shingle_score``; under
:data:`MATCH_FLOOR` the moved ratio and containment are not computed, and only the ratio is
tried (when the texts' lengths allow it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import Indel

from . import minhash as mh
from . import simhash as sh
from .shingles import jaccard, shingle_hashes_utf8
from .text import compiled

#: Characters of normalized text the levenshtein method compares (bounds its quadratic cost).
LEVENSHTEIN_MAX_CHARS = 20_000
#: Under this shingle overlap a pair is neither a moved nor a contained copy at any
#: threshold (the moved ratio and the containment stay under 0.6 there: measured on
#: ``benchmarks/corpus/make_ratio_pairs.py``'s pairs); only its Levenshtein ratio is tried.
MATCH_FLOOR = 0.3
#: Tokens a shingle of the moved ratio and the containment spans (character trigrams in
#: Chinese or Japanese, word trigrams elsewhere: a line or a paragraph of three tokens or
#: more keeps its characters wherever it moves). Measured on real texts with their lines
#: shuffled: 5-word shingles kept 47 of 60 Latin copies and 20 of 25 Chinese/Japanese ones,
#: trigrams 54 and 22, with 1.8 % of ``make_ratio_pairs.py``'s pairs scoring more than 0.02
#: over their Levenshtein ratio (0.8 % with 5-word shingles).
MATCH_SHINGLE = 3
#: From this shingle overlap on, the edits of a pair are too sparse for its Levenshtein ratio
#: to lie far above its moved ratio and containment (a changed word costs the moved ratio the
#: word, the Levenshtein ratio a letter or more): on ``make_ratio_pairs.py``'s pairs at
#: overlap >= 0.5 the ratio was at most 0.138 above the higher of them (at >= 0.3: 0.33). The
#: ratio, the costliest measure (half-replaced pages of one site: overlap 0.5-0.6), is not
#: computed when that higher one is more than :data:`RATIO_MARGIN` under the threshold.
SPARSE_EDITS = 0.5
RATIO_MARGIN = 0.2
#: A text whose distinct shingles are fewer than this share of its shingles repeats itself
#: (a list, a table): the fast tests on shingle sets are not used for it.
REPEATED_SHINGLES = 0.97


@dataclass(frozen=True)
class Verdict:
    """The verified similarity of two texts and the measure that decided it."""

    score: float
    measure: str  # "levenshtein", "moved", "contained", "overlap" or "jaccard"
    shingle_score: float | None = None  # the shingle measure, whatever decided


@dataclass(frozen=True)
class NearSpec:
    """The parameters of phase 4 (pure); the configuration makes it (``Config.near_spec``)."""

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
    def derive(
        cls,
        method: str,
        threshold: float,
        lsh_level: float,
        *,
        chain_floor: float,
        similarity: str,
        min_words: int,
        shingle_size: int,
        num_perm: int,
        seed: int,
        distance: int,
    ) -> NearSpec:
        """The spec of these settings, with what they imply: the LSH bands and rows that
        catch Jaccard ``lsh_level`` with ``num_perm`` permutations (``minhash``), the Hamming
        distance its bands guarantee to find at ``threshold`` (``simhash``)."""
        bands, rows = mh.optimal_lsh_params(lsh_level, int(num_perm))
        return cls(
            method=method,
            threshold=float(threshold),
            chain_floor=float(chain_floor),
            similarity=similarity,
            min_words=int(min_words),
            shingle_size=int(shingle_size),
            num_perm=int(num_perm),
            seed=int(seed),
            distance=int(distance),
            bands=bands,
            rows=rows,
            max_distance=sh.band_distance_for(float(threshold)),
        )

    @property
    def candidate_distance(self) -> int:
        """``simhash``: the Hamming distance within which band-colliding SimHashes make a
        candidate pair (:func:`~.simhash.candidate_distance_for`: wider than
        ``max_distance``, the distance the bands guarantee to find)."""
        return sh.candidate_distance_for(self.threshold)

    @property
    def scheme(self) -> str:
        if self.method == "minhash":
            return (
                f"minhash-bands-v1:k={self.shingle_size}:perm={self.num_perm}:seed={self.seed}"
                f":bands={self.bands}x{self.rows}"
            )
        return "simhash-v1:trafilatura"

    def hasher(self) -> mh.MinHasher:
        return _hasher(self.num_perm, self.seed)


@lru_cache(maxsize=8, typed=True)
def _hasher(num_perm: int, seed: int) -> mh.MinHasher:
    """One :class:`~.minhash.MinHasher` a process for each ``(num_perm, seed)``: it cannot
    change, and drawing its permutations (numpy's ``RandomState``) took longer than
    sketching a short page, once for each batch of pages phase 1 sketches."""
    return mh.MinHasher(num_perm=num_perm, seed=seed)


# -- sketches and similarities -----------------------------------------------------------------
def sketch_texts(
    spec: NearSpec, texts: Sequence[str | bytes], hasher: mh.MinHasher | None = None,
    keys: bool = True,
) -> list[tuple[bytes, list[int]]]:
    """``(sketch blob, LSH band keys)`` for each normalized text (minhash or simhash), given
    as ``str`` or as its UTF-8 bytes (:attr:`~.text.TextDigest.utf8`); ``keys=False`` leaves
    the lists of band keys empty (the blob holds them: :func:`band_matrix`).

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
        # only the permutations the bands read (bands x rows: 111 of the default 128)
        used = spec.bands * spec.rows
        a, b = (p[:used] for p in hasher.permutations)
        # compiled, from the UTF-8 bytes: == hasher.signature(shingle_hashes(t, k))[:used]
        sigs = np.array(
            [kernels.minhash_signature(t, spec.shingle_size, a, b) for t in texts],
            dtype=np.uint64,
        ).reshape(len(texts), used)
        bands = minhash_band_keys(spec, sigs)
        if not keys:
            blobs = bands.astype("<u4")
            return [(row.tobytes(), []) for row in blobs]
        tags = np.arange(spec.bands, dtype=np.int64) << 32
        return [(row.astype("<u4").tobytes(), (tags | row).tolist()) for row in bands]
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

    >>> spec = NearSpec.derive("minhash", 0.9, 0.3, chain_floor=0.8, similarity="overlap",
    ...                        min_words=0, shingle_size=5, num_perm=128, seed=1, distance=50)
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
    """The verified similarity of a candidate pair (an edge when >= ``spec.threshold``):
    :func:`verify`'s score, for ``minhash`` and ``simhash`` alike (their sketches only propose
    the candidates). ``a`` and ``b`` are ``(shingle-hash array, normalized text)`` pairs
    (:func:`features`).
    """
    return verify(spec, a, b).score


def features(spec: NearSpec, text: str | bytes) -> tuple[np.ndarray, str | bytes]:
    """What :func:`pair_score` needs of a normalized text: shingles, compared text.

    The text may be given as its UTF-8 bytes (:attr:`~.text.TextDigest.utf8`): they are
    decoded only for a pair whose Levenshtein ratio is computed."""
    return shingle_hashes_utf8(text, spec.shingle_size), text


def _compared(text: str | bytes) -> str:
    """The characters the Levenshtein ratio compares (the first LEVENSHTEIN_MAX_CHARS)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogatepass")
    return text[:LEVENSHTEIN_MAX_CHARS]


def verify(
    spec: NearSpec, fa: tuple[np.ndarray, str | bytes], fb: tuple[np.ndarray, str | bytes]
) -> Verdict:
    """The verdict (``minhash``, ``simhash``) on two texts from their :func:`features`: an
    edge (``score >= spec.threshold``) when their Levenshtein ratio, their moved ratio or
    (``overlap``) the containment of the shorter in the longer reaches the threshold (module
    docstring).

    Four scattered one-letter edits in 100 words break a fifth of the 5-word shingles, yet
    leave the texts 99% alike character by character; ten words inserted in the middle of
    them leave them 95% alike, and the shorter is not contained in the longer:

    >>> spec = NearSpec("minhash", 0.97, 0.5, "overlap", 0, 5, 16, 1, 50, 4, 4, 6)
    >>> a = " ".join(f"word{i}" for i in range(100))
    >>> b = a.replace("word10 ", "wort10 ").replace("word35 ", "wurd35 ")
    >>> b = b.replace("word60 ", "ward60 ").replace("word85 ", "werd85 ")
    >>> v = verify(spec, features(spec, a), features(spec, b))
    >>> v.measure, round(v.score, 3), round(v.shingle_score, 3)
    ('levenshtein', 0.994, 0.792)
    >>> c = a.replace("word50 ", "word50 " + " ".join(f"new{i}" for i in range(10)) + " ")
    >>> v = verify(spec, features(spec, a), features(spec, c))
    >>> v.score < 0.97, round(v.shingle_score, 3)
    (True, 0.958)
    >>> v = verify(spec, features(spec, a), features(spec, "intro text " + a + " footer"))
    >>> v.measure, round(v.score, 3)
    ('moved', 0.982)
    """
    (ha, ta), (hb, tb) = fa, fb
    kernels = compiled()
    shared = kernels.shared_count(ha, hb) if ha.size and hb.size else 0
    over = shared / min(ha.size, hb.size) if shared else 0.0
    shingle = over if spec.similarity == "overlap" else jaccard(ha, hb)
    threshold = spec.threshold
    # fast: most shingles of both texts shared, or (overlap) the shorter's shingles found
    # in one stretch of the longer's; the moved ratio and containment would say so too
    # the characters of each text its shared shingles stand for (estimated from its length),
    # the same content in both: as the moved ratio counts them
    la, lb = _utf8_size(ta), _utf8_size(tb)
    common = min(la * shared / ha.size, lb * shared / hb.size) if shared else 0.0
    dice = 2 * common / (la + lb) if shared else 0.0
    plain = dice >= threshold or (over >= threshold and common >= threshold * min(la, lb))
    plain = plain and not _repetitive(ha, ta, spec) and not _repetitive(hb, tb, spec)
    if plain and dice >= threshold:
        return Verdict(dice, "moved", shingle)
    if plain and spec.similarity == "overlap" and over >= threshold:
        longer, other = (ta, hb) if ha.size >= hb.size else (tb, ha)
        covered, span = kernels.span_density(longer, other, spec.shingle_size)
        found = common / min(la, lb)  # the shorter's characters found, estimated
        contained = min(over, found, covered / span) if span else 0.0
        if contained >= threshold:
            return Verdict(contained, "contained", shingle)
    a, b = _compared(ta), _compared(tb)
    best = Verdict(0.0, spec.similarity, shingle)
    if over >= MATCH_FLOOR:
        moved, contained = match_scores(spec, a, b)
        if contained > moved:
            best = Verdict(contained, "contained", shingle)
        else:
            best = Verdict(moved, "moved", shingle)
        if best.score >= threshold:
            return best
    reachable = 2 * min(len(a), len(b)) >= threshold * (len(a) + len(b))
    if over >= SPARSE_EDITS and best.score + RATIO_MARGIN < threshold:
        reachable = False  # edits not dense enough to leave the ratio this far above
    if reachable:
        ratio = Indel.normalized_similarity(a, b, score_cutoff=threshold)
        if ratio >= threshold:
            return Verdict(ratio, "levenshtein", shingle)
    # not an edge: a score under the threshold, also once rounded as edges are stored
    return replace(best, score=min(best.score, threshold - 1e-6))


def _utf8_size(text: str | bytes) -> int:
    """The length of a text in UTF-8 bytes, as given or as the pipeline holds it (the fast
    tests weigh texts so, whichever form they come in)."""
    return len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))


def _repetitive(hashes: np.ndarray, text: str | bytes, spec: NearSpec) -> bool:
    """Does ``text`` repeat shingles (lists, tables)? Then its shingle *set* says more than
    its text holds, and only the multiset measures (:func:`match_scores`) may decide: a
    copy with more rows of such a list inserted shares nearly all its shingles."""
    # the spaced tokens (a text without spaces counts as plain), counted without a list of
    # them: a normalized text has one space between two words and none at its start; its
    # sketch (capped at SKETCH_CHARS) may end in one
    if isinstance(text, str):
        words = text.count(" ") + 1 - text.endswith(" ") if text else 0
    else:  # (numpy counts bytes several times faster than bytes.count)
        spaces = int(np.count_nonzero(np.frombuffer(text, dtype=np.uint8) == 0x20))
        words = spaces + 1 - text.endswith(b" ") if text else 0
    return hashes.size < REPEATED_SHINGLES * (words - spec.shingle_size + 1)


def match_scores(spec: NearSpec, ta: str | bytes, tb: str | bytes) -> tuple[float, float]:
    """(moved ratio, containment) of two normalized texts (module docstring); containment is
    0.0 unless ``spec.similarity`` is ``overlap``.

    >>> spec = NearSpec("minhash", 0.9, 0.5, "overlap", 0, 5, 16, 1, 50, 4, 4, 6)
    >>> a = " ".join(f"w{i}" for i in range(60))
    >>> b = " ".join(a.split()[30:] + a.split()[:30])  # its two halves swapped
    >>> [round(x, 3) for x in match_scores(spec, a, b)]
    [1.0, 1.0]
    """
    size = min(spec.shingle_size, MATCH_SHINGLE)
    (ca, wa, sa), (cb, wb, sb) = compiled().coverage(ta, tb, size)
    if wa + wb == 0:
        return 0.0, 0.0
    moved = (ca + cb) / (wa + wb)
    if spec.similarity != "overlap" or not wa or not wb:
        return moved, 0.0
    if (wa, -ca) > (wb, -cb):  # a is the longer text
        (ca, wa, sa), (cb, wb, sb) = (cb, wb, sb), (ca, wa, sa)
    contained = min(ca / wa, cb / sb) if sb else 0.0
    return moved, contained


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
    if spec.method in ("minhash", "simhash"):
        return verify(spec, features(spec, a), features(spec, b)).score
    return fuzz.ratio(a[:LEVENSHTEIN_MAX_CHARS], b[:LEVENSHTEIN_MAX_CHARS]) / 100.0
