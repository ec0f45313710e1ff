"""MinHash signatures of shingle-hash sets, LSH parameter choice and LSH band keys.

Each 64-bit shingle hash is folded to 32 bits (``x = (h ^ (h >> 32)) mod 2**32``) and the
permutations are the affine maps ``pi_k(x) = (a_k * x + b_k) mod 2**32`` with odd ``a_k`` (so
each map is a bijection of the 32-bit values) and ``a_k``, ``b_k`` drawn with
``numpy.random.RandomState(seed)``; numpy's wrapping uint32 arithmetic computes them in two
passes over half the memory of 64-bit values. Measured on real pages (``benchmarks/speed/bench.py``
and the estimation tests), the Jaccard estimates are as accurate as with the classic
``mod (2**61 - 1)`` family at a fraction of the cost. Signatures are uint64 arrays (values
below ``2**32``); the empty set has the all-``EMPTY_VALUE`` signature.

>>> from webdedup.algorithms.shingles import shingle_hashes
>>> mh = MinHasher(num_perm=64, seed=1)
>>> a = mh.signature(shingle_hashes("the quick brown fox jumps over the lazy dog", size=2))
>>> b = mh.signature(shingle_hashes("the quick brown fox jumps over the lazy cat", size=2))
>>> 0.5 < estimate_jaccard(a, b) < 1.0
True
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from webdedup.algorithms.shingles import fmix64

__all__ = [
    "EMPTY_VALUE",
    "FORMAT_VERSION",
    "HEADER",
    "MinHasher",
    "SignatureMeta",
    "band_keys",
    "band_keys_batch",
    "deserialize",
    "estimate_jaccard",
    "optimal_lsh_params",
    "serialize",
]

EMPTY_VALUE = (1 << 64) - 1  # never produced by a non-empty set (values are < 2**32)
MAX_NUM_PERM = 1 << 16

_U64 = np.uint64
_U32 = np.uint32
_EMPTY = _U64(EMPTY_VALUE)
_BLOCK_ELEMENTS = 1 << 16  # rows * num_perm per block: temporaries stay small and cache-resident

# Serialized layout (all little-endian). FORMAT_VERSION 4 stores the values as uint32 (every
# value of a non-empty set's signature is below 2**32: half the bytes of version 3); version 3
# (uint64 values) is still written for a signature holding EMPTY_VALUE and read everywhere.
# (1: the mod 2**61-1 family, 2: affine maps mod 2**64; 3 and 4: affine maps mod 2**32 of the
# folded hash, the same values.)
#   offset  size  field
#   0       4     magic b"WDMH"
#   4       1     format version (uint8) = 4 (or 3)
#   5       3     reserved, zero
#   8       4     seed (uint32)
#   12      4     num_perm (uint32)
#   16      4*n   signature values (uint32 each, n = num_perm; version 3: uint64, 8*n bytes)
HEADER = struct.Struct("<4sB3xII")
MAGIC = b"WDMH"
FORMAT_VERSION = 4
#: The uint64 layout, for signatures with values of 2**32 or more (the empty set's).
WIDE_FORMAT_VERSION = 3


class SignatureMeta(NamedTuple):
    """Header fields of a serialized signature."""

    version: int
    seed: int
    num_perm: int


def _check_positive_int(name: str, value: object, upper: int, example: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an int, e.g. {example}; got {value!r}")
    if not 1 <= int(value) <= upper:
        raise ValueError(f"{name} must be between 1 and {upper}, e.g. {example}; got {value}")
    return int(value)


@dataclass(frozen=True)
class MinHasher:
    """Deterministic MinHash over uint64 shingle hashes.

    Two hashers with the same ``num_perm`` and ``seed`` produce identical signatures on every
    machine. Instances are immutable and cheap to share.

    >>> mh = MinHasher(num_perm=16, seed=7)
    >>> sig = mh.signature(np.array([1, 2, 3], dtype=np.uint64))
    >>> sig.shape, sig.dtype
    ((16,), dtype('uint64'))
    >>> bool((mh.signature(np.array([], dtype=np.uint64)) == EMPTY_VALUE).all())
    True
    """

    num_perm: int = 128
    seed: int = 1
    _a: np.ndarray = field(init=False, repr=False, compare=False)
    _b: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_positive_int("num_perm", self.num_perm, MAX_NUM_PERM, "num_perm=128")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer):
            raise ValueError(f"seed must be an int in [0, 2**32), e.g. seed=1; got {self.seed!r}")
        if not 0 <= int(self.seed) < 1 << 32:
            raise ValueError(f"seed must be in [0, 2**32) (numpy RandomState), got {self.seed}")
        gen = np.random.RandomState(int(self.seed))
        a = (gen.randint(0, 1 << 31, size=self.num_perm, dtype=np.uint32) << _U32(1)) | _U32(1)
        b = gen.randint(0, 1 << 32, size=self.num_perm, dtype=np.uint64).astype(np.uint32)
        for name, arr in (("_a", a), ("_b", b)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def permutations(self) -> tuple[np.ndarray, np.ndarray]:
        """The uint32 ``(a, b)`` arrays (copies), ``pi_k(x) = (a[k] * x + b[k]) mod 2**32``."""
        return self._a.copy(), self._b.copy()

    def _permuted_min(self, x: np.ndarray) -> np.ndarray:
        """Return the (rows, num_perm) uint32 matrix ``(a * x + b) mod 2**32``."""
        out = np.multiply.outer(x, self._a)
        out += self._b
        return out

    def _fold(self, hashes: np.ndarray | Sequence[int]) -> np.ndarray:
        if isinstance(hashes, np.ndarray):
            h = hashes
        else:
            try:
                h = np.array(hashes, dtype=np.uint64)
            except (OverflowError, TypeError, ValueError) as exc:
                raise ValueError(
                    "hashes must be non-negative integers below 2**64 (shingle hashes), "
                    f"got an invalid value: {exc}"
                ) from exc
        if h.ndim != 1:
            raise ValueError("hashes must be a 1-D array of uint64 shingle hashes (one text)")
        if h.size == 0:
            return np.empty(0, dtype=np.uint32)
        if h.dtype != np.uint64:
            if h.dtype.kind not in "ui" or (h.dtype.kind == "i" and int(h.min()) < 0):
                raise ValueError(
                    "hashes must be non-negative integers (uint64); convert signed SQLite "
                    "integers with array.astype(np.int64).view(np.uint64)"
                )
            h = h.astype(np.uint64)
        return (h ^ (h >> _U64(32))).astype(np.uint32)

    def signature(self, hashes: np.ndarray | Sequence[int]) -> np.ndarray:
        """Return the uint64 MinHash signature (length ``num_perm``) of a set of hashes.

        Repeated values are allowed (a set is what counts). An empty input gives an all-
        ``EMPTY_VALUE`` signature.

        >>> mh = MinHasher(num_perm=8)
        >>> bool((mh.signature([5, 9, 5]) == mh.signature([9, 5])).all())
        True
        """
        x = self._fold(hashes)
        out = np.full(self.num_perm, _EMPTY, dtype=np.uint64)
        rows = max(1, _BLOCK_ELEMENTS // self.num_perm)
        for start in range(0, x.size, rows):
            block = self._permuted_min(x[start : start + rows])
            np.minimum(out, block.min(axis=0).astype(np.uint64), out=out)
        return out

    def signatures(self, hash_arrays: Sequence[np.ndarray | Sequence[int]]) -> np.ndarray:
        """Return a ``(len(hash_arrays), num_perm)`` uint64 matrix of signatures.

        Row ``i`` equals ``signature(hash_arrays[i])``; the batch shares the permutation work
        across texts, which is faster for many short texts.

        >>> mh = MinHasher(num_perm=8)
        >>> m = mh.signatures([[1, 2], [], [3]])
        >>> bool((m[0] == mh.signature([1, 2])).all()), bool((m[1] == EMPTY_VALUE).all())
        (True, True)
        """
        folded = [self._fold(h) for h in hash_arrays]
        n = len(folded)
        out = np.full((n, self.num_perm), _EMPTY, dtype=np.uint64)
        if n == 0:
            return out
        lengths = np.fromiter((f.size for f in folded), dtype=np.int64, count=n)
        total = int(lengths.sum())
        if total == 0:
            return out
        x = np.concatenate(folded)
        ends = np.cumsum(lengths)
        starts = ends - lengths
        nonempty = np.flatnonzero(lengths)
        ne_starts = starts[nonempty]
        ne_ends = ends[nonempty]
        rows = max(1, _BLOCK_ELEMENTS // self.num_perm)
        for lo in range(0, total, rows):
            hi = min(lo + rows, total)
            first = int(np.searchsorted(ne_ends, lo, side="right"))
            last = int(np.searchsorted(ne_starts, hi, side="left"))
            docs = nonempty[first:last]
            offsets = np.maximum(ne_starts[first:last], lo) - lo
            block_min = np.minimum.reduceat(self._permuted_min(x[lo:hi]), offsets, axis=0)
            out[docs] = np.minimum(out[docs], block_min.astype(np.uint64))
        return out

    def serialize(self, sig: np.ndarray) -> bytes:
        """Serialize a signature made by this hasher (see :func:`serialize`)."""
        sig = _check_sig(sig)
        if sig.size != self.num_perm:
            raise ValueError(
                f"signature has {sig.size} values but this hasher has num_perm={self.num_perm}; "
                "serialize it with the MinHasher that made it"
            )
        return serialize(sig, seed=self.seed)

    def deserialize(self, data: bytes) -> np.ndarray:
        """Deserialize bytes and check they were made with this hasher's seed and num_perm."""
        sig, meta = deserialize(data)
        if (meta.seed, meta.num_perm) != (self.seed, self.num_perm):
            raise ValueError(
                f"signature was made with seed={meta.seed}, num_perm={meta.num_perm}; use "
                f"MinHasher(num_perm={meta.num_perm}, seed={meta.seed}) to compare with it"
            )
        return sig


