"""Ordered, bounded parallel map over worker processes (the one pool helper of webdedup).

Workers die with the process that started them (:func:`die_with_parent`): a main process
killed with SIGKILL leaves no worker behind holding the database files open.

A worker that cannot start stops the command instead of being restarted: its ``setup`` (the
imports it needs) failing, an import failing inside a job, or a worker process dying raises
:class:`~webdedup.errors.WorkerFailed` (exit code 9) in the main process, with the worker's
error in one line. :class:`WorkerPool` keeps its workers across several maps (the ingest's
extraction); :func:`ordered_map` is one map over a pool of its own (the ``db`` phases).
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
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from functools import partial
from types import TracebackType
from typing import Any, TypeVar

from .errors import WorkerFailed

T = TypeVar("T")

#: In a worker process: why its ``setup`` failed (one line), or None when it started.
_setup_failure: str | None = None


def describe_failure(exc: BaseException) -> str:
    """One line naming an exception, e.g. ``ModuleNotFoundError: No module named 'x'``."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _failed(what: str, cause: str) -> WorkerFailed:
    return WorkerFailed(
        f"a {what} could not start: {cause.rstrip('.')}. A module webdedup needs is missing "
        "or broken: reinstall webdedup with its dependencies "
        "(pip install --force-reinstall webdedup)"
    )


def _start_worker(parent: int, setup: Callable[[], None] | None) -> None:
    """Pool initializer: die with ``parent``, leave Ctrl-C to it, then run ``setup``,
    keeping its failure.

    A terminal's Ctrl-C reaches every process of the group; the parent stops the pool and
    reports the interruption once, instead of each worker printing a traceback. SIGTERM ends
    a worker at once (a pool stops its workers with SIGTERM), though the parent's command
    line makes it an interruption there.
    """
    global _setup_failure
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if setup is not None:
        try:
            setup()
        except Exception as exc:  # noqa: BLE001 - reported by the first job, see _call
            _setup_failure = describe_failure(exc)


def _call(fn: Callable[..., T], args: tuple[Any, ...], what: str) -> T:
    """Run one job in a worker; a failed start or an import error becomes WorkerFailed."""
    if _setup_failure is not None:
        raise _failed(what, _setup_failure)
    try:
        return fn(*args)
    except ImportError as exc:  # a job's lazy import: the same broken installation
        raise _failed(what, describe_failure(exc)) from None


