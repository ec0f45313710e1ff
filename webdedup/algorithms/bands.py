"""LSH band collisions, found by sorting arrays of band keys (pure: no I/O).

A sketched page has one key per band: a row of a ``(pages, bands)`` matrix
(:func:`~webdedup.algorithms.sketch.band_matrix` reads it from stored sketches). Two pages
are near-duplicate *candidates* when they have the same key in the same column (band).

- :func:`candidate_pairs`: every such pair among the pages of a run (phase 4), a column at a
  time: sort the column, and the pages of each run of equal keys pair up.
- :func:`component_order`: the pairs grouped by connected component, for verification.
- :func:`collisions`: which of many stored pages share a key with a few new ones (a nightly
  run growing its region), a chunk of stored pages at a time.

No index on disk holds band keys: a run sorts the columns it needs (a million pages' 37
columns of 32-bit keys are 148 MB, sorted in seconds), and the state keeps only each page's
row of keys (its sketch).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import numpy as np


class Columns(Protocol):
    """Band keys a column at a time: ``columns[j]`` is band ``j``'s key of every row (1-D)."""

    def __len__(self) -> int: ...

    def __getitem__(self, j: int) -> np.ndarray: ...


def candidate_pairs(
    keys: np.ndarray | Columns, groups: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct row pairs ``(lo, hi)``, ``lo < hi``, that share a key in some column,
    sorted; with ``groups`` (one value a row) only pairs of rows in different groups.

    Rows are indexes into ``keys``: give the pages sorted by id and the pairs come out in
    id order. Holds the distinct pairs (16 bytes each); :func:`pairs_by_band` yields them a
    column at a time.

    >>> k = np.array([[1, 7], [1, 8], [2, 8], [3, 9]], dtype=np.uint32)
    >>> lo, hi = candidate_pairs(k)
    >>> list(zip(lo.tolist(), hi.tolist()))
    [(0, 1), (1, 2)]
    >>> lo, hi = candidate_pairs(k, groups=np.array([5, 5, 6, 7]))
    >>> list(zip(lo.tolist(), hi.tolist()))
    [(1, 2)]
    """
    rows = len(keys) if isinstance(keys, np.ndarray) else (len(keys[0]) if len(keys) else 0)
    n = np.uint64(max(rows, 1))
    codes = [
        lo.astype(np.uint64) * n + hi.astype(np.uint64) for lo, hi in pairs_by_band(keys, groups)
    ]
    merged = np.concatenate(codes) if codes else np.empty(0, np.uint64)
    del codes  # (8 bytes a pair at a time from here: the pairs of a crawl are its largest array)
    merged.sort()
    hi = np.remainder(merged, n).view(np.int64)  # rows < 2**63: the same values
    np.floor_divide(merged, n, out=merged)
    return merged.view(np.int64), hi


def pairs_by_band(
    keys: np.ndarray | Columns, groups: np.ndarray | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """:func:`candidate_pairs` a column at a time, each pair once: in the first column where
    its rows share a key (unsorted). Memory: one column's pairs.

    ``keys``: a 2-D array (one row of band keys a page), or a sequence of its columns (1-D,
    one a band, read one at a time: such as :class:`~webdedup.store.spool.BandColumns`,
    which keeps them on disk).

    >>> k = np.array([[1, 7], [1, 7], [2, 8], [3, 8]], dtype=np.uint32)
    >>> [(lo.tolist(), hi.tolist()) for lo, hi in pairs_by_band(k)]
    [([0], [1]), ([2], [3])]
    >>> [(lo.tolist(), hi.tolist()) for lo, hi in pairs_by_band([k[:, 0], k[:, 1]])]
    [([0], [1]), ([2], [3])]
    """
    matrix = np.asarray(keys) if isinstance(keys, np.ndarray) else None
    if matrix is not None and matrix.ndim != 2:
        raise ValueError("keys must be a 2-D array: one row of band keys a page")
    bands = matrix.shape[1] if matrix is not None else len(keys)
    for j in range(bands):
        column = matrix[:, j] if matrix is not None else np.asarray(keys[j])
        lo, hi = _equal_runs(column)  # lo < hi
        del column
        keep = np.ones(len(lo), dtype=bool)
        if groups is not None:
            keep &= groups[lo] != groups[hi]
        if j and matrix is not None:  # met in an earlier column: already given
            keep &= (matrix[lo, :j] != matrix[hi, :j]).all(axis=1)
        elif j:
            for earlier in range(j):
                if not keep.any():
                    break
                past = keys[earlier]
                keep &= past[lo] != past[hi]
                del past
        if keep.any():
            yield lo[keep], hi[keep]


#: Rows read, packed or compared at a time by :func:`_equal_runs` (its temporaries' size).
RUN_CHUNK = 1 << 20


def _equal_runs(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of rows with equal values in ``column``, each pair once, as ``(a, b)`` with
    ``a < b`` (a stable sort keeps a value's rows ascending).

    Sort the column; a row at sorted position ``p`` in a run of equal values ending before
    ``end[p]`` pairs with the rows at ``p + 1 .. end[p] - 1``: one vectorized step per
    distance ``d``, over the rows whose run is still longer than ``d``.

    Memory: 8 bytes a row for the sort (a 32-bit key and its row packed into one 64-bit
    value, where an argsort and the sorted copy took 12) and the column while it is read;
    the runs are found a chunk at a time from the few positions equal to the next, not from
    an array of every run's start and end (16 bytes a row more: most keys are unique). At
    ten million rows of 37 bands (``benchmarks/studies/band_memory.py``) the collisions
    held 152 MiB above the start where they held 424, in 12.7 s instead of 82.1.

    >>> a, b = _equal_runs(np.array([7, 3, 7, 7, 5, 3], np.uint32))
    >>> sorted(zip(a.tolist(), b.tolist()))
    [(0, 2), (0, 3), (1, 5), (2, 3)]
    """
    size = len(column)
    if size < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    packed = column.dtype.kind == "u" and column.dtype.itemsize <= 4 and size < 2**32
    if packed:
        ordered = _packed_sort(column)  # key << 32 | row
        mask = np.uint64(0xFFFFFFFF)

        def rows(at: np.ndarray) -> np.ndarray:
            return (ordered[at] & mask).astype(np.int64)
    else:  # wider keys (or 4 billion rows): an argsort
        order = np.argsort(column, kind="stable")
        ordered = np.asarray(column)[order]

        def rows(at: np.ndarray) -> np.ndarray:
            return order[at].astype(np.int64)
    equal = _equal_to_next(ordered, packed)
    if not equal.size:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    # runs of consecutive positions p (sorted[p] == sorted[p + 1]): a run p..q is the
    # sorted positions p..q + 1
    first = np.concatenate(([True], equal[1:] != equal[:-1] + 1))
    starts = equal[first]
    ends = np.append(equal[np.flatnonzero(first)[1:] - 1], equal[-1]) + 2
    lengths = ends - starts
    pos = np.repeat(starts, lengths) + _ramp(lengths)  # every position in a run of 2 or more
    end = np.repeat(ends, lengths)
    a: list[np.ndarray] = []
    b: list[np.ndarray] = []
    d = 1
    while pos.size:
        inside = pos + d < end
        pos, end = pos[inside], end[inside]
        a.append(rows(pos))
        b.append(rows(pos + d))
        d += 1
    return np.concatenate(a), np.concatenate(b)


def _packed_sort(column: np.ndarray) -> np.ndarray:
    """``column``'s values (unsigned, 32 bits at most) and rows, ``value << 32 | row`` in one
    sorted 64-bit array (rows ascending within a value): filled a chunk at a time, so a
    column mapped from disk is read once, in order."""
    size = len(column)
    packed = np.empty(size, np.uint64)
    shift = np.uint64(32)
    for start in range(0, size, RUN_CHUNK):
        end = min(start + RUN_CHUNK, size)
        block = packed[start:end]
        block[:] = column[start:end]
        block <<= shift
        block |= np.arange(start, end, dtype=np.uint64)
    packed.sort()
    return packed


def _equal_to_next(ordered: np.ndarray, packed: bool) -> np.ndarray:
    """The positions ``p`` of a sorted array whose value equals the next one's (of the packed
    values' keys, their high 32 bits, when ``packed``), a chunk at a time."""
    found: list[np.ndarray] = []
    shift = np.uint64(32)
    for start in range(0, len(ordered) - 1, RUN_CHUNK):
        block = ordered[start:start + RUN_CHUNK + 1]
        if packed:
            block = block >> shift
        found.append(np.flatnonzero(block[1:] == block[:-1]) + start)
    return np.concatenate(found) if found else np.empty(0, np.int64)


def _ramp(lengths: np.ndarray) -> np.ndarray:
    """``0, 1, .., n-1`` for each ``n`` of ``lengths``, concatenated.

    >>> _ramp(np.array([2, 3])).tolist()
    [0, 1, 0, 1, 2]
    """
    total = int(lengths.sum())
    firsts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(total, dtype=np.int64) - firsts


def component_order(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """A permutation of the pairs ``(lo[k], hi[k])`` that puts the pairs of each connected
    component together (components in order of their smallest row, pairs by ``(lo, hi)``
    inside one).

    Verification fetches and shingles the pages of a chunk of pairs: in id order a page met
    by several pairs lands in several chunks and is shingled again in each; grouped by
    component, most pages are shingled once.

    >>> order = component_order(np.array([0, 5, 1]), np.array([9, 6, 9]))
    >>> order.tolist()  # {0, 1, 9} first, then {5, 6}
    [0, 2, 1]
    """
    lo, hi = np.asarray(lo, np.int64), np.asarray(hi, np.int64)
    if not len(lo):
        return np.empty(0, np.int64)
    return np.lexsort((hi, lo, pair_components(lo, hi))).astype(np.int64, copy=False)


def pair_components(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The connected component of each pair ``(lo[k], hi[k])``: a number shared by the pairs
    of one component, ascending with the component's smallest node (``int32`` when the
    nodes are fewer than 2**31).

    Memory: about 34 bytes a pair at its peak (the distinct nodes sorted in place, then the
    pairs' ends as node numbers of 4 bytes), not the 64 of ``np.unique``'s inverse: at
    three million pages the candidate pairs are millions, phase 4's largest arrays.

    >>> pair_components(np.array([0, 5, 1]), np.array([9, 6, 9])).tolist()
    [0, 2, 0]
    """
    lo, hi = np.asarray(lo, np.int64), np.asarray(hi, np.int64)
    if not len(lo):
        return np.empty(0, np.int64)
    nodes = np.concatenate([lo, hi])
    nodes.sort()
    nodes = nodes[np.concatenate(([True], nodes[1:] != nodes[:-1]))]  # distinct, ascending
    small = np.int32 if len(nodes) < 2**31 else np.int64
    a = np.searchsorted(nodes, lo).astype(small)
    b = np.searchsorted(nodes, hi).astype(small)
    label, _ = _component_labels(a, b, len(nodes))
    del nodes, b
    return label[a]


def _component_labels(a: np.ndarray, b: np.ndarray, nodes: int) -> tuple[np.ndarray, int]:
    """The smallest node of each node's component (edges ``a[k]``-``b[k]`` over nodes
    ``0 .. nodes-1``), and the rounds it took.

    Each round hooks every root that has an edge to a smaller root onto the smallest such
    root, then jumps pointers until every label is a root. Hooking roots (not the edges'
    ends) merges whole trees, so a long chain of pages in shuffled id order takes a few
    dozen rounds, not one round a link of the chain.

    >>> _component_labels(np.array([3, 1]), np.array([1, 0]), 5)[0].tolist()
    [0, 0, 2, 0, 4]
    """
    label = np.arange(nodes, dtype=a.dtype)  # each node its own root (label[r] == r)
    rounds = 0
    while True:
        la, lb = label[a], label[b]  # roots: the pointer jumping leaves no longer chain
        apart = la != lb
        if not apart.any():  # one root a component: its smallest node (roots only go down)
            return label, rounds
        rounds += 1
        la, lb = la[apart], lb[apart]
        np.minimum.at(label, np.maximum(la, lb), np.minimum(la, lb))
        while True:
            jumped = label[label]
            if np.array_equal(jumped, label):
                break
            label = jumped


#: Bits of the membership filter :func:`collisions` checks each stored key against first:
#: a 2 MiB bitset, small enough to stay in the processor's cache (a filter of one byte a
#: slot, 16 MiB, made each look-up a cache miss: 4 times the time). Each new key sets two
#: bits (a Bloom filter), and a stored key is searched for only when both of its are set:
#: 10,000 new pages of 37 bands let about 1 stored key in 500 through (one bit: 1 in 45,
#: and those searches took half the time).
FILTER_BITS = 1 << 24
_SHIFT = np.uint32(32 - 24)  # a 32-bit product's top 24 bits pick the bit
#: Odd 32-bit constants the filter's two multipliers of a column are made from.
_GOLDEN = (0x9E3779B1, 0x85EBCA6B)


def _multipliers(columns: int) -> np.ndarray:
    """Two odd 32-bit multipliers a column (band), shape ``(2, columns)``: keys of different
    bands hash apart, and a key's two filter bits are independent."""
    j = np.arange(1, columns + 1, dtype=np.uint64)
    return np.stack(
        [((j * np.uint64(g)) & np.uint64(0xFFFFFFFF) | np.uint64(1)) for g in _GOLDEN]
    ).astype(np.uint32)


def _folded(keys: np.ndarray) -> np.ndarray:
    """Keys as 32-bit values for the filter (those wider than 32 bits, simhash's, folded)."""
    if keys.dtype == np.uint32:
        return keys
    wide = keys.astype(np.uint64)
    return (wide ^ (wide >> np.uint64(32))).astype(np.uint32)


def _bits(column: np.ndarray, multiplier: np.uint32) -> np.ndarray:
    """Filter bits of one band's keys: a multiplicative hash in 32-bit arithmetic (wrapping;
    keys wider than 32 bits, simhash's, are folded first). :func:`~.kernels.band_collisions`
    tests the same bits in its loop."""
    mixed = _folded(column) * multiplier
    mixed >>= _SHIFT
    return mixed


def collisions(new: np.ndarray, stored: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row pairs ``(i, m)``: row ``i`` of ``new`` and row ``m`` of ``stored`` have the same key
    in some column (a pair may come once per column it collides in).

    Made for few new rows against many stored ones, a chunk at a time: :class:`NewKeys`
    prepares the new rows once, then each chunk's keys are looked up in it.

    >>> new = np.array([[1, 2]], dtype=np.uint32)
    >>> stored = np.array([[1, 5], [4, 2], [3, 3]], dtype=np.uint32)
    >>> i, m = collisions(new, stored)
    >>> sorted(zip(i.tolist(), m.tolist()))
    [(0, 0), (0, 1)]
    """
    return NewKeys(new).collisions(stored)


#: The types of the band keys runs store: minhash's (uint32) and simhash's (int64,
#: ``simhash.band_keys_array``), the types :func:`warm_up` compiles for.
KEY_TYPES = (np.uint32, np.int64)


def warm_up() -> None:
    """Load (or compile) :func:`~.kernels.band_collisions` for each type of stored band key:
    numba compiles it for each, and only a nightly run calls it, so the first nightly run on
    a machine compiled it (1.5-1.7 CPU-s, a third of a nightly run at a million pages:
    docs/benchmarks.md) unless a first run did so before. Both types, whatever the run's
    method: numba keeps one cache index for all of them, which the first run of another
    method would find and trust.

    >>> warm_up()
    """
    for dtype in KEY_TYPES:
        keys = np.ones((1, 2), dtype=dtype)
        NewKeys(keys).collisions(keys)


class NewKeys:
    """The band keys of a few new rows, ready to be met by many stored rows (:meth:`collisions`):
    a membership filter of all their keys (a Bloom filter of two bits a key), and each
    column's keys sorted."""

    def __init__(self, new: np.ndarray) -> None:
        new = np.asarray(new)
        if new.ndim != 2:
            raise ValueError("new must be a 2-D array of band keys: one row a page")
        self.new = new
        self.multipliers = _multipliers(new.shape[1])
        member = np.zeros(FILTER_BITS, dtype=bool)
        for j in range(new.shape[1]):
            for multiplier in self.multipliers[:, j]:
                member[_bits(new[:, j], multiplier)] = True
        self.filter = np.packbits(member, bitorder="little")  # bit b: byte b >> 3, bit b & 7
        # each column's keys sorted (and the rows they are in), a row a column
        self.order = np.argsort(new.T, axis=1, kind="stable").astype(np.int64)
        self.ordered = np.take_along_axis(np.ascontiguousarray(new.T), self.order, axis=1)

    def collisions(self, stored: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`collisions` of the new rows with ``stored``: each stored key is looked up in
        the filter, and only the few that pass are searched for among the new keys (one
        compiled pass over the stored rows: :func:`~.kernels.band_collisions`)."""
        from .kernels import band_collisions  # numba loads on first use, not every command

        stored = np.asarray(stored)
        if stored.ndim != 2 or stored.shape[1] != self.new.shape[1]:
            raise ValueError("stored must be a 2-D array of band keys with as many columns")
        common = np.promote_types(self.new.dtype, stored.dtype)
        if common.kind not in "iu":  # uint64 with int64 promotes to float: keys would round
            raise TypeError(f"band keys of {self.new.dtype} and {stored.dtype} cannot be compared")
        stored = stored.astype(common, copy=False)  # the kernel compares keys of one type
        return band_collisions(
            _folded(stored),
            stored,
            self.multipliers,
            self.filter,
            int(_SHIFT),
            self.ordered.astype(common, copy=False),
            self.order,
        )
