"""Own content in a run: the near nodes' own texts and the thin pages (start of phase 4).

For every host with a near node, ``segment_min_pages`` pages (distinct URLs) or more and two
texts or more, the lines its pages carry are counted from its distinct texts
(:mod:`~webdedup.algorithms.own`); each of its near nodes whose text has such lines gets its
own text (``temp.run_own``), which verification compares instead of the whole text; a node
whose own text is shorter than ``min_words`` is *thin*: it leaves the near nodes (it is
compared with nothing) and its text is recorded (``temp.run_thin_texts``), so that the
assignment gives every page that carries it the kind ``thin`` (``sql/assign.sql``).

Candidates still come from the whole texts' sketches (no page is sketched twice). A host's
lines depend on all its pages: an incremental run takes every page of the hosts of its
changed pages into its region (``sql/region_hosts.sql``), and its verification cache knows a
page with an own text by its own text's key (:func:`own_key`) rather than by its content
hash (``pipeline.phase4_near._from_cache``, ``sql/verified_save.sql``), so an incremental run
gives what a full run gives.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby

import numpy as np

from ..algorithms.own import LineCounts, host_line_counts, host_lines, own_text, thin_reason
from ..algorithms.text import digest_text
from ..config import Config
from ..parallel import ordered_map
from ..store import sql
from ..store.layout import Layout
from ..store.pages import PageInput, fetch_pages, page_digest, page_text
from ..store.state import host_pages
from . import staging
from .context import PhaseResult, RunContext
from .phase1_prepare import worker_count
from .readers import Readers

#: Pages read from the table at a time while a host's lines are counted.
READ_CHUNK = 500
#: Rows of the staged order (id and place) fetched from SQLite at a time.
ORDER_CHUNK = 100_000
#: A host of more texts than this is not handed to a worker but done in the main process,
#: its texts read twice (to count its lines, then to cut them) rather than held.
KEEP_TEXTS = 2000
#: Near nodes below which the own texts are cut in this process (no worker pool).
PARALLEL_MIN_NODES = 2_000
#: Texts of small hosts handed to a worker in one job (a job holds up to JOB_TEXTS +
#: KEEP_TEXTS texts; ``ordered_map`` keeps at most twice the workers' number in flight).
JOB_TEXTS = 500


@dataclass(frozen=True)
class OwnResult(PhaseResult):
    hosts: int  #: hosts whose repeated lines were counted
    own: int  #: near nodes compared by an own text shorter than their text
    thin: int  #: thin texts (near nodes left out)


def enabled(config: Config) -> bool:
    """Whether near-duplicate decisions rest on own content (not for ``vectors``)."""
    return bool(config.own_content) and config.method != "vectors"


def run(ctx: RunContext) -> OwnResult:
    """Fill ``temp.run_own`` and ``temp.run_thin_texts`` for the run's near nodes and drop
    the thin ones from ``temp.run_near_nodes`` (safe to run again).

    The hosts come a host at a time from two cursors in host order (the hosts' texts, the
    near nodes): nothing is held for the whole run but the thin nodes and the jobs in
    flight. This process reads each host's texts (extracting those of pages stored as HTML
    only); counting its lines and cutting its nodes' own texts go to worker processes,
    several small hosts to a job (:func:`own_of_hosts`), each job's results stored as they
    come back; a host of more than :data:`KEEP_TEXTS` texts stays in this process, which
    reads its texts twice rather than hold them all (stored at once, before the results of
    jobs still in flight: the tables are keyed, their order does not matter).
    """
    conn, config = ctx.conn, ctx.config
    conn.execute("DELETE FROM temp.run_own")
    conn.execute("DELETE FROM temp.run_thin_texts")
    if not enabled(config):
        return OwnResult(hosts=0, own=0, thin=0)
    name = "own_hosts_incremental" if ctx.incremental else "own_hosts_full"
    query = sql(name, host_pages=host_pages(conn)) if ctx.incremental else sql(name)
    # the hosts' texts, kept: the near nodes are then read for those hosts only (on a large
    # crawl most hosts have too few pages, and going through every node took most of the step)
    conn.execute("DROP TABLE IF EXISTS temp.run_own_texts")
    conn.execute(
        "CREATE TEMP TABLE run_own_texts (host TEXT NOT NULL, content_hash TEXT NOT NULL, "
        "id INTEGER NOT NULL, urls INTEGER NOT NULL, PRIMARY KEY (host, content_hash)) "
        "WITHOUT ROWID"
    )
    conn.execute("INSERT INTO temp.run_own_texts " + query,
                 {"min_pages": int(config.segment_min_pages)})
    rows = conn.execute(
        "SELECT host, content_hash, id, urls FROM temp.run_own_texts ORDER BY host, content_hash"
    )
    node_rows = _HostNodes(conn.execute(
        "SELECT k.host, p.content_hash, n.id, p.word_count "
        "FROM (SELECT DISTINCT host FROM temp.run_own_texts) AS h "  # (CROSS JOIN: the
        "CROSS JOIN temp.run_hosts AS k ON k.host = h.host "  # hosts outermost, not every page)
        "JOIN temp.run_near_nodes AS n ON n.id = k.id "
        "JOIN temp.run_prepared AS p ON p.id = n.id ORDER BY k.host"
    ))
    nodes_total = conn.execute("SELECT count(*) FROM temp.run_near_nodes").fetchone()[0]
    workers = worker_count(config, nodes_total, minimum=PARALLEL_MIN_NODES)
    limits = (int(config.segment_min_pages), int(config.min_words))
    tally = _Tally()

    # the hosts of the jobs handed out and not yet done, in order, with their nodes' ids
    pending: deque[list[tuple[str, dict[str, list[int]]]]] = deque()

    def jobs() -> Iterator[tuple[list[HostTexts], int, int]]:
        batch: list[HostTexts] = []
        ids: list[tuple[str, dict[str, list[int]]]] = []
        size = 0
        for host, group in groupby(rows, key=lambda r: r[0]):
            texts = [(chash, pid, n) for _, chash, pid, n in group]
            nodes, words = node_rows.of(host)
            tally.hosts += 1
            if len(texts) > KEEP_TEXTS:  # here, reading its texts twice (bounded memory)
                tally.add(ctx, host, nodes, _large_host(ctx, texts, nodes, words, *limits))
                continue
            pids = [pid for _, pid, _ in texts]
            mine = [(i, chash) for i, (chash, _, _) in enumerate(texts) if chash in nodes]
            counts, owned = [n for _, _, n in texts], {chash: words[chash] for _, chash in mine}
            if staged is not None:  # read by the readers in id order
                batch.append(HostTexts(staged.take(pids), counts, mine, owned))
            else:
                batch.append(HostTexts(list(_texts(ctx, pids)), counts, mine, owned))
            ids.append((host, nodes))
            size += len(texts)
            if size >= JOB_TEXTS:
                pending.append(ids)
                yield batch, *limits
                batch, ids, size = [], [], 0
        if batch:
            pending.append(ids)
            yield batch, *limits

    staged = None
    try:
        if ctx.readers is not None:  # the hosts' texts read by the readers in id order
            staged = _staged(ctx, ctx.readers)
            results = ctx.readers.map(own_of_hosts, jobs())
        else:
            results = ordered_map(own_of_hosts, jobs(), workers)
        for found in results:
            for (host, nodes), cuts in zip(pending.popleft(), found, strict=True):
                tally.add(ctx, host, nodes, cuts)
    finally:
        node_rows.close()
        if staged is not None:
            staged.close()
    # (after the node cursor is done: a table is not changed under a cursor reading it)
    conn.executemany("DELETE FROM temp.run_near_nodes WHERE id = ?", [(i,) for i in tally.thin_ids])
    return OwnResult(hosts=tally.hosts, own=tally.own, thin=tally.thin)


def _staged(ctx: RunContext, readers: Readers) -> staging.InOrder:
    """The texts of the hosts, read by the ``readers`` in id order (:mod:`.staging`) and
    taken in the order :func:`run`'s jobs take them (host, then content hash:
    ``temp.run_own_texts``' key), those of hosts of more than :data:`KEEP_TEXTS` texts left
    out (read in this process). The order comes from SQLite (``sql/own_staged_order.sql``),
    a chunk at a time."""
    conn = ctx.conn
    params = {"keep": KEEP_TEXTS, "sample": staging.SAMPLE_PAGES}
    count, drawn = conn.execute(sql("own_staged_sample"), params).fetchone()
    sample = np.array([int(x) for x in (drawn or "").split(",") if x], np.int64)
    text_bytes = staging.sample_text_bytes(conn, ctx.layout, sample, "text")

    def by_id() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        cur = conn.execute(sql("own_staged_order"), params)
        try:
            while rows := cur.fetchmany(ORDER_CHUNK):
                pairs = np.array(rows, np.int64)
                yield pairs[:, 0].copy(), pairs[:, 1].copy()
        finally:
            cur.close()

    return staging.InOrder(readers, ctx.layout, int(count), text_bytes, by_id())


@dataclass(frozen=True)
class HostTexts:
    """One host's texts for :func:`own_of_hosts`: its distinct texts (``None`` for a page
    gone meanwhile), their pages' counts, which of them are near nodes (index, content
    hash) and each such node's word count."""

    texts: list[str | None]
    pages: list[int]
    mine: list[tuple[int, str]]
    words: dict[str, int]


