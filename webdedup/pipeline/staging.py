"""Texts read once in id order by the run's readers, handed back in the order they are used.

Own content reads its hosts' texts a host at a time, and verification its candidate pairs'
texts a connected component at a time (a page's pairs in few jobs): neither is any order of
the ids. At ten million pages the table is larger than the page cache, and a text looked up
by id is one random 4 KiB read (about 1,900 a second on the disk of the benchmarks, which
reads 1.5 GB a second in sequence): those look-ups took 56 of the 98 minutes there. So the
order of use is cut into *buckets* of consecutive texts of about :data:`BUCKET_BYTES`; the
readers read the pages the buckets need in id order, a slice of the ids each
(:func:`stage_slice`), and write each text into a scratch file of their slice, grouped by
bucket; then the buckets are read back in turn, each from one stretch of every slice's file
(:func:`staged`).

What is written for a page: ``"sketch"``, its normalized text, what verification compares
(:func:`~webdedup.store.pages.page_sketch_utf8`); ``"text"``, its text (or the main text of
its HTML: :func:`~webdedup.store.pages.page_text`), what own content counts lines of. The
scratch files live in a folder of ``tempfile``'s directory (``TMPDIR``) and are deleted at
the end: they hold those texts once more (a page in two buckets twice). A run that could not
delete its folder (killed, or a reader still writing when the run stopped on an error) leaves
it to the next run's :func:`sweep`. A full ``TMPDIR`` stops the run with
:class:`~webdedup.errors.DiskFull` naming it. Memory: a slice's texts in a reader; own
content's bucket of texts in the main process. Verification's texts never reach the main
process: its jobs carry where they are (:class:`Located`), and the workers read them from
the scratch files (at 20,000 pages the main process sent them 75 MB through the pool's
pipes, and a worker spent about 4 ms a MB receiving them).
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import struct
import tempfile
from collections.abc import Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

import numpy as np

try:
    import fcntl
except ImportError:  # (Windows: no flock; scratch folders left behind stay)
    fcntl = None  # type: ignore[assignment]

from ..errors import DiskFull
from ..store.layout import Layout
from ..store.pages import LOOKUP_CHUNK, PageInput, fetch_pages, page_sketch_utf8, page_text
from ..store.snapshot import read_through, reader
from .readers import Readers

#: The texts of one bucket, about, in bytes (what the main process holds at once).
BUCKET_BYTES = 32 << 20
#: The texts a reader reads and writes in one job, about, in bytes (held at once): a slice
#: of the pages wanted, its pages' number from a text's sampled bytes.
SLICE_BYTES = 64 << 20
#: Slices a reader gets, at least, when the pages wanted are few enough (:func:`slice_pages`).
SLICES_A_WORKER = 4
#: Pages a slice has, at least (a reader's job has its own query and file to open).
MIN_SLICE_PAGES = 256
#: Pairs counted together when the buckets of pairs are cut (:func:`cut_pair_buckets`).
PAIR_CHUNK = 1_000
#: The pairs' pages (a page once a pair) whose wanted entries are sorted at once
#: (:func:`pair_slices`).
RANGE_PAGES = 2_000_000
#: Pages whose texts are read to estimate a text's bytes before the buckets are cut.
SAMPLE_PAGES = 64
#: The ending of a slice file's index (:func:`stage_slice`): each record's page id, the
#: offset of its text in the slice file and its length (-1: no text), three little-endian
#: int64 a record, bucket after bucket.
INDEX = ".index"
#: A record's head: the page id and its text's length in bytes (:data:`_NONE`: no text).
_HEAD = struct.Struct("<qI")
_NONE = 0xFFFFFFFF

Kind = Literal["sketch", "text"]

#: The scratch folders' names in ``TMPDIR`` (``webdedup-stage-`` and a random part).
PREFIX = "webdedup-stage-"
#: The file in a scratch folder its run holds an exclusive ``flock`` on while it lives (the
#: kernel lets go of it when the process ends, however it ends).
OWNER = ".owner"


@dataclass(frozen=True)
class Buckets:
    """Buckets of consecutive positions: bucket ``k`` is ``starts[k]:starts[k + 1]``."""

    starts: np.ndarray  # int64, from 0 to the positions' number

    def __len__(self) -> int:
        return len(self.starts) - 1

    def span(self, k: int) -> tuple[int, int]:
        """Bucket ``k``'s positions, ``start, end`` (end excluded)."""
        return int(self.starts[k]), int(self.starts[k + 1])