class WorkerPool:
    """``workers`` processes (1 = this process, no pool) running ``setup`` once at start.

    ``setup`` is a module-level function (the imports the jobs need); ``what`` names a
    worker in errors. Use it as a context manager and call :meth:`map` as often as needed.

    >>> with WorkerPool(1) as pool:
    ...     list(pool.map(pow, [(2, 3), (3, 2)]))
    [8, 9]
    """

    def __init__(
        self,
        workers: int,
        setup: Callable[[], None] | None = None,
        what: str = "worker process",
    ) -> None:
        self.workers = workers
        self.setup = setup
        self.what = what
        self._pool: ProcessPoolExecutor | None = None
        self._before: set[int] = set()  # this process's children before the pool's

    def __enter__(self) -> WorkerPool:
        if self.workers <= 1:
            if self.setup is not None:
                try:
                    self.setup()
                except Exception as exc:  # noqa: BLE001 - the same error as a worker's
                    raise _failed(self.what, describe_failure(exc)) from None
            return self
        context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        self._before = {p.pid for p in multiprocessing.active_children() if p.pid is not None}
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(os.getpid(), self.setup),
        )
        _quiet_wakeup(self._pool)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if exc_type is not None:  # stop at once: no job of a failed command is worth waiting
            _terminate(pool)
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            self._orphans()
            _stop_now(pool)
            return
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        except BaseException:  # a stop while it waited (the CLI sends one again and again):
            _terminate(pool)  # else a worker never told to end keeps the process from exiting
            self._orphans()
            _stop_now(pool)
            raise

    def _orphans(self) -> None:
        """End the workers a stop left unrecorded: interrupted as it forked one, the pool
        never learns of it, and the process would wait for it at its exit, for ever."""
        for process in multiprocessing.active_children():
            if process.pid not in self._before:
                process.terminate()

    def close(self, stopping: BaseException | None = None) -> None:
        """Stop the workers: after their jobs in flight, or at once when the caller is
        ``stopping`` on an exception (as :meth:`__exit__` does)."""
        if stopping is None:
            self.__exit__(None, None, None)
        else:
            self.__exit__(type(stopping), stopping, stopping.__traceback__)

    def map(self, fn: Callable[..., T], jobs: Iterable[tuple[Any, ...]]) -> Iterator[T]:
        """``fn(*job)`` for each job, results in job order.

        At most ``2 * workers`` jobs are in flight, so a lazy ``jobs`` iterator is never
        read far ahead and memory stays bounded. ``fn`` must be a module-level function.
        """
        if self._pool is None:
            for job in jobs:
                try:
                    yield fn(*job)
                except ImportError as exc:
                    raise _failed(self.what, describe_failure(exc)) from None
            return
        pool = self._pool
        pending: deque[Future[T]] = deque()
        for job in jobs:
            pending.append(self._submit(pool, fn, job))
            if len(pending) >= 2 * self.workers:
                yield self._result(pending.popleft())
        while pending:
            yield self._result(pending.popleft())

    def _submit(
        self, pool: ProcessPoolExecutor, fn: Callable[..., T], job: tuple[Any, ...]
    ) -> Future[T]:
        try:
            return pool.submit(_call, fn, job, self.what)
        except BrokenProcessPool as exc:
            raise self._died() from exc

    def _result(self, future: Future[T]) -> T:
        try:
            return future.result()
        except BrokenProcessPool as exc:
            raise self._died() from exc

    def _died(self) -> WorkerFailed:
        return WorkerFailed(
            f"a {self.what} ended abruptly (it crashed at start-up, or was killed, e.g. for "
            "lack of memory); run again with --workers 1 to see the error in this process"
        )


def _terminate(pool: ProcessPoolExecutor) -> None:
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def _stop_now(pool: ProcessPoolExecutor) -> None:
    """Ctrl-C or SIGTERM (the CLI raises it): don't wait for the jobs in flight; a stop
    that came as the pool started leaves it half made, unable to shut down."""
    with suppress(RuntimeError):
        pool.shutdown(wait=False, cancel_futures=True)


def _quiet_wakeup(pool: ProcessPoolExecutor) -> None:
    """A pool's manager thread closes its wake-up pipe as it ends, and Python 3.11's exit
    hook (concurrent.futures.process._python_exit) writes to that pipe unlocked: if the thread
    closes it between the hook's "not closed?" and its write, the exit prints an EBADF
    traceback under the command's one line of error (about one stop in fifteen on a loaded
    machine). A wake-up of a thread that is already ending can be dropped. Made as the pool
    is made: a pool shut down on another path than :func:`_stop_now` (a run stopped by an
    error, Ctrl-C among them, whose pool was shut down and waited for) raced the hook too."""
    wakeup = getattr(pool, "_executor_manager_thread_wakeup", None)
    if wakeup is not None and hasattr(wakeup, "wakeup"):
        wakeup.wakeup = partial(_wake_if_open, wakeup.wakeup)


def _wake_if_open(wake: Callable[[], None]) -> None:
    with suppress(OSError):  # (closed meanwhile by the thread it would wake)
        wake()


def ordered_map(
    fn: Callable[..., T],
    jobs: Iterable[tuple[Any, ...]],
    workers: int,
    setup: Callable[[], None] | None = None,
) -> Iterator[T]:
    """``fn(*job)`` for each job, results in job order, in a :class:`WorkerPool` of its own.

    With ``workers > 1`` the calls run in a process pool (``fork`` on Linux) with at most
    ``2 * workers`` jobs in flight, so a lazy ``jobs`` iterator is never read far ahead and
    memory stays bounded. ``fn`` must be a module-level function.

    >>> list(ordered_map(pow, [(2, 3), (3, 2)], workers=1))
    [8, 9]
    """
    with WorkerPool(workers, setup) as pool:
        yield from pool.map(fn, jobs)


PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


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
