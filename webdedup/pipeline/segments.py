"""Repeated segments in a run: counting them, and leaving them out of sketches (``strip``).

Phase 1 writes each prepared page's segment hashes into ``temp.run_segments``
(:mod:`~webdedup.algorithms.segments`). :func:`count` then counts, per host, the pages that
carry each segment: every pair in a full run, only the pairs its changed pages had or have
in an incremental one (``sql/segments_counts_*.sql``), so stored counts are a full run's.
Phase 5 saves them (:func:`save`).

With ``strip_segments``, a segment on ``segment_min_pages`` pages of its host or more is
*repeated*, and :func:`strip` sketches the pages that carry one again, without those lines;
phase 4 verifies the stripped texts (:func:`stripped_pages`, :func:`stripped_texts`). In an
incremental run a segment can become repeated (or stop being) because pages of its host
arrived or left: the unchanged pages that carry such a segment are sketched again too, and
join the changed pages, so the region machinery recomputes everything they touch.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from ..algorithms.segments import strip_text
from ..algorithms.sketch import NearSpec, sketch_texts
from ..algorithms.text import digest_text
from ..parallel import ordered_map
from ..store import run_script, sql, table_exists
from ..store.pages import PageInput, fetch_pages, page_digest, page_text
from ..store.work import Sketch, store_sketches
from .context import PhaseResult, RunContext
from .phase1_prepare import worker_count

#: Pages sketched again per job handed to a worker.
STRIP_CHUNK = 256


@dataclass(frozen=True)
class SegmentResult(PhaseResult):
    counted: int  #: (host, segment) pairs counted by this run
    resketched: int = 0  #: pages sketched again without their repeated segments
    pulled: int = 0  #: unchanged pages whose repeated segments changed (incremental)


def count(ctx: RunContext, changed: Collection[int] | None = None) -> SegmentResult:
    """Count the run's (host, segment) pairs into ``temp.run_segment_counts``: of every
    page, or (an incremental run) only the pairs that the ``changed`` pages had or have."""
    conn = ctx.conn
    run_script(conn, "segments_tables")
    if ctx.incremental and changed is not None:
        conn.executemany(
            "INSERT INTO temp.run_segment_ids (id) VALUES (?)", [(i,) for i in sorted(changed)]
        )
        run_script(conn, "segments_counts_incremental")
    else:
        run_script(conn, "segments_counts_full")
    (n,) = conn.execute("SELECT count(*) FROM temp.run_segment_counts").fetchone()
    return SegmentResult(counted=int(n))


def counted(ctx: RunContext) -> bool:
    """Whether this run counted segments (``temp.run_segment_counts`` exists)."""
    return table_exists(ctx.conn, "run_segment_counts", schema="temp")


def save(ctx: RunContext) -> None:
    """Phase 5: the run's segments into the state tables (inside the write transaction).

    Nothing when the run did not count them (results loaded from ``webdedup daft``). A
    batched full run copies them in its batches instead (``phase5_write_back``)."""
    if not counted(ctx):
        return
    incremental = ctx.plan is not None and ctx.plan.mode == "incremental"
    run_script(ctx.conn, "segments_save_incremental" if incremental else "segments_save")


def strip(ctx: RunContext) -> tuple[SegmentResult, set[int]]:
    """Sketch again, without their repeated segments, the pages that need it.

    A full run: every page that carries a repeated segment. An incremental run: the changed
    pages that carry one, and the unchanged pages carrying a segment whose repeated status
    this run changed; those are returned, their prepared rows copied into
    ``temp.run_prepared``, for the caller to treat as changed.
    """
    conn, config = ctx.conn, ctx.config
    params = {"min_pages": config.segment_min_pages}
    pulled: set[int] = set()
    conn.execute("DROP TABLE IF EXISTS temp.run_strip_ids")
    conn.execute("CREATE TEMP TABLE run_strip_ids (id INTEGER PRIMARY KEY)")
    if ctx.incremental:
        pulled = {r[0] for r in conn.execute(sql("segments_affected"), params)}
        conn.executemany(
            "INSERT INTO temp.run_prepared SELECT * FROM main._webdedup_prepared WHERE id = ?",
            [(i,) for i in sorted(pulled)],
        )
        conn.executemany(
            "INSERT INTO temp.run_strip_ids (id) VALUES (?)", [(i,) for i in sorted(pulled)]
        )
    conn.execute(sql("segments_strip_ids"), params)  # the prepared pages with a repeated one
    drops = _drops(ctx)
    ids = sorted(set(drops) | pulled)
    _resketch(ctx, ids, drops)
    result = SegmentResult(counted=0, resketched=len(ids), pulled=len(pulled))
    return result, pulled


def _drops(ctx: RunContext) -> dict[int, frozenset[int]]:
    """The repeated segments of the pages in ``temp.run_strip_ids`` (after this run)."""
    name = "segments_repeated" if ctx.incremental else "segments_repeated_full"
    out: dict[int, set[int]] = {}
    for pid, h in ctx.conn.execute(sql(name), {"min_pages": ctx.config.segment_min_pages}):
        out.setdefault(pid, set()).add(h)
    return {pid: frozenset(hs) for pid, hs in out.items()}


def drops_of(ctx: RunContext, ids: Iterable[int]) -> dict[int, frozenset[int]]:
    """The repeated segments of the given pages (only those that carry one)."""
    conn = ctx.conn
    conn.execute("DROP TABLE IF EXISTS temp.run_strip_ids")
    conn.execute("CREATE TEMP TABLE run_strip_ids (id INTEGER PRIMARY KEY)")
    conn.executemany("INSERT INTO temp.run_strip_ids (id) VALUES (?)", [(i,) for i in ids])
    return _drops(ctx)


def stripped_pages(ctx: RunContext, pages: dict[int, PageInput]) -> dict[int, PageInput]:
    """The pages with their repeated segments left out of their text."""
    drops = drops_of(ctx, pages)
    return {pid: _stripped(p, drops.get(pid)) for pid, p in pages.items()}


def stripped_texts(ctx: RunContext, ids: Iterable[int]) -> dict[int, str]:
    """Normalized (sketch-capped) texts of the pages, without their repeated segments."""
    pages = stripped_pages(ctx, fetch_pages(ctx.conn, ctx.layout, ids))
    return {pid: page_digest(p).sketch for pid, p in pages.items()}


def _stripped(page: PageInput, drop: frozenset[int] | None) -> PageInput:
    if not drop:
        return page
    return replace(page, text=strip_text(page_text(page), drop), html=None)


def _resketch(ctx: RunContext, ids: Sequence[int], drops: dict[int, frozenset[int]]) -> None:
    """Replace the sketches of ``ids`` by those of their stripped texts."""
    conn, spec = ctx.conn, ctx.spec
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ", ".join("?" * len(chunk))
        conn.execute(f"DELETE FROM temp.run_sketches WHERE id IN ({marks})", chunk)
    jobs = _jobs(ctx, ids, drops)
    workers = worker_count(ctx.config, len(ids))
    for found in ordered_map(sketch_stripped, jobs, workers):
        if found:
            store_sketches(conn, spec.scheme, [i for i, _ in found], [s for _, s in found])


def _jobs(
    ctx: RunContext, ids: Sequence[int], drops: dict[int, frozenset[int]]
) -> Iterator[tuple[NearSpec, list[tuple[PageInput, frozenset[int]]]]]:
    for start in range(0, len(ids), STRIP_CHUNK):
        chunk = ids[start : start + STRIP_CHUNK]
        pages = fetch_pages(ctx.conn, ctx.layout, chunk)
        yield ctx.spec, [(pages[i], drops.get(i, frozenset())) for i in chunk if i in pages]


def sketch_stripped(
    spec: NearSpec, pages: list[tuple[PageInput, frozenset[int]]]
) -> list[tuple[int, Sketch]]:
    """Sketches of the pages' texts without the given segments, for those still long enough
    (pure; runs in workers)."""
    ids, texts = [], []
    for page, drop in pages:
        digest = digest_text(strip_text(page_text(page), drop))
        if digest.n_words >= spec.min_words:
            ids.append(page.id)
            texts.append(digest.sketch)
    return list(zip(ids, sketch_texts(spec, texts), strict=True)) if texts else []


def connection_has_segments(conn: sqlite3.Connection) -> bool:
    """Whether the database keeps segments (schema 7 and later)."""
    return table_exists(conn, "_webdedup_page_segments")