def cut_buckets(positions: int, pages_per_position: float, text_bytes: float,
                bucket_bytes: int | None = None) -> Buckets:
    """Buckets of as many positions as bring about ``bucket_bytes`` (:data:`BUCKET_BYTES`)
    of texts, from the distinct pages a position brings and a text's bytes.

    >>> cut_buckets(10, 1.5, 100.0, bucket_bytes=600).starts.tolist()
    [0, 4, 8, 10]
    >>> cut_buckets(0, 1.5, 100.0).starts.tolist()
    [0]
    """
    size = BUCKET_BYTES if bucket_bytes is None else bucket_bytes
    per = max(1, int(size / max(pages_per_position * text_bytes, 1.0)))
    return Buckets(np.append(np.arange(0, positions, per, dtype=np.int64), np.int64(positions)))


@dataclass(frozen=True)
class Wanted:
    """Which bucket wants which page: ``ids[i]`` for bucket ``which[i]``, sorted by id, then
    bucket (the order the readers read them in); a page once a bucket. Two arrays, not one
    key ``id * buckets + k``: a rowid may be any 64-bit integer."""

    ids: np.ndarray  # int64
    which: np.ndarray  # int32

    def __len__(self) -> int:
        return len(self.ids)

    def part(self, start: int, end: int) -> Wanted:
        """The wanted pages ``start:end`` of this order (a reader's slice)."""
        return Wanted(self.ids[start:end], self.which[start:end])


def cut_pair_buckets(first: np.ndarray, second: np.ndarray, text_bytes: float,
                     bucket_bytes: int | None = None, chunk: int | None = None) -> Buckets:
    """Buckets of consecutive pairs ``first[i], second[i]`` whose distinct pages bring about
    ``bucket_bytes`` (:data:`BUCKET_BYTES`) of texts of ``text_bytes``, cut at multiples of
    ``chunk`` (:data:`PAIR_CHUNK`) pairs, each chunk's distinct pages counted (a page in
    two chunks of a bucket twice: the buckets err on the small side): the pages a pair brings
    vary along the order (at a million pages, from 0.13 in the first large components to
    1.8 in the small ones at the end), and buckets cut from the first pairs' rate held up
    to 13 times the texts of the first (a bucket's texts are held at once).

    >>> cut_pair_buckets(np.array([1, 1, 1, 5, 7]), np.array([2, 3, 4, 6, 8]), 100.0,
    ...                  bucket_bytes=400, chunk=1).starts.tolist()
    [0, 2, 4, 5]
    """
    size = BUCKET_BYTES if bucket_bytes is None else bucket_bytes
    step = PAIR_CHUNK if chunk is None else chunk
    pairs = len(first)
    starts = [0]
    held = 0.0
    for lo in range(0, pairs, step):
        hi = min(lo + step, pairs)
        cost = len(np.unique(np.concatenate([first[lo:hi], second[lo:hi]]))) * text_bytes
        if held and held + cost > size:
            starts.append(lo)
            held = 0.0
        held += cost
    if pairs:
        starts.append(pairs)
    return Buckets(np.array(starts, np.int64))