#: What became of a near node's text: (content hash, own text, why thin or None).
Cut = tuple[str, str, str | None]


def own_of_hosts(hosts: list[HostTexts], min_pages: int, min_words: int) -> list[list[Cut]]:
    """For each host, its near nodes' texts that carry some of the host's lines, cut to
    their own text (pure; runs in worker processes)."""
    out = []
    for h in hosts:
        counts = host_line_counts(zip(h.texts, h.pages, strict=True))
        lines = host_lines(counts, min_pages)
        out.append(_cuts(counts, lines, ((i, c, h.texts[i]) for i, c in h.mine), h.words,
                         min_words) if lines else [])
    return out


def _cuts(
    counts: LineCounts,
    lines: frozenset[str],
    mine: Iterable[tuple[int, str, str | None]],
    words: dict[str, int],
    min_words: int,
) -> list[Cut]:
    out = []
    for i, chash, text in mine:
        if counts.lines[i].isdisjoint(lines):
            continue  # none of the host's lines: compared whole
        kept = own_text(text, lines)
        out.append((chash, kept, thin_reason(digest_text(kept).n_words, words[chash], min_words)))
    return out


def _large_host(
    ctx: RunContext,
    texts: list[tuple[str, int, int]],
    nodes: dict[str, list[int]],
    words: dict[str, int],
    min_pages: int,
    min_words: int,
) -> list[Cut]:
    """:func:`own_of_hosts` of a host of many texts, here: its texts read once to count its
    lines, and its near nodes' texts again to cut them."""
    counts = host_line_counts(
        zip(_texts(ctx, [pid for _, pid, _ in texts]), (n for _, _, n in texts), strict=True)
    )
    lines = host_lines(counts, min_pages)
    if not lines:
        return []
    mine = [(i, chash, pid) for i, (chash, pid, _) in enumerate(texts) if chash in nodes]
    again = _texts(ctx, [pid for _, _, pid in mine])
    return _cuts(counts, lines, ((i, c, t) for (i, c, _), t in zip(mine, again, strict=True)),
                 words, min_words)


