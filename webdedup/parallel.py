"""Ordered, bounded parallel map over worker processes (the one pool helper of webdedup)."""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def ordered_map(
    fn: Callable[..., T], jobs: Iterable[tuple[Any, ...]], workers: int
) -> Iterator[T]:
    """``fn(*job)`` for each job, results in job order.

    With ``workers > 1`` the calls run in a process pool (``fork`` on Linux) with at most
    ``2 * workers`` jobs in flight, so a lazy ``jobs`` iterator is never read far ahead and
    memory stays bounded. ``fn`` must be a module-level function.

    >>> list(ordered_map(pow, [(2, 3), (3, 2)], workers=1))
    [8, 9]
    """
    if workers <= 1:
        for job in jobs:
            yield fn(*job)
        return
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        pending: deque[Future[T]] = deque()
        for job in jobs:
            pending.append(pool.submit(fn, *job))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def cpu_count() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
