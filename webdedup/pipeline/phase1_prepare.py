"""Phase 1, prepare: canonical URL, normalized-text hash and election attributes per page.

``prepare_page`` is pure (it runs in worker processes); ``run`` streams the
``pages`` table in bounded chunks into the run's ``run_prepared`` work table.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..algorithms import language
from ..algorithms.segments import page_segments
from ..algorithms.sketch import NearSpec, sketch_texts
from ..algorithms.text import compiled, digest_text
from ..algorithms.timestamps import parse_timestamp
from ..algorithms.urls import IgnoreRules, canonical_host, canonicalize_url, is_https, url_hash
from ..config import Config
from ..parallel import cpu_count, ordered_map
from ..store import lenient_text, quote, run_script
from ..store.pages import (
    LOOKUP_CHUNK,
    PageInput,
    iter_pages,
    page_digest,
    page_text,
    rowid_bounds,
)
from ..store.snapshot import reader
from ..store.work import Sketch
from .char_cache import load_char_table
from .context import PrepareResult, RunContext
from .readers import Readers

#: Text characters that end a batch of pages handed to a worker before ``chunk_size`` pages.
BATCH_CHARS = 8_000_000
#: Below this many pages a run stays in one process (a pool costs more than it saves).
PARALLEL_MIN_PAGES = 4_000


class Prepared(NamedTuple):
    """One row of ``_webdedup_prepared`` (same columns, same order)."""

    id: int
    url_hash: str
    canonical_url: str | None
    url_key: str
    host: str | None
    content_hash: str | None
    text_len: int
    word_count: int
    is_external: int
    is_https: int
    url_len: int
    dt: float | None
    crawled_ts: float | None
    ignored: str | None
    lang: str | None
    lang_score: float | None


def prepare_page(
    page: PageInput, config: Config, rules: IgnoreRules,
    detected: language.Detection | None = None,
) -> tuple[Prepared, bytes, list[int]]:
    """Prepare one page; returns the row, the normalized text kept for sketches (UTF-8) and
    the page's segment hashes (:mod:`~webdedup.algorithms.segments`; none when ignored or not
    counted). ``detected``: the page's :func:`page_language`, when the caller has it
    (:func:`prepare_batch` detects a batch at once); else it is found here."""
    url = page.url if isinstance(page.url, str) else None
    if config.counts_segments:  # it reads the text itself
        text = page_text(page)
        digest = digest_text(text)
    else:
        text = None
        digest = page_digest(page)  # the text's bytes as read: no decoding when well-formed
    canonical = canonicalize_url(url, discard_params=config.discard_params) if url else None
    ignored: str | None = None
    if digest.empty:
        ignored = "empty_text"
    elif url and rules.patterns:
        rule = rules.match(url)
        if rule is not None:
            ignored = f"urls_to_ignore:{rule}"
    if digest.empty:
        found = language.NONE
    elif detected is not None:
        found = detected
    else:
        found = page_language(page, config, text)
    if ignored is None and config.languages and found.lang not in config.languages:
        ignored = "language"
    category = page.category.strip().lower() if isinstance(page.category, str) else ""
    row = Prepared(
        id=int(page.id),
        url_hash=url_hash(url),
        canonical_url=canonical,
        url_key=canonical if canonical is not None else f"#{int(page.id)}",
        host=canonical_host(canonical) if canonical is not None else None,
        content_hash=None if digest.empty else digest.sha1,
        text_len=digest.n_chars,
        word_count=digest.n_words,
        is_external=1 if category == "external" else 0,
        is_https=1 if url and is_https(url) else 0,
        url_len=len(url or ""),
        dt=parse_timestamp(page.datetime),
        crawled_ts=parse_timestamp(page.crawled),
        ignored=ignored,
        lang=found.lang,
        lang_score=found.score,
    )
    count = config.counts_segments and ignored is None and row.host is not None
    segments = page_segments(text) if count else []
    return row, digest.utf8, segments


def page_language(
    page: PageInput, config: Config, text: str | None = None
) -> language.Detection:
    """The page's language: the crawler's own value, else (when the run detects languages)
    detected in its text (``text``: :func:`page_text`, when the caller has it)."""
    if not config.detects_language:
        return language.page_language(page.lang, None)
    return language.page_language(page.lang, page_text(page) if text is None else text)


@dataclass(frozen=True)
class PrepareJob:
    """What a (worker) process needs to prepare and sketch a batch of pages."""

    config: Config
    spec: NearSpec | None  # None: the method keeps no sketches (levenshtein)
    #: each sketch with its band keys as a list (the Daft pipeline's); else only the blob
    band_keys: bool = True



def prepare_batch(
    job: PrepareJob, pages: Sequence[PageInput]
) -> list[tuple[Prepared, Sketch | None, list[int]]]:
    """Prepare a batch and sketch its pages that are long enough (pure; runs in workers);
    with each page its segment hashes."""
    rules = IgnoreRules.from_patterns(job.config.urls_to_ignore, job.config.ignore_match)
    out: list[tuple[Prepared, Sketch | None, list[int]]] = []
    to_sketch: list[int] = []
    texts: list[bytes] = []
    # The batch's languages first, in one loop: CLD2's tables stay in the CPU's caches
    # (interleaved with the rest of each page's preparation, it cost nearly twice as much).
    found = [page_language(page, job.config) for page in pages]
    for page, detected in zip(pages, found, strict=True):
        row, text, segments = prepare_page(page, job.config, rules, detected)
        if job.spec is not None and row.ignored is None and row.word_count >= job.spec.min_words:
            to_sketch.append(len(out))
            texts.append(text)
        out.append((row, None, segments))
    if to_sketch and job.spec is not None:
        sketches = sketch_texts(job.spec, texts, keys=job.band_keys)
        for i, sketch in zip(to_sketch, sketches, strict=True):
            out[i] = (out[i][0], sketch, out[i][2])
    return out


def _batches(pages: Iterable[PageInput], size: int, max_chars: int) -> Iterator[list[PageInput]]:
    """Batches of at most ``size`` pages and about ``max_chars`` characters of text."""
    batch: list[PageInput] = []
    chars = 0
    for page in pages:
        batch.append(page)
        chars += _length(page.text) + _length(page.html)
        if len(batch) >= size or chars >= max_chars:
            yield batch
            batch, chars = [], 0
    if batch:
        yield batch


def _length(value: object) -> int:
    return len(value) if isinstance(value, (str, bytes)) else 0


def worker_count(config: Config, amount: int, minimum: int = PARALLEL_MIN_PAGES) -> int:
    """``config.workers`` when set, else all cores when ``amount`` of work reaches ``minimum``."""
    if config.workers > 0:
        return config.workers
    return cpu_count() if amount >= minimum else 1


def run(ctx: RunContext, only: Collection[int] | None = None) -> PrepareResult:
    """Stream ``pages`` into ``temp.run_prepared`` (and sketches into ``temp.run_sketches``).

    With ``only``, just those page ids (the changed pages of an incremental run). Pages are
    prepared in batches of ``config.chunk_size`` pages, in worker processes when there are
    enough pages: with the run's readers (``ctx.readers``) each worker reads its batch itself,
    a range of rowids or a list of ids (:func:`read_and_prepare`); else this process reads
    every text, one row at a time, and hands the batches on. The ``n_min`` filter is applied
    later, once every page is known.
    """
    conn, config, spec = ctx.conn, ctx.config, ctx.spec
    run_script(conn, "run_tables")
    job = PrepareJob(config, spec if spec.method not in ("levenshtein", "vectors") else None,
                     band_keys=False)  # (run_sketches keeps the blobs)
    select = ctx.layout.select_pages()
    total = ctx.total_pages
    if only is not None:
        conn.execute("CREATE TEMP TABLE run_only (id INTEGER PRIMARY KEY)")
        conn.executemany("INSERT INTO temp.run_only (id) VALUES (?)", [(i,) for i in only])
        where = f" WHERE {quote(ctx.layout.rowid)} IN (SELECT id FROM temp.run_only)"
        select += where
        # the changed ids that are still pages (a deleted page has nothing to prepare: the
        # bar ended at "3/4 pages" for a run with one deletion)
        total = conn.execute(
            f"SELECT count(*) FROM {quote(ctx.layout.table)}{where}"
        ).fetchone()[0]
    if ctx.readers is not None:
        return _run_on_readers(ctx, ctx.readers, job, only, total)
    load_char_table()  # the normalizer's table, stored by an earlier run (else built)
    with lenient_text(conn, bytes):  # texts go to the workers undecoded: they decode them
        reader = conn.cursor()
        reader.execute(select)
        bar = ctx.bar("prepare", total=total, unit="page")
        seen = 0
        workers = worker_count(config, total)
        if workers > 1:  # once here, not once in every forked worker (phase 4's too)
            compiled().warm_up()  # the compiled kernels (normalization, sketches)
        batches = _batches(iter_pages(reader), config.chunk_size, BATCH_CHARS)
        jobs = ((job, b) for b in batches)  # (spawned workers load the table too)
        for results in ordered_map(prepare_batch, jobs, workers, setup=load_char_table):
            _store(ctx, _rows(job, results))
            seen += len(results)
            bar.update(len(results))
    bar.close()
    return PrepareResult(pages=seen, workers=workers)


class PreparedRows(NamedTuple):
    """A prepared batch as the rows of phase 1's TEMP tables (plain tuples: a worker's
    results travel back pickled, and a named tuple pickles several times slower)."""

    prepared: list[tuple[Any, ...]]  #: rows of ``temp.run_prepared``
    segments: list[tuple[str | None, int, int]]  #: (host, hash, id) rows of ``run_segments``
    sketches: list[tuple[int, str, bytes]]  #: (id, scheme, sketch) rows of ``run_sketches``


def _rows(job: PrepareJob, results: Sequence[tuple[Prepared, Sketch | None, list[int]]]
          ) -> PreparedRows:
    scheme = job.spec.scheme if job.spec is not None else ""
    return PreparedRows(
        [tuple(row) for row, _, _ in results],
        [(row.host, h, row.id) for row, _, hashes in results for h in hashes],
        [(row.id, scheme, sk[0]) for row, sk, _ in results if sk is not None],
    )


def _store(ctx: RunContext, rows: PreparedRows) -> None:
    """A prepared batch into the run's TEMP tables."""
    ctx.conn.executemany(_INSERT, rows.prepared)
    ctx.conn.executemany(  # the pages' segments (pipeline.segments counts them)
        "INSERT INTO temp.run_segments (host, hash, id) VALUES (?, ?, ?)", rows.segments
    )
    ctx.conn.executemany(
        "INSERT INTO temp.run_sketches (id, scheme, sketch) VALUES (?, ?, ?)", rows.sketches
    )


