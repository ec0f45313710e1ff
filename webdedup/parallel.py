"""Ordered, bounded parallel map over worker processes (the one pool helper of webdedup).

Workers die with the process that started them (:func:`die_with_parent`): a main process
killed with SIGKILL leaves no worker behind holding the database files open.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import suppress
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
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=start_worker,
        initargs=(os.getpid(),),
    )
    try:
        pending: deque[Future[T]] = deque()
        for job in jobs:
            pending.append(pool.submit(fn, *job))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except KeyboardInterrupt:
        # Ctrl-C or SIGTERM (the CLI raises it): don't wait for the jobs in flight, and a
        # stop that came as the pool started leaves it half made, unable to shut down
        with suppress(RuntimeError):
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def start_worker(parent: int) -> None:
    """Pool initializer: the worker dies with process ``parent`` (:func:`die_with_parent`)
    and leaves Ctrl-C to it.

    A terminal's Ctrl-C reaches every process of the group; the parent stops the pool and
    reports the interruption once, instead of each worker printing a traceback. SIGTERM
    ends a worker at once, as before the parent's command line made it an interruption
    (a pool stops its workers with SIGTERM).
    """
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def die_with_parent(parent: int, poll: float = 0.5) -> None:
    """Pool initializer: end this worker when process ``parent`` dies (even by SIGKILL).

    On Linux the kernel sends SIGKILL to the worker when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``); elsewhere, or if that call fails, a daemon thread checks
    every ``poll`` seconds that the parent is still there. Either way a parent already gone
    before this runs ends the worker at once.
    """
    armed = False
    if sys.platform == "linux":
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl
            armed = False
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:  # pragma: no cover - not Linux
        threading.Thread(target=_watch_parent, args=(parent, poll), daemon=True).start()


def _watch_parent(parent: int, poll: float) -> None:  # pragma: no cover - not Linux
    while os.getppid() == parent:
        time.sleep(poll)
    os._exit(1)


def cpu_count() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