def _check_sig(sig: np.ndarray) -> np.ndarray:
    sig = np.asarray(sig)
    if sig.ndim != 1 or sig.size == 0 or sig.dtype != np.uint64:
        raise ValueError(
            "a signature must be a non-empty 1-D uint64 array, as returned by MinHasher.signature"
        )
    return sig


def estimate_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
    """Estimate the Jaccard similarity of two sets from their signatures.

    It is the fraction of equal positions; two empty-set signatures give 0.0 (like
    :func:`webdedup.algorithms.shingles.jaccard`).

    >>> mh = MinHasher(num_perm=32)
    >>> estimate_jaccard(mh.signature([1, 2, 3]), mh.signature([1, 2, 3]))
    1.0
    """
    a = _check_sig(sig_a)
    b = _check_sig(sig_b)
    if a.shape != b.shape:
        raise ValueError(
            f"signatures differ in length ({a.size} vs {b.size}); compare signatures made by "
            "the same MinHasher"
        )
    if a[0] == _EMPTY and b[0] == _EMPTY:
        return 0.0
    return float(np.count_nonzero(a == b)) / a.size


def serialize(sig: np.ndarray, seed: int) -> bytes:
    """Serialize a signature with its ``seed`` to bytes (layout: module ``HEADER`` comment).

    16-byte header ``b"WDMH"``, version uint8, 3 zero bytes, seed uint32, num_perm uint32; then
    the values as little-endian uint32 (version 4), or uint64 (version 3) when one of them does
    not fit (the empty set's ``EMPTY_VALUE``).

    >>> data = serialize(np.array([1, 2], dtype=np.uint64), seed=1)
    >>> len(data), data[:5]
    (24, b'WDMH\\x04')
    >>> len(serialize(np.array([1, EMPTY_VALUE], dtype=np.uint64), seed=1))
    32
    """
    sig = _check_sig(sig)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be the MinHasher seed, an int in [0, 2**32); got {seed!r}")
    if sig.size > MAX_NUM_PERM:
        raise ValueError(f"signature longer than {MAX_NUM_PERM} values cannot be serialized")
    if int(sig.max()) <= 0xFFFFFFFF:
        return HEADER.pack(MAGIC, FORMAT_VERSION, int(seed), sig.size) + sig.astype("<u4").tobytes()
    header = HEADER.pack(MAGIC, WIDE_FORMAT_VERSION, int(seed), sig.size)
    return header + sig.astype("<u8", copy=False).tobytes()