_INSERT = "INSERT INTO temp.run_prepared VALUES (" + ", ".join("?" * len(Prepared._fields)) + ")"


class Span(NamedTuple):
    """The pages a reader's job reads: the rowids from ``lo`` to ``hi`` (at most ``cap`` of
    them, in rowid order), or (``ids``) just those."""

    lo: int = 0
    hi: int = -1
    cap: int = 0
    ids: tuple[int, ...] = ()


class ReadBatch(NamedTuple):
    """What :func:`read_and_prepare` gives back: the rows, and where a range stopped short
    of its end (``cap`` rows read; None when it was read to the end)."""

    rows: PreparedRows
    resume: int | None


def read_and_prepare(job: PrepareJob, select: str, rowid: str, span: Span) -> ReadBatch:
    """In a reader (:mod:`.readers`): read a span of pages in the run's snapshot and prepare
    them, a batch of about :data:`BATCH_CHARS` characters at a time."""
    conn = reader()
    if span.ids:
        cursors: Iterable[Iterable[tuple[Any, ...]]] = (
            conn.execute(
                f"{select} WHERE {rowid} IN ({', '.join('?' * len(chunk))})", chunk
            )
            for chunk in (span.ids[i : i + LOOKUP_CHUNK] for i in range(0, len(span.ids),
                                                                          LOOKUP_CHUNK))
        )
    else:
        cursors = [conn.execute(
            f"{select} WHERE {rowid} >= ? AND {rowid} <= ? ORDER BY {rowid} LIMIT ?",
            (span.lo, span.hi, span.cap),
        )]
    rows = PreparedRows([], [], [])
    last, read = None, 0
    for cursor in cursors:
        for batch in _batches(iter_pages(cursor), max(len(span.ids), span.cap), BATCH_CHARS):
            done = _rows(job, prepare_batch(job, batch))
            rows.prepared.extend(done.prepared)
            rows.segments.extend(done.segments)
            rows.sketches.extend(done.sketches)
            last, read = batch[-1].id, read + len(batch)
    resume = None
    if not span.ids and read >= span.cap and last is not None and last < span.hi:
        resume = int(last) + 1
    return ReadBatch(rows, resume)


