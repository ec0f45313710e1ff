"""A temporary file of what ``--method vectors`` verifies each text on (:class:`Spool`).

Phase 4 of ``vectors`` (:mod:`webdedup.pipeline.phase4_vectors`) writes each text's word
TF-IDF row and shingle hashes here once, and verification reads the two records of each
candidate pair back (:func:`webdedup.algorithms.vectors.spooled_scores`): the file I/O lives
here, in the store, and the algorithms stay pure.

Example::

    >>> import numpy as np
    >>> from scipy import sparse
    >>> spool = Spool()
    >>> words = sparse.csr_matrix(np.array([[0.0, 0.6, 0.8], [1.0, 0.0, 0.0]], np.float32))
    >>> spool.add(words, [np.array([7, 9], np.uint64), np.array([], np.uint64)])
    >>> rows, hashes = spool.read(np.array([1, 0]))
    >>> rows.indices.tolist(), rows.data.tolist(), [h.tolist() for h in hashes]
    ([0, 1, 2], [1.0, 0.6000000238418579, 0.800000011920929], [[], [7, 9]])
    >>> spool.close()
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..algorithms import vectors as vec


class Spool:
    """What verification needs of each text, computed once and kept on disk, not in memory:
    its word TF-IDF row (:meth:`~webdedup.algorithms.vectors.Model.word_rows`) and its
    shingle hashes (:func:`~webdedup.algorithms.vectors.shingles_of`), for ``--method
    vectors`` (:mod:`webdedup.pipeline.phase4_vectors`; read by
    :func:`~webdedup.algorithms.vectors.spooled_scores`, through its ``read``).

    Texts are added in order (position 0, 1, ...); a record is the shingles (uint64), then
    the row's feature indices (int32) and weights (float32). Memory: 16 bytes a text for
    where its record is; the file (``tempfile``: ``TMPDIR``) takes about 8 bytes a distinct
    word 1-2-gram and shingle of a text (7 KB for a text of 3.6 KB), and is deleted when
    closed. Verifying a pair reads the two records instead of vectorizing and shingling both
    texts again: a text is in 10-20 candidate pairs.
    """

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="webdedup-vectors-")
        self._end = 0
        self._offsets: list[np.ndarray] = []
        self._shingles: list[np.ndarray] = []
        self._words: list[np.ndarray] = []
        self._index: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return sum(len(o) for o in self._offsets)

    def add(self, words: Any, shingles: Sequence[np.ndarray]) -> None:
        """Append the texts of one batch: their word rows (CSR) and shingle hashes."""
        indptr = words.indptr
        indices = words.indices.astype(np.int32, copy=False)
        data = words.data.astype(np.float32, copy=False)
        n = len(shingles)
        offsets = np.empty(n, np.int64)
        chunks = []
        at = self._end
        for k in range(n):
            lo, hi = int(indptr[k]), int(indptr[k + 1])
            sh = np.asarray(shingles[k], dtype=np.uint64)
            record = sh.tobytes() + indices[lo:hi].tobytes() + data[lo:hi].tobytes()
            offsets[k] = at
            at += len(record)
            chunks.append(record)
        self._file.write(b"".join(chunks))
        self._end = at
        self._offsets.append(offsets)
        self._shingles.append(np.array([len(s) for s in shingles], np.int32))
        self._words.append(np.diff(indptr).astype(np.int32))
        self._index = None

    def read(self, positions: np.ndarray) -> tuple[Any, list[np.ndarray]]:
        """The word rows (a CSR, one row each in the order of ``positions``) and the shingle
        hashes of the texts at ``positions``."""
        from scipy import sparse

        if self._index is None:
            self._file.flush()
            self._index = (
                np.concatenate(self._offsets) if self._offsets else np.zeros(0, np.int64),
                np.concatenate(self._shingles) if self._shingles else np.zeros(0, np.int32),
                np.concatenate(self._words) if self._words else np.zeros(0, np.int32),
            )
        offsets, n_shingles, n_words = self._index
        fd = self._file.fileno()
        shingles, indices, data = [], [], []
        indptr = np.zeros(len(positions) + 1, np.int64)
        for k, pos in enumerate(positions.tolist()):
            ns, nw = int(n_shingles[pos]), int(n_words[pos])
            raw = os.pread(fd, 8 * ns + 8 * nw, int(offsets[pos]))
            shingles.append(np.frombuffer(raw, np.uint64, ns))
            indices.append(np.frombuffer(raw, np.int32, nw, 8 * ns))
            data.append(np.frombuffer(raw, np.float32, nw, 8 * ns + 4 * nw))
            indptr[k + 1] = indptr[k] + nw
        rows = sparse.csr_matrix(
            (
                np.concatenate(data) if data else np.zeros(0, np.float32),
                np.concatenate(indices) if indices else np.zeros(0, np.int32),
                indptr,
            ),
            shape=(len(positions), vec.WORD_FEATURES),
        )
        return rows, shingles

    def close(self) -> None:
        self._file.close()


class BandColumns:
    """Band keys kept on disk a column (a band) at a time, not as a matrix in memory: phase 4
    of ``minhash`` sorts one band's keys at a time (:func:`~webdedup.algorithms.bands.
    pairs_by_band` takes any sequence of columns), so only that band is in memory (4 bytes a
    page, where the matrix was 37 times that: 1.5 GB at ten million pages).

    Rows are appended a block at a time (``(rows, bands)`` arrays); ``columns[j]`` maps band
    ``j`` read-only from its file (``tempfile``: ``TMPDIR``), which is deleted when closed.

    >>> cols = BandColumns(2, np.uint32)
    >>> cols.append(np.array([[1, 7], [1, 8]], np.uint32))
    >>> cols.append(np.array([[2, 8]], np.uint32))
    >>> len(cols), cols.rows, cols[1].tolist()
    (2, 3, [7, 8, 8])
    >>> cols.close()
    """

    def __init__(self, bands: int, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.rows = 0
        self._files = [tempfile.TemporaryFile(prefix="webdedup-bands-") for _ in range(bands)]

    def __len__(self) -> int:
        return len(self._files)

    def append(self, block: np.ndarray) -> None:
        if block.ndim != 2 or block.shape[1] != len(self._files):
            raise ValueError(f"a block of band keys is (rows, {len(self._files)})")
        for j, file in enumerate(self._files):
            file.write(np.ascontiguousarray(block[:, j], dtype=self.dtype).tobytes())
        self.rows += len(block)

    def __getitem__(self, j: int) -> np.ndarray:
        if not self.rows:
            return np.empty(0, self.dtype)
        file = self._files[j]
        file.flush()
        return np.memmap(file, dtype=self.dtype, mode="r", shape=(self.rows,))

    def close(self) -> None:
        for file in self._files:
            file.close()
