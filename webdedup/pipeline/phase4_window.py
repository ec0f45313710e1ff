"""The ``levenshtein`` window in the database: a full run, and an incremental one.

A full run sorts the nodes of phase 4 by canonical URL and compares each with the next
``distance`` (:func:`full_run`); it records the nodes (``_webdedup_nodes`` after the
write-back) so that a nightly run can place its changed nodes among them without sorting
or comparing the rest again (:func:`incremental_run`, on :func:`window_delta`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..algorithms.levenshtein import indel_scores, may_reach, window_delta, window_pairs
from ..algorithms.sketch import LEVENSHTEIN_MAX_CHARS
from ..config import Config
from ..parallel import ordered_map
from ..store import sql
from ..store.pages import PageInput, fetch_pages, fetch_texts, page_digest
from . import own_content
from .context import RunContext
from .phase1_prepare import worker_count

#: Nodes read and compared at a time by a full run.
BLOCK = 2_000
#: Window pairs per scoring job handed to a worker process, and below how many pairs
#: scoring stays in one process.
SCORE_CHUNK = 1_000
PARALLEL_MIN_PAIRS = 1_000

#: Window scores by page pair, kept by a run for the passes of phase 4 after the first (a
#: grown region asks again for most of them): the run's own, empty at its start.
WindowScores = dict[tuple[int, int], float]


def workers_for(config: Config) -> int:
    """rapidfuzz's native threads: ``-1`` (all cores) unless ``workers`` is set."""
    return -1 if config.workers <= 0 else config.workers


@dataclass(frozen=True)
class WindowResult:
    """The window of an incremental run: the region's edges, or the outside pages the
    window links to the region (``pull``: the region must take them in first)."""

    edges: list[tuple[int, int, float]]
    pull: frozenset[int] = frozenset()


def full_run(ctx: RunContext, component: dict[int, int]) -> Iterator[tuple[int, int, float]]:
    """Stream the nodes in canonical-URL order; compare within a sliding window.

    Also records the nodes (``run_lev_nodes``) for the next, incremental, run.
    """
    conn, spec = ctx.conn, ctx.spec
    keyed = _own_keyed(ctx, conn.execute(sql("near_url_order")).fetchall())
    _record_nodes(ctx, keyed, component)
    ordered = [pid for pid, _, _ in keyed]
    bar = ctx.bar("compare", total=len(ordered), unit="page")
    carry_ids: list[int] = []
    carry_texts: list[str] = []
    workers = workers_for(ctx.config)
    for start in range(0, len(ordered), BLOCK):
        block = ordered[start : start + BLOCK]
        texts = fetch_texts(conn, ctx.layout, block) | own_content.own_sketches(ctx, block)
        ids = carry_ids + block
        window_texts = carry_texts + [texts[i] for i in block]
        n_carry = len(carry_ids)
        for i, j, score in window_pairs(
            window_texts,
            spec.distance,
            spec.threshold,
            workers=workers,
            max_chars=LEVENSHTEIN_MAX_CHARS,
        ):
            if j >= n_carry:  # pairs inside the carried-over part came with the previous block
                a, b = sorted((ids[i], ids[j]))
                yield a, b, round(float(score), 6)
        carry_ids = ids[-spec.distance :]
        carry_texts = window_texts[-spec.distance :]
        bar.update(len(block))
    bar.close()


def _own_keyed(
    ctx: RunContext, keyed: list[tuple[int, str, int]]
) -> list[tuple[int, str, int]]:
    """The window's nodes ``(id, url_key, length)`` with the lengths of their own texts."""
    own = own_content.own_lengths(ctx, [pid for pid, _, _ in keyed])
    if not own:
        return keyed
    return [(pid, k, own.get(pid, n)) for pid, k, n in keyed]


def _record_nodes(
    ctx: RunContext, keyed: Iterable[tuple[int, str, int]], component: dict[int, int]
) -> None:
    """Keep the window's nodes ``(id, url_key, text_len)`` for the write-back."""
    ctx.conn.executemany(
        "INSERT INTO temp.run_lev_nodes (id, url_key, component, length) VALUES (?, ?, ?, ?)",
        [(pid, key, component[pid], compared_length(n)) for pid, key, n in keyed],
    )


def compared_length(text_len: int) -> int:
    """How many characters of a normalized text of ``text_len`` the window compares.

    (The text compared is the normalized text, cut at ``LEVENSHTEIN_MAX_CHARS``; ``text_len``
    is its full length, stored by phase 1.)
    """
    return min(text_len, LEVENSHTEIN_MAX_CHARS)


