"""The contract every phase shares: a :class:`RunContext` in, a result dataclass out.

A phase module has one entry point, ``run(ctx: RunContext, ...) -> <Phase>Result``: the
context holds what every phase needs, and a phase's own inputs are its arguments (phase 1 the
changed page ids of an incremental run, the elections and phase 4 the reviewers'
:class:`~webdedup.store.verdicts.Verdicts`, phase 4 the window scores of its earlier passes).
It reads the run's snapshot and its TEMP work tables, writes only TEMP work tables (phase 5
excepted), and is safe to run again on the same context (a grown region runs phases 2-4
again). Its result says what it did; :meth:`PhaseResult.counts` is what the run reports
(``RunResult.phases``, ``webdedup db --json``).
"""

from __future__ import annotations

import ctypes
import functools
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields

from ..algorithms.election import order_by_sql
from ..algorithms.sketch import NearSpec
from ..config import Config
from ..incremental.plan import Plan
from ..progress import Progress, progress_bar
from ..store import run_script
from ..store.layout import Layout
from ..store.verdicts import Verdicts
from .readers import Readers

#: Called with each phase's name as it starts ("prepare", ... "write_back"), with
#: "write_batch" before each transaction of a batched write, and with "commit" just before
#: the run's last commit (tests stop or kill a run there).
PhaseHook = Callable[[str], None]