def deserialize(data: bytes) -> tuple[np.ndarray, SignatureMeta]:
    """Inverse of :func:`serialize`: return ``(signature, SignatureMeta(version, seed, num_perm))``.

    >>> sig, meta = deserialize(serialize(np.array([7, 8], dtype=np.uint64), seed=3))
    >>> sig.tolist(), meta
    ([7, 8], SignatureMeta(version=4, seed=3, num_perm=2))
    """
    data = bytes(data)
    if len(data) < HEADER.size:
        raise ValueError(
            f"serialized signature too short ({len(data)} bytes); pass bytes from serialize()"
        )
    magic, version, seed, num_perm = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ValueError(f"not a webdedup MinHash signature (magic {magic!r}, expected {MAGIC!r})")
    if version not in (FORMAT_VERSION, WIDE_FORMAT_VERSION):
        raise ValueError(
            f"unsupported signature format version {version}; this code reads versions "
            f"{WIDE_FORMAT_VERSION} and {FORMAT_VERSION}, recompute the signature"
        )
    width = 4 if version == FORMAT_VERSION else 8
    expected = HEADER.size + width * num_perm
    if len(data) != expected or num_perm == 0:
        raise ValueError(
            f"serialized signature has {len(data)} bytes, header says num_perm={num_perm} "
            f"({expected} bytes): the data is truncated or corrupt"
        )
    sig = np.frombuffer(data, dtype=f"<u{width}", offset=HEADER.size).astype(np.uint64)
    return sig, SignatureMeta(version, seed, num_perm)