class RowidRanges:
    """Ranges of rowids from ``lo`` to ``hi`` that hold about ``rows`` pages each, for the
    readers' jobs: the width follows the density of the ranges read so far (a table's rowids
    may have gaps, or be spread far apart), doubling at most from one range to the next, and
    a range that held more than ``cap`` pages is read again from where it stopped.

    >>> ranges = RowidRanges(1, 10, rows=4, cap=8)
    >>> it = iter(ranges)
    >>> next(it), next(it)
    ((1, 4), (5, 8))
    >>> ranges.done(1, 4, found=2, resume=None)  # half the rowids hold a page
    >>> next(it), list(it)
    ((9, 10), [])
    """

    def __init__(self, lo: int, hi: int, rows: int, cap: int) -> None:
        self.next, self.hi, self.rows, self.cap = lo, hi, max(1, rows), cap
        self.width = self.rows
        self._found = self._covered = 0
        self._again: deque[tuple[int, int]] = deque()

    def __iter__(self) -> Iterator[tuple[int, int]]:
        while self._again or self.next <= self.hi:
            if self._again:
                yield self._again.popleft()
                continue
            lo = self.next
            hi = min(self.hi, lo + self.width - 1)
            self.next = hi + 1
            yield lo, hi

    def unfinished(self) -> bool:
        """Whether a range read short is still to be read (after the last one was asked)."""
        return bool(self._again)

    def done(self, lo: int, hi: int, found: int, resume: int | None) -> None:
        """A range was read: ``found`` pages, stopping short at ``resume`` (or None)."""
        self._found += found
        self._covered += (resume if resume is not None else hi + 1) - lo
        density = max(self._found, 1) / max(self._covered, 1)
        self.width = max(1, min(2 * self.width, round(self.rows / density)))
        if resume is not None:
            self._again.append((resume, hi))