@dataclass
class RunContext:
    """What every phase gets: the connection, the configuration, the layout, the phase-4
    parameters (built once per run) and where the run stands."""

    conn: sqlite3.Connection
    config: Config
    layout: Layout
    spec: NearSpec
    total_pages: int = 0
    progress: bool = False
    on_phase: PhaseHook | None = None
    timings: dict[str, float] = field(default_factory=dict)
    plan: Plan | None = None  #: full or incremental, and the queue rows this run consumes
    #: the run opened the connection and turned SQLite's automatic checkpoints off: it
    #: checkpoints itself (never on a connection the caller passed in)
    checkpoints: bool = False
    #: what each phase reported (its result's counts), for the run row
    phase_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    #: worker processes reading in the run's snapshot (phases 1-4), when it has them
    readers: Readers | None = None

    def record(self, name: str, result: PhaseResult) -> None:
        """Keep a phase's counts (a phase run again adds up)."""
        counts = self.phase_counts.setdefault(name, {})
        for key, value in result.counts().items():
            counts[key] = counts.get(key, 0) + value

    @property
    def incremental(self) -> bool:
        """Whether the run's plan is incremental (its region only)."""
        return self.plan is not None and self.plan.mode == "incremental"

    @property
    def table(self) -> str:
        return self.layout.table

    @property
    def present(self) -> dict[str, str | None]:
        return self.layout.present

    def bar(self, desc: str, total: int | None = None, unit: str = "it") -> Progress:
        """Progress on stderr (none unless the run shows progress; lines when not a tty)."""
        return progress_bar(desc, total, unit, enabled=self.progress)

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Time a step inside a phase (``near.verify``...: its timing is part of the
        phase's, and ``on_phase`` is not told)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            give_back_freed_memory()
            spent = time.perf_counter() - start
            self.timings[name] = round(self.timings.get(name, 0.0) + spent, 4)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time a phase (a phase run again adds up) and tell ``on_phase`` it starts."""
        if self.on_phase is not None:
            self.on_phase(name)
        with self.step(name):
            yield


#: glibc's mallopt parameter for the size from which a block gets a map of its own.
_M_MMAP_THRESHOLD = -3
#: Blocks of at least this many bytes get their own map (returned to the system when freed).
MMAP_THRESHOLD = 1 << 20


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The C library, where it is glibc (``malloc_trim`` and ``mallopt``; not on macOS,
    musl or Windows): the process's own symbols (no search for the library's file, which
    needs ``ldconfig``)."""
    try:
        libc = ctypes.CDLL(None)
    except (OSError, TypeError):  # (Windows: no process-wide handle)
        return None
    if not hasattr(libc, "malloc_trim") or not hasattr(libc, "mallopt"):
        return None
    libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
    libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return libc


def keep_large_blocks_mapped() -> None:
    """Serve every block of :data:`MMAP_THRESHOLD` bytes or more from a map of its own, for
    the rest of the process (glibc's ``mallopt(M_MMAP_THRESHOLD)``; nothing elsewhere, nor
    where the environment sets that threshold already: ``MALLOC_MMAP_THRESHOLD_``, or
    ``glibc.malloc.mmap_threshold`` in ``GLIBC_TUNABLES``).

    A run allocates and frees arrays of every size from kilobytes to hundreds of megabytes.
    By default glibc raises that threshold to the size of each mapped block freed (up to 32
    MiB), so after the first large array is freed, the next ones up to that size come from
    its heap, and what is freed there between blocks still in use stays resident. The run's
    processes (its workers are forked after this) set it once; a program that embeds the
    library keeps the setting after the run.
    """
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "glibc.malloc.mmap_threshold" in (
        os.environ.get("GLIBC_TUNABLES", "")
    ):
        return
    libc = _glibc()
    if libc is not None:
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def give_back_freed_memory() -> None:
    """Return to the system what the process freed in its heap (glibc's
    ``malloc_trim(0)``; nothing elsewhere): at the end of every step, so a step's freed
    memory does not stay resident through the next ones. A trim costs milliseconds."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def load_verdicts(conn: sqlite3.Connection) -> Verdicts:
    """The reviewers' verdicts every run honours, read once inside the run's snapshot; the
    chosen canonicals also go into ``temp.run_pins``, where :func:`election_sql` finds them.
    The elections (phases 2-4) and phase 4's cannot-links take the value as an argument."""
    verdicts = Verdicts.read(conn)
    run_script(conn, "run_pins")
    conn.executemany(
        "INSERT INTO temp.run_pins (pin_id, pin_rank) VALUES (?, ?)", verdicts.pins.items()
    )
    return verdicts


def election_sql(config: Config, verdicts: Verdicts) -> str:
    """The elections' ``ORDER BY``: the pages reviewers chose as canonical first (the latest
    choice first: ``temp.run_pins``, :func:`load_verdicts`), then the configured order.
    Unchanged when there is none."""
    order = order_by_sql(config.election)
    if not verdicts.pins:
        return order
    pin = "(SELECT pin_rank FROM temp.run_pins WHERE pin_id = id)"
    return f"coalesce({pin}, {len(verdicts.pins)}) ASC, {order}"


@dataclass(frozen=True)
class PhaseResult:
    """Base of the phases' results: every int field is a count the run records."""

    def counts(self) -> dict[str, int]:
        return {f.name: v for f in fields(self) if isinstance(v := getattr(self, f.name), int)}


@dataclass(frozen=True)
class PrepareResult(PhaseResult):
    pages: int
    workers: int
    readers: int = 0  #: 1 when the workers read the pages themselves (:mod:`.readers`)


@dataclass(frozen=True)
class ElectionResult(PhaseResult):
    duplicates: int  #: pages that lost this election


@dataclass(frozen=True)
class NearResult(PhaseResult):
    candidates: int
    edges: int
    #: pages outside an incremental region that the levenshtein window links to it: the
    #: region must take them in and phases 2-4 run again (empty otherwise)
    pull: frozenset[int] = frozenset()


@dataclass(frozen=True)
class WriteBackResult(PhaseResult):
    written: int  #: rows of pages whose annotation was written
    transactions: int = 1  #: write transactions (more than one: a batched write)
    #: the longest any write transaction held the lock (from ``BEGIN IMMEDIATE``'s success to
    #: its commit: how long a crawler may have waited), and all of them together
    lock_seconds: float = 0.0
    lock_seconds_total: float = 0.0
    #: the longest hold of each step of the write (``begin``, ``triggers``, each state
    #: table, ``annotations``, ``last``)
    lock_by_step: dict[str, float] = field(default_factory=dict)
    #: the write generation the write claimed (``_webdedup_meta``'s ``write_generation``)
    generation: str | None = None