def wanted_pages(pages: Iterable[np.ndarray]) -> Wanted:
    """Each bucket's distinct pages (``pages``: an array of ids a bucket, any order, repeats
    allowed), sorted by id, then bucket.

    >>> w = wanted_pages([np.array([5, 2, 2]), np.array([2**63 - 1, 5])])
    >>> w.ids.tolist(), w.which.tolist()
    ([2, 5, 5, 9223372036854775807], [0, 0, 1, 1])
    """
    ids_of, which_of = [], []
    for k, ids in enumerate(pages):
        distinct = np.unique(ids).astype(np.int64)
        ids_of.append(distinct)
        which_of.append(np.full(len(distinct), k, np.int32))
    if not ids_of:
        return Wanted(np.empty(0, np.int64), np.empty(0, np.int32))
    ids, which = np.concatenate(ids_of), np.concatenate(which_of)
    del ids_of, which_of
    order = np.lexsort((which, ids))
    return Wanted(ids[order], which[order])


def _encoded(page: PageInput, kind: Kind) -> bytes | None:
    if kind == "sketch":
        return page_sketch_utf8(page)
    text = page_text(page)
    return None if text is None else text.encode("utf-8", "surrogatepass")


def _cells(page: PageInput) -> int:
    """The bytes of the cells ``page`` was read from (its URL, text and HTML), about."""
    return sum(len(v) for v in (page.url, page.text, page.html) if v)


def stage_slice(layout: Layout, wanted: Wanted, buckets: int, path: str,
                kind: Kind) -> np.ndarray:
    """A reader's job: the pages of ``wanted`` (:func:`wanted_pages`'s, a slice of them) read
    in id order in the run's snapshot, their texts (``kind``) written to ``path`` grouped by
    bucket, and where each is to ``path`` + :data:`INDEX` (:class:`Located`'s rows); returns
    each bucket's (offset, length) in the file and (first row, rows) in the index as a
    ``(buckets, 4)`` array. A page not in the table (gone before the run's snapshot) is
    left out, as a look-up by id would leave it out."""
    ids, which = wanted.ids, wanted.which
    conn = reader()
    parts: list[list[bytes]] = [[] for _ in range(buckets)]
    # each bucket's records: page id, where its text starts in the bucket, its length
    where: list[list[tuple[int, int, int]]] = [[] for _ in range(buckets)]
    sizes = [0] * buckets
    distinct = np.unique(ids)
    for start in range(0, len(distinct), LOOKUP_CHUNK):
        chunk = distinct[start : start + LOOKUP_CHUNK].tolist()
        pages = fetch_pages(conn, layout, chunk)
        lo = np.searchsorted(ids, chunk[0])
        hi = np.searchsorted(ids, chunk[-1], side="right")
        for pid, k in zip(ids[lo:hi].tolist(), which[lo:hi].tolist(), strict=True):
            page = pages.get(pid)
            if page is not None:
                data = _encoded(page, kind)
                head = _HEAD.pack(pid, _NONE if data is None else len(data))
                parts[k].append(head if data is None else head + data)
                where[k].append((pid, sizes[k] + _HEAD.size, -1 if data is None else len(data)))
                sizes[k] += len(parts[k][-1])
        # the cells read, as the rows hold them (a sketch's text is cut shorter), with no
        # statement reading now: the map may be dropped
        read_through(sum(_cells(page) for page in pages.values()))
    spans = np.zeros((buckets, 4), np.int64)
    try:
        with open(path, "wb") as out, open(path + INDEX, "wb") as index:
            at = row = 0
            for k, records in enumerate(parts):
                blob = b"".join(records)
                out.write(blob)
                rows = np.array(where[k], np.int64).reshape(-1, 3)
                rows[:, 1] += at
                index.write(rows.astype("<i8").tobytes())
                spans[k] = at, len(blob), row, len(rows)
                at += len(blob)
                row += len(rows)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        raise DiskFull(
            f"no space left in {os.path.dirname(os.path.dirname(path))} (TMPDIR) for the texts "
            "the run's readers stage there in id order (about a third of the pages table's "
            "size at its peak on a large crawl); set TMPDIR to a folder with room, or free "
            "some, then run again"
        ) from exc
    return spans