def _lsh_errors(threshold: float, b: int, r: np.ndarray, nodes: np.ndarray, weights: np.ndarray):
    """Return (fp, fn) areas for ``b`` bands and each row count in ``r``.

    The S-curve ``1 - (1 - s**r)**b`` is a polynomial of degree ``r*b``; Gauss-Legendre
    quadrature with ``len(nodes)`` nodes is exact up to degree ``2*len(nodes) - 1``.
    """
    s_fp = threshold * (nodes + 1.0) / 2.0  # map [-1, 1] -> [0, threshold]
    s_fn = threshold + (1.0 - threshold) * (nodes + 1.0) / 2.0  # -> [threshold, 1]
    rr = r[:, None].astype(np.float64)
    p_fp = 1.0 - (1.0 - s_fp[None, :] ** rr) ** b
    p_fn = (1.0 - s_fn[None, :] ** rr) ** b
    fp = (p_fp @ weights) * threshold / 2.0
    fn = (p_fn @ weights) * (1.0 - threshold) / 2.0
    return fp, fn


def optimal_lsh_params(
    threshold: float,
    num_perm: int,
    false_positive_weight: float = 0.5,
    false_negative_weight: float = 0.5,
) -> tuple[int, int]:
    """Return ``(bands, rows)`` minimising the weighted false-positive/false-negative areas.

    Same objective and tie-breaking as ``datasketch.lsh._optimal_param`` (scan ``b`` then ``r``
    ascending, keep the first strict minimum) with ``bands * rows <= num_perm``; the integrals
    are computed with Gauss-Legendre quadrature instead of scipy.

    >>> optimal_lsh_params(0.8, 128)
    (9, 13)
    """
    num_perm = _check_positive_int("num_perm", num_perm, MAX_NUM_PERM, "num_perm=128")
    if not isinstance(threshold, int | float) or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be a Jaccard similarity in [0, 1], got {threshold!r}")
    fpw, fnw = float(false_positive_weight), float(false_negative_weight)
    if fpw < 0 or fnw < 0 or fpw + fnw == 0:
        raise ValueError(
            "false_positive_weight and false_negative_weight must be >= 0 and not both 0 "
            f"(e.g. 0.5 and 0.5); got {false_positive_weight!r}, {false_negative_weight!r}"
        )
    n_nodes = min(num_perm // 2 + 1, 256)
    nodes, weights = np.polynomial.legendre.leggauss(n_nodes)
    best = float("inf")
    opt = (0, 0)
    for b in range(1, num_perm + 1):
        r = np.arange(1, num_perm // b + 1)
        fp, fn = _lsh_errors(float(threshold), b, r, nodes, weights)
        error = fp * fpw + fn * fnw
        i = int(np.argmin(error))
        if error[i] < best:
            best = float(error[i])
            opt = (b, int(r[i]))
    return opt


def band_keys_batch(sigs: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Return an ``(n, bands)`` int64 matrix of LSH band keys for ``n`` signatures.

    Key of band ``i`` = a chained 64-bit mix (MurmurHash3 finalizer) of a band-specific start
    value and the band's ``rows`` values, viewed as signed int64 (fits an SQLite INTEGER).
    Signatures agreeing on a whole band get the same key for it; equal values in different
    bands get different keys. Only signature values ``sig[:bands * rows]`` are used.

    >>> m = np.array([[1, 2, 3, 4], [1, 2, 9, 9]], dtype=np.uint64)
    >>> k = band_keys_batch(m, bands=2, rows=2)
    >>> bool(k[0, 0] == k[1, 0]), bool(k[0, 1] == k[1, 1])
    (True, False)
    """
    sigs = np.asarray(sigs)
    if sigs.ndim != 2 or sigs.dtype != np.uint64:
        raise ValueError("sigs must be a 2-D uint64 array (one signature per row)")
    bands = _check_positive_int("bands", bands, MAX_NUM_PERM, "bands=16")
    rows = _check_positive_int("rows", rows, MAX_NUM_PERM, "rows=8")
    if bands * rows > sigs.shape[1]:
        raise ValueError(
            f"bands * rows = {bands * rows} exceeds the signature length {sigs.shape[1]}; "
            "use optimal_lsh_params(threshold, num_perm) to choose them"
        )
    vals = sigs[:, : bands * rows].reshape(sigs.shape[0], bands, rows)
    acc = np.arange(1, bands + 1, dtype=np.uint64) * _U64(0x9E3779B97F4A7C15)
    acc = np.broadcast_to(fmix64(acc), (sigs.shape[0], bands)).copy()
    for j in range(rows):
        acc += vals[:, :, j]
        fmix64(acc)
    return acc.view(np.int64)


def band_keys(sig: np.ndarray, bands: int, rows: int) -> list[int]:
    """Return the ``bands`` LSH keys of one signature (see :func:`band_keys_batch`).

    >>> mh = MinHasher(num_perm=16)
    >>> keys = band_keys(mh.signature([1, 2, 3]), bands=4, rows=4)
    >>> len(keys), all(-(2**63) <= k < 2**63 for k in keys)
    (4, True)
    """
    sig = _check_sig(sig)
    return band_keys_batch(sig[None, :], bands, rows)[0].tolist()