def _run_on_readers(ctx: RunContext, readers: Readers, job: PrepareJob,
                    only: Collection[int] | None, total: int) -> PrepareResult:
    """:func:`run` with the run's readers: each job a span of pages a worker reads itself;
    this process only stores what comes back. A full run's pages are not counted first
    (a pass over the whole table): the bar's total is the span of the rowids."""
    conn, layout = ctx.conn, ctx.layout
    select, rowid = layout.select_pages(), quote(layout.rowid)
    size = ctx.config.chunk_size
    ranges: RowidRanges | None = None
    if only is not None:
        ids = sorted(only)
        rounds: list[Iterable[Span]] = [
            [Span(ids=tuple(ids[i : i + size])) for i in range(0, len(ids), size)]
        ]
    else:
        bounds = rowid_bounds(conn, layout)
        if bounds is None:
            return PrepareResult(pages=0, workers=readers.workers, readers=1)
        lo, hi = bounds
        ranges = RowidRanges(lo, hi, size, 4 * size)
        total = total or hi - lo + 1
    bar = ctx.bar("prepare", total=total, unit="page")
    seen = 0
    asked: deque[Span] = deque()

    def jobs(spans: Iterable[Span]) -> Iterator[tuple[PrepareJob, str, str, Span]]:
        for span in spans:
            asked.append(span)
            yield job, select, rowid, span

    while True:  # a range read short resumes in a later round (when every other was asked)
        spans = rounds.pop() if ranges is None else (Span(a, b, ranges.cap) for a, b in ranges)
        for batch in readers.map(read_and_prepare, jobs(spans)):
            span = asked.popleft()
            _store(ctx, batch.rows)
            found = len(batch.rows.prepared)
            if ranges is not None:
                ranges.done(span.lo, span.hi, found, batch.resume)
            seen += found
            bar.update(found)
        if ranges is None or not ranges.unfinished():
            break
    bar.close()
    return PrepareResult(pages=seen, workers=readers.workers, readers=1)