def incremental_run(
    ctx: RunContext, component: dict[int, int], scores: WindowScores
) -> WindowResult:
    """The levenshtein window of an incremental run, around its region.

    The region's nodes are placed among the stored ones (:func:`window_delta`); the pairs
    that involve a region node, or that entered or left the window because region nodes
    came or went between them, are the only ones whose outcome can differ from the last run.
    Any of them that links the region to an outside node (a new edge to it, or a stored edge
    of two outside nodes that must go) means the outside node belongs to the region: their
    ids are returned as ``pull``, and the caller grows the region and runs phases 2-4 again.
    Otherwise the region's edges are returned: the same as a full run's there. The pairs
    scored are added to ``scores``; those already there are not scored again.
    """
    conn, spec = ctx.conn, ctx.spec
    keyed = _own_keyed(ctx, conn.execute(sql("near_url_order")).fetchall())  # region's nodes
    # keys as UTF-8 bytes: compared as SQLite's ORDER BY compares them, and not decoded
    new_region = [(k.encode("utf-8"), pid) for pid, k, _ in keyed]
    old_region = conn.execute(sql("window_old_region")).fetchall()
    outside = conn.execute(sql("window_outside"))
    delta = window_delta(outside, old_region, new_region, spec.distance)

    # a stored edge whose two nodes are no longer in one window must go
    conn.execute("DELETE FROM temp.run_lev_left")
    conn.executemany(
        "INSERT OR IGNORE INTO temp.run_lev_left (a, b) VALUES (?, ?)",
        [(a, b) if a < b else (b, a) for a, b in delta.left],
    )
    pull = {x for pair in conn.execute(sql("window_left_edges")) for x in pair}

    comps = dict(component)
    lengths = {pid: compared_length(n) for pid, _, n in keyed}
    for pid, (comp, length) in delta.outside.items():
        comps[pid], lengths[pid] = comp, length
    # An unchanged region node and an outside node that already met in the old window
    # scored below the threshold then (an edge, or one exact group, would have put the
    # outside node in the region): the same texts need no second look.
    changed = {r[0] for r in conn.execute("SELECT id FROM temp.run_changed")}
    changed |= own_content.host_changed(ctx)  # their own texts may have changed
    pairs = [
        (a, b)
        for (a, b), was in zip(delta.region, delta.was_near, strict=True)
        if not (was and _unchanged_meets_outside(a, b, component, changed))
    ]
    pairs += [(a, b) for a, b in delta.entered if comps[a] != comps[b]]
    la = np.fromiter((lengths[a] for a, _ in pairs), dtype=np.int64, count=len(pairs))
    lb = np.fromiter((lengths[b] for _, b in pairs), dtype=np.int64, count=len(pairs))
    pairs = [p for p, ok in zip(pairs, may_reach(la, lb, spec.threshold), strict=True) if ok]

    edges: list[tuple[int, int, float]] = []
    for (a, b), score in _indel_scores_cached(ctx, pairs, scores).items():
        if score < spec.threshold:
            continue
        if a in component and b in component:
            if component[a] != component[b]:
                edges.append((min(a, b), max(a, b), score))
        else:  # an edge reaching out of the region (or between two outside nodes, new)
            pull.update(x for x in (a, b) if x not in component)
    if pull:
        return WindowResult(edges=[], pull=frozenset(pull))
    _record_nodes(ctx, keyed, component)
    return WindowResult(edges=sorted(set(edges)))


def _unchanged_meets_outside(a: int, b: int, region: dict[int, int], changed: set[int]) -> bool:
    inside, other = (a, b) if a in region else (b, a)
    return other not in region and inside not in changed


def _indel_scores_cached(
    ctx: RunContext, pairs: Sequence[tuple[int, int]], cache: WindowScores
) -> dict[tuple[int, int], float]:
    """Scores of window pairs, in worker processes, those not in ``cache`` only; the new
    ones are added to it."""
    spec = ctx.spec
    todo = [p for p in pairs if p not in cache]
    bar = ctx.bar("compare", total=len(pairs), unit="pair")
    bar.update(len(pairs) - len(todo))
    workers = worker_count(ctx.config, len(todo), minimum=PARALLEL_MIN_PAIRS)
    chunks = [todo[i : i + SCORE_CHUNK] for i in range(0, len(todo), SCORE_CHUNK)]
    jobs = (
        (
            spec.threshold,
            own_content.own_pages(
                ctx, fetch_pages(ctx.conn, ctx.layout, {x for p in chunk for x in p})
            ),
            chunk,
        )
        for chunk in chunks
    )
    for chunk, found in zip(chunks, ordered_map(indel_chunk, jobs, workers), strict=True):
        cache.update(zip(chunk, found, strict=True))
        bar.update(len(chunk))
    bar.close()
    return {p: cache[p] for p in pairs}


def indel_chunk(
    threshold: float, pages: dict[int, PageInput], pairs: Sequence[tuple[int, int]]
) -> list[float]:
    """Window scores of pairs from the raw pages (pure; runs in worker processes), as the
    full run's :func:`window_pairs` computes them."""
    texts = {
        pid: page_digest(page).sketch[:LEVENSHTEIN_MAX_CHARS]
        for pid, page in pages.items()
    }
    scores = indel_scores([texts[a] for a, _ in pairs], [texts[b] for _, b in pairs], threshold)
    return [round(float(s), 6) for s in scores]
