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
