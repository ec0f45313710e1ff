"""The run's worker processes that read the pages they work on, in the run's snapshot.

:func:`start` forks them once the run knows it needs workers (a large full or incremental
run), each with a read-only connection of its own in the run's snapshot
(:mod:`webdedup.store.snapshot` proves it is the same one); phase 1 hands them ranges of
rowids or lists of ids instead of texts; own content and phase 4's verification have them
read the texts they need once, in id order, into scratch files (:mod:`.staging`), which the
main process hands out in the order they are used. The pool is closed before the write-back
(a reader's snapshot would keep checkpoints from recycling the WAL).

When it cannot be proven (a crawler committed between the run's snapshot and the workers'),
or the database is not a file another connection can open (in memory, a temporary one),
:func:`start` returns None and every phase reads in the main process as before.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from ..parallel import WorkerPool
from ..store.snapshot import CommitWatch, open_reader, unmap, wait_started

T = TypeVar("T")

#: Seconds the run waits for its workers to open their connections (a fork and an open: a
#: few milliseconds each; longer means a worker could not open the database).
START_TIMEOUT = 30.0


def _setup(path: str, busy_timeout: float, started: Any, then: Callable[[], None] | None) -> None:
    """A worker's start: its reader in the run's snapshot, then the phases' own setup."""
    open_reader(path, busy_timeout, started)
    if then is not None:
        then()


def _then_unmap(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker, then its map of the database dropped (:func:`unmap`)."""
    try:
        return fn(*args)
    finally:
        unmap()


def _nothing() -> None:
    """A job that makes the pool start its workers (they start with the first job)."""


@dataclass
class Readers:
    """Worker processes whose :func:`~webdedup.store.snapshot.reader` is in the run's
    snapshot; :meth:`map` runs jobs on them, results in job order."""

    pool: WorkerPool
    workers: int

    def map(self, fn: Callable[..., T], jobs: Iterable[tuple[Any, ...]]) -> Iterator[T]:
        """``fn(*job)`` for each job in a worker (``fn`` at module level), in job order;
        after each, the worker's map of the database dropped (:func:`~webdedup.store.
        snapshot.unmap`: its resident memory holds about one job's pages of the file, a staging
        job's about ``MAP_BYTES``)."""
        return self.pool.map(_then_unmap, ((fn, *job) for job in jobs))

    def close(self, stopping: BaseException | None = None) -> None:
        """Stop the workers (their read transactions end with them): at once when the run
        is ``stopping`` on an exception (a Ctrl-C must not wait for their jobs)."""
        self.pool.close(stopping)


def start(
    watch: CommitWatch, workers: int, setup: Callable[[], None] | None = None
) -> Readers | None:
    """``workers`` readers of ``watch``'s database in the run's snapshot (the run's read
    transaction began after ``watch`` did), each running ``setup`` once; None when that
    cannot be proven (something was committed meanwhile, or a worker could not open the
    database): the phases then read in the main process."""
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    started = context.Array("i", 2)
    pool = WorkerPool(workers, partial(_setup, watch.path, watch.busy_timeout, started, setup))
    pool.__enter__()
    try:
        for _ in pool.map(_nothing, [()] * workers):
            pass
        if wait_started(started, workers, START_TIMEOUT) and watch.unchanged():
            return Readers(pool, workers)
    except BaseException:
        pool.__exit__(*sys.exc_info())
        raise
    pool.__exit__(None, None, None)
    return None