def own_key(text: str) -> str:
    """What the verification cache (``_webdedup_verified``) knows an own text by, in place of
    its page's content hash: ``o`` and the SHA-1 of the own text's UTF-8 (41 characters, so
    never a content hash). A score depends only on the two texts compared, and an own text
    only on its page's text and its host's repeated lines: when those change, so does the
    key, and the pair is verified again.

    >>> own_key("abc")
    'oa9993e364706816aba3e25717850c26c9cd0d89d'
    """
    return "o" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class _Tally:
    """What the cuts of the hosts so far came to (their rows go in as they come)."""

    hosts: int = 0
    own: int = 0
    thin: int = 0
    thin_ids: list[int] = field(default_factory=list)

    def add(self, ctx: RunContext, host: str, nodes: dict[str, list[int]], cuts: list[Cut]) -> None:
        thin_rows: list[tuple[str, str, str]] = []
        own_rows: list[tuple[int, str, str]] = []
        for chash, kept, reason in cuts:
            if reason is not None:
                self.thin += 1
                thin_rows.append((host, chash, reason))
                self.thin_ids += nodes[chash]
            else:
                self.own += len(nodes[chash])
                key = own_key(kept)
                own_rows += [(i, kept, key) for i in nodes[chash]]
        ctx.conn.executemany(
            "INSERT INTO temp.run_thin_texts (host, content_hash, reason) VALUES (?, ?, ?)",
            thin_rows,
        )
        ctx.conn.executemany(
            "INSERT INTO temp.run_own (id, text, text_key) VALUES (?, ?, ?)", own_rows
        )


