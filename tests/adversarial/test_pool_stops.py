"""A stop (Ctrl-C, SIGTERM: the CLI raises KeyboardInterrupt, again every half second until
the command ends) never leaves a worker behind that the process would wait for at its exit.

Two ways one was left before: a stop that landed while the pool waited for its workers to
end (the run's readers end so before the write), and one that landed as the pool forked a
worker, which the pool then never recorded (multiprocessing waits for every child at exit).
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from webdedup.parallel import WorkerPool


def _nap() -> int:
    time.sleep(0.2)
    return 1


def _children() -> set[int]:
    return {p.pid for p in multiprocessing.active_children() if p.is_alive()}


def _gone(pids: set[int], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pids & _children():
            return True
        time.sleep(0.05)
    return False


def test_a_stop_while_the_pool_waits_for_its_workers_ends_them(monkeypatch):
    pool = WorkerPool(2)
    pool.__enter__()
    assert list(pool.map(_nap, [()] * 4)) == [1] * 4
    workers = _children()
    assert len(workers) == 2

    def stopped(self, wait=True, cancel_futures=False):
        if wait:  # the graceful shutdown, interrupted as the CLI's resent stop does
            raise KeyboardInterrupt
        return real(self, wait=False, cancel_futures=cancel_futures)

    real = ProcessPoolExecutor.shutdown
    monkeypatch.setattr(ProcessPoolExecutor, "shutdown", stopped)
    with pytest.raises(KeyboardInterrupt):
        pool.close()
    monkeypatch.setattr(ProcessPoolExecutor, "shutdown", real)
    assert _gone(workers)


def test_a_worker_the_pool_never_recorded_ends_with_a_stop():
    pool = WorkerPool(2)
    pool.__enter__()
    assert list(pool.map(_nap, [()])) == [1]
    # a child forked as the stop came (started, but not in the pool's own table)
    orphan = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
    orphan.start()
    pool.close(KeyboardInterrupt())
    assert _gone({orphan.pid, *_children()} - {None})