def _records(blob: bytes) -> Iterator[tuple[int, bytes | None]]:
    at, end = 0, len(blob)
    while at < end:
        pid, n = _HEAD.unpack_from(blob, at)
        at += _HEAD.size
        if n == _NONE:
            yield pid, None
        else:
            yield pid, blob[at : at + n]
            at += n


def sample_text_bytes(conn: sqlite3.Connection, layout: Layout, ids: np.ndarray,
                      kind: Kind) -> float:
    """The mean bytes of the texts (``kind``) of :data:`SAMPLE_PAGES` pages drawn from
    ``ids`` (read by id in ``conn``: a few random reads), at least 1."""
    if not len(ids):
        return 1.0
    rng = np.random.default_rng(len(ids))
    drawn = np.unique(rng.choice(ids, size=min(SAMPLE_PAGES, len(ids)), replace=False))
    pages = fetch_pages(conn, layout, drawn.tolist())
    sizes = [len(_encoded(p, kind) or b"") for p in pages.values()]
    return max(float(np.mean(sizes)) if sizes else 1.0, 1.0)


def slice_pages(text_bytes: float, pages: int | None = None, workers: int = 1) -> int:
    """The pages of a reader's slice: about :data:`SLICE_BYTES` of texts of ``text_bytes``,
    and, when about ``pages`` are wanted in all, few enough for :data:`SLICES_A_WORKER`
    slices to each of the ``workers`` (not fewer than :data:`MIN_SLICE_PAGES`): every slice
    is read before the first bucket is used, so one large slice and one small left a reader
    idle for most of the reading (20,000 pages' verification: slices of 8,071 and 328 pages).

    >>> slice_pages(float(SLICE_BYTES) / 4)
    4
    >>> slice_pages(1000.0, pages=8_000, workers=2), slice_pages(1000.0, pages=800, workers=2)
    (1000, 256)
    """
    step = max(1, int(SLICE_BYTES / max(text_bytes, 1.0)))
    if pages is not None:
        spread = -(-pages // (SLICES_A_WORKER * max(workers, 1)))
        step = min(step, max(spread, MIN_SLICE_PAGES))
    return step


def staged(
    readers: Readers, layout: Layout, slices: Iterable[Wanted], buckets: int, kind: Kind
) -> Generator[dict[int, bytes | None], None, None]:
    """For each of the ``buckets`` in turn, the texts (``kind``, UTF-8; None: the page has
    none) of its pages, read by the ``readers`` in id order (a page not in the table is left
    out). ``slices``: the pages wanted (:class:`Wanted`, in id order), a reader's job each
    (:func:`slice_pages`), taken as the readers need them."""
    sweep()
    where, owner = _scratch()
    try:
        paths: list[str] = []

        def jobs() -> Iterator[tuple[Layout, Wanted, int, str, Kind]]:
            for part in slices:
                paths.append(os.path.join(where, f"slice-{len(paths)}"))
                yield layout, part, buckets, paths[-1], kind

        spans = list(readers.map(stage_slice, jobs()))  # (slices used up: let go of)
        for k in range(buckets):
            texts: dict[int, bytes | None] = {}
            for path, span in zip(paths, spans, strict=True):
                offset, length = (int(x) for x in span[k, :2])
                if length:  # (a file opened a read: a slice a job, however many there are)
                    fd = os.open(path, os.O_RDONLY)
                    try:
                        texts.update(_records(os.pread(fd, length, offset)))
                    finally:
                        os.close(fd)
            yield texts
    finally:
        _remove(where, owner)


def _scratch() -> tuple[str, int]:
    """A new scratch folder in ``TMPDIR`` and the descriptor of its :data:`OWNER` file, locked
    (made under another name and renamed once locked: a :func:`sweep` never finds it free)."""
    where = tempfile.mkdtemp(prefix=PREFIX)
    making = os.path.join(where, OWNER + ".new")
    owner = os.open(making, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    if fcntl is not None:
        try:
            fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # no flock on this file system: a sweep there cannot lock it either
            pass
    os.rename(making, os.path.join(where, OWNER))
    return where, owner


def _remove(where: str, owner: int) -> None:
    """Delete a scratch folder, its :data:`OWNER` file last; if a reader wrote a file into
    it meanwhile (a run stopping on an error does not wait for them), the folder stays, its
    owner file with it, for the next run's :func:`sweep`."""
    try:
        for name in os.listdir(where):
            if name != OWNER:
                _unlink(os.path.join(where, name))
        _unlink(os.path.join(where, OWNER))
        try:
            os.rmdir(where)
        except OSError:  # written to after the listing: leave it whole to the next sweep
            with open(os.path.join(where, OWNER), "ab"):
                pass
    except OSError:
        pass
    finally:
        os.close(owner)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except IsADirectoryError:
        shutil.rmtree(path, ignore_errors=True)
    except FileNotFoundError:
        pass


def sweep(folder: str | None = None) -> list[str]:
    """Delete the scratch folders in ``folder`` (``TMPDIR``) left by runs that have ended:
    those whose :data:`OWNER` file no process holds locked (its run ended without deleting
    them: killed, or stopped while a reader wrote). A folder without one (being made, or an
    older webdedup's) is left alone, and so is every folder where ``flock`` is missing.
    Returns the folders deleted."""
    if fcntl is None:
        return []
    base = folder if folder is not None else tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(base) if n.startswith(PREFIX)]
    except OSError:
        return []
    deleted = []
    for name in names:
        where = os.path.join(base, name)
        try:
            owner = os.open(os.path.join(where, OWNER), os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its run is alive
            os.close(owner)
            continue
        _remove(where, owner)
        if not os.path.exists(where):
            deleted.append(where)
    return deleted


def pair_slices(first: np.ndarray, second: np.ndarray, spans: Sequence[tuple[int, int]],
                step: int, range_pages: int | None = None) -> Iterator[Wanted]:
    """The pages the buckets of pairs want (bucket ``k``: the pairs ``first[i], second[i]``
    for ``i`` in ``spans[k]``), in id order, in slices of ``step``. Made a range of ids at a
    time, each holding about ``range_pages`` (:data:`RANGE_PAGES`) of the pairs' pages: all
    at once, sorted, they take about 40 bytes an entry (some 500 MB for the 13 million ends
    of ten million pages' 6.5 million pairs); a range costs a pass over the pairs.

    >>> [w.ids.tolist() for w in pair_slices(np.array([1, 9, 1]), np.array([5, 12, 9]),
    ...                                      [(0, 2), (2, 3)], 2, range_pages=2)]
    [[1, 1], [5, 9], [9, 12]]
    """
    pairs = len(first)
    if not pairs:
        return
    per = RANGE_PAGES if range_pages is None else range_pages
    low = int(min(first.min(), second.min()))
    high = int(max(first.max(), second.max()))
    ranges = max(1, -(-2 * pairs // per))
    width = -(-(high - low + 1) // ranges)  # (Python integers: a rowid may be any int64)
    held: list[Wanted] = []
    count = 0
    for r in range(ranges):
        lo, hi = low + r * width, min(low + (r + 1) * width - 1, high)
        if lo > hi:
            break
        wanted = wanted_pages(_within(first, second, start, end, lo, hi) for start, end in spans)
        held.append(wanted)
        count += len(wanted)
        while count >= step:
            joined = Wanted(np.concatenate([w.ids for w in held]),
                            np.concatenate([w.which for w in held]))
            yield joined.part(0, step)
            held, count = [joined.part(step, len(joined))], count - step
    if count:
        yield Wanted(np.concatenate([w.ids for w in held]),
                     np.concatenate([w.which for w in held]))


def _within(first: np.ndarray, second: np.ndarray, start: int, end: int, lo: int,
            hi: int) -> np.ndarray:
    """The ids of the pairs ``start:end`` between ``lo`` and ``hi`` (both included)."""
    ids = np.concatenate([first[start:end], second[start:end]])
    return ids[(ids >= lo) & (ids <= hi)]


@dataclass(frozen=True)
class Located:
    """Where a bucket's staged texts are: page ``ids[i]``'s text is ``lengths[i]`` bytes at
    ``offsets[i]`` of the scratch file ``paths[files[i]]`` (-1: the page has none), by id.
    What a verification job carries instead of the texts: the worker reads them there
    (:meth:`read`), and they never pass through the main process."""

    paths: tuple[str, ...]
    ids: np.ndarray  # int64, sorted, distinct
    files: np.ndarray  # int32
    offsets: np.ndarray  # int64
    lengths: np.ndarray  # int64

    def take(self, ids: Iterable[int]) -> Located:
        """The places of those of ``ids`` that were staged."""
        wanted = np.unique(np.fromiter(ids, np.int64))
        at = np.minimum(np.searchsorted(self.ids, wanted), max(len(self.ids) - 1, 0))
        keep = at[self.ids[at] == wanted] if len(self.ids) else at[:0]
        return Located(self.paths, self.ids[keep], self.files[keep], self.offsets[keep],
                       self.lengths[keep])

    def size(self) -> int:
        """The bytes of the texts."""
        return int(self.lengths[self.lengths > 0].sum())

    def read(self) -> dict[int, bytes | None]:
        """The texts, read from the scratch files (each file opened once)."""
        out: dict[int, bytes | None] = {}
        fds: dict[int, int] = {}
        try:
            for pid, f, offset, length in zip(self.ids.tolist(), self.files.tolist(),
                                              self.offsets.tolist(), self.lengths.tolist(),
                                              strict=True):
                if length < 0:
                    out[pid] = None
                    continue
                if f not in fds:
                    fds[f] = os.open(self.paths[f], os.O_RDONLY)
                data = os.pread(fds[f], length, offset)
                if len(data) != length:
                    raise ValueError(f"the staged text of page {pid} is cut short in "
                                     f"{self.paths[f]}")
                out[pid] = data
        finally:
            for fd in fds.values():
                os.close(fd)
        return out


@contextmanager
def pair_buckets(
    readers: Readers, conn: sqlite3.Connection, layout: Layout, first: np.ndarray,
    second: np.ndarray,
) -> Iterator[Iterator[tuple[int, int, Located]]]:
    """``(start, end, located)`` for each bucket of the pairs ``first[i], second[i]`` (in the
    order they are verified): its pairs ``start:end`` and where its pages' normalized texts
    are (``conn``: the run's, in the readers' snapshot, for a sample of the texts' sizes).
    The scratch files stay until the context ends: the jobs that read them must be done by
    then."""
    sweep()
    where, owner = _scratch()
    try:
        yield _pair_buckets(readers, conn, layout, first, second, where)
    finally:
        _remove(where, owner)


def _pair_buckets(
    readers: Readers, conn: sqlite3.Connection, layout: Layout, first: np.ndarray,
    second: np.ndarray, where: str,
) -> Iterator[tuple[int, int, Located]]:
    pairs = len(first)
    if not pairs:
        return
    text_bytes = sample_text_bytes(conn, layout, first, "sketch")
    buckets = cut_pair_buckets(first, second, text_bytes)
    spans = [buckets.span(k) for k in range(len(buckets))]
    # (2 pages a pair: more than the pages wanted, which are not counted before they are cut)
    step = slice_pages(text_bytes, pages=2 * pairs, workers=readers.workers)
    paths: list[str] = []

    def jobs() -> Iterator[tuple[Layout, Wanted, int, str, Kind]]:
        for part in pair_slices(first, second, spans, step):
            paths.append(os.path.join(where, f"slice-{len(paths)}"))
            yield layout, part, len(spans), paths[-1], "sketch"

    rows = list(readers.map(stage_slice, jobs()))  # (slices used up: let go of)
    for k, (start, end) in enumerate(spans):
        parts = []
        for f, (path, span) in enumerate(zip(paths, rows, strict=True)):
            first_row, count = int(span[k, 2]), int(span[k, 3])
            if count:
                fd = os.open(path + INDEX, os.O_RDONLY)
                try:
                    raw = os.pread(fd, count * 24, first_row * 24)
                finally:
                    os.close(fd)
                table = np.frombuffer(raw, "<i8").reshape(count, 3)
                parts.append((table, f))
        if parts:
            table = np.concatenate([t for t, _ in parts])
            files = np.concatenate([np.full(len(t), f, np.int32) for t, f in parts])
        else:
            table, files = np.empty((0, 3), np.int64), np.empty(0, np.int32)
        order = np.argsort(table[:, 0], kind="stable")
        yield start, end, Located(tuple(paths), table[order, 0].astype(np.int64), files[order],
                                  table[order, 1].astype(np.int64),
                                  table[order, 2].astype(np.int64))


class InOrder:
    """Texts staged (:func:`staged`, ``"text"``) and taken in an order of their own by
    :meth:`take`, a bucket at a time in memory: the ``count`` pages of that order come in
    ``by_id``, chunks of ``(ids, positions)`` (their places in the order) sorted by id, and
    ``text_bytes`` is a text's size, about. Nothing here grows with ``count``: at ten
    million pages an array of the ids and their places, sorted in this process, took about
    400 MB at once."""

    def __init__(self, readers: Readers, layout: Layout, count: int, text_bytes: float,
                 by_id: Iterable[tuple[np.ndarray, np.ndarray]]) -> None:
        self._per = max(1, int(cut_buckets(count, 1.0, text_bytes).span(0)[1])) if count else 1
        buckets = -(-count // self._per)
        step = slice_pages(text_bytes, count, readers.workers)
        self._buckets = staged(readers, layout, self._slices(by_id, step), buckets, "text")
        self._end = 0  # the position after the bucket in memory
        self._texts: dict[int, bytes | None] = {}
        self._at = 0  # the position of the next id taken

    def _slices(self, by_id: Iterable[tuple[np.ndarray, np.ndarray]],
                step: int) -> Iterator[Wanted]:
        ids: list[np.ndarray] = []
        places: list[np.ndarray] = []
        held = 0
        for chunk_ids, chunk_places in by_id:
            ids.append(chunk_ids)
            places.append(chunk_places)
            held += len(chunk_ids)
            while held >= step:
                all_ids, all_places = np.concatenate(ids), np.concatenate(places)
                yield Wanted(all_ids[:step], (all_places[:step] // self._per).astype(np.int32))
                ids, places = [all_ids[step:]], [all_places[step:]]
                held -= step
        if held:
            all_ids, all_places = np.concatenate(ids), np.concatenate(places)
            yield Wanted(all_ids, (all_places // self._per).astype(np.int32))

    def take(self, ids: Sequence[int]) -> list[str | None]:
        """The texts of the next ``ids`` of the order (None: the page has none, or it is
        not in the table)."""
        out = []
        for pid in ids:
            while self._at >= self._end:  # the next bucket (an empty one passed over)
                if self._texts:  # (a page of a later bucket was taken before its turn)
                    raise ValueError(
                        f"{len(self._texts)} staged texts not taken in their order, e.g. of "
                        f"page {next(iter(self._texts))}"
                    )
                self._texts = next(self._buckets)
                self._end += self._per
            self._at += 1
            data = self._texts.pop(pid, None)
            out.append(None if data is None else data.decode("utf-8", "surrogatepass"))
        return out

    def close(self) -> None:
        """Let go of the staged texts (their scratch files are deleted)."""
        self._buckets.close()