class _HostNodes:
    """The near nodes of a cursor in host order, a host at a time (:meth:`of`, asked in
    the same order): each text's node ids and word count."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor
        self._next: tuple[str, str, int, int] | None = next(cursor, None)

    def of(self, host: str) -> tuple[dict[str, list[int]], dict[str, int]]:
        nodes: dict[str, list[int]] = {}
        words: dict[str, int] = {}
        while self._next is not None and self._next[0] < host:  # hosts with no texts counted
            self._next = next(self._cursor, None)
        while self._next is not None and self._next[0] == host:
            _, chash, pid, n_words = self._next
            nodes.setdefault(chash, []).append(int(pid))
            words[chash] = int(n_words)
            self._next = next(self._cursor, None)
        return nodes, words

    def close(self) -> None:
        self._cursor.close()


def _texts(ctx: RunContext, ids: list[int]) -> Iterable[str | None]:
    """The texts of the pages, in the order given (read a chunk at a time)."""
    for start in range(0, len(ids), READ_CHUNK):
        chunk = ids[start : start + READ_CHUNK]
        pages = fetch_pages(ctx.conn, ctx.layout, chunk)
        for pid in chunk:
            yield page_text(pages[pid]) if pid in pages else None


def own_texts(ctx: RunContext, ids: Iterable[int]) -> dict[int, str]:
    """The own texts of those of the given pages that have one shorter than their text."""
    ids = sorted(set(ids))
    out: dict[int, str] = {}
    for start in range(0, len(ids), READ_CHUNK):
        chunk = ids[start : start + READ_CHUNK]
        marks = ", ".join("?" * len(chunk))
        out.update(ctx.conn.execute(
            f"SELECT id, text FROM temp.run_own WHERE id IN ({marks})", chunk
        ).fetchall())
    return out


def own_pages(ctx: RunContext, pages: dict[int, PageInput]) -> dict[int, PageInput]:
    """The pages with their own text instead of their text, where it is shorter."""
    own = own_texts(ctx, pages)
    if not own:
        return pages
    return {
        pid: replace(p, text=own[pid], html=None) if pid in own else p for pid, p in pages.items()
    }


def own_sketches(ctx: RunContext, ids: Iterable[int]) -> dict[int, str]:
    """The normalized (sketch-capped) own texts of those of the pages that have one."""
    return {
        pid: page_digest(PageInput(pid, None, text)).sketch
        for pid, text in own_texts(ctx, ids).items()
    }


def own_lengths(ctx: RunContext, ids: Iterable[int]) -> dict[int, int]:
    """The normalized lengths (characters) of the own texts of those of the pages that have
    one (what the ``levenshtein`` window's length filter compares)."""
    return {pid: page_digest(PageInput(pid, None, t)).n_chars
            for pid, t in own_texts(ctx, ids).items()}


def host_changed(ctx: RunContext) -> set[int]:
    """An incremental run's prepared pages on the hosts of its changed pages: their own texts
    may have changed with their hosts' lines."""
    if not enabled(ctx.config):
        return set()
    return {r[0] for r in ctx.conn.execute(
        "SELECT id FROM temp.run_prepared WHERE host IN ("
        "SELECT host FROM temp.run_prepared WHERE id IN (SELECT id FROM temp.run_changed) "
        "UNION SELECT host FROM main._webdedup_prepared "
        "WHERE id IN (SELECT id FROM temp.run_changed))"
    )}


def stored_own_text(
    conn: sqlite3.Connection, layout: Layout, config: Config, page_id: int
) -> str | None:
    """A page's own text as the last run cut it, from the stored state (``explain``): its
    text without its host's lines; ``None`` when the run compared its whole text."""
    if not enabled(config):
        return None
    row = conn.execute(
        "SELECT host FROM _webdedup_prepared WHERE id = ? AND ignored IS NULL", (page_id,)
    ).fetchone()
    if row is None or row[0] is None:
        return None
    texts = conn.execute(
        "SELECT content_hash, min(id), count(DISTINCT url_key) FROM _webdedup_prepared "
        "WHERE host = ? AND ignored IS NULL GROUP BY content_hash ORDER BY content_hash",
        (row[0],),
    ).fetchall()
    (urls,) = conn.execute(
        "SELECT count(DISTINCT url_key) FROM _webdedup_prepared "
        "WHERE host = ? AND ignored IS NULL",
        (row[0],),
    ).fetchone()
    if urls < int(config.segment_min_pages) or len(texts) < 2:
        return None
    lines = template_lines(
        conn, layout, [(pid, n) for _, pid, n in texts], int(config.segment_min_pages)
    )
    pages = fetch_pages(conn, layout, [page_id])
    text = page_text(pages[page_id]) if page_id in pages else None
    kept = own_text(text, lines)
    return None if kept == (text or "") else kept


def template_lines(
    conn: sqlite3.Connection, layout: Layout, texts: Sequence[tuple[int, int]], min_pages: int
) -> frozenset[str]:
    """A host's template lines (:func:`~webdedup.algorithms.own.host_lines`) from its
    distinct texts, each given as ``(a page holding it, the URLs carrying it)``; read a
    chunk at a time."""
    ids = [pid for pid, _ in texts]
    read: list[str | None] = []
    for start in range(0, len(ids), READ_CHUNK):
        chunk = ids[start : start + READ_CHUNK]
        pages = fetch_pages(conn, layout, chunk)
        read += [page_text(pages[pid]) if pid in pages else None for pid in chunk]
    counts = host_line_counts(zip(read, (n for _, n in texts), strict=True))
    return host_lines(counts, min_pages)
