"""``webdedup ingest``: WARC/ARC files, JSON Lines or folders of HTML pages -> ``pages``.

Only successful (2xx) HTML responses become pages; revisit records become pages carrying the
text of the response they refer to; redirects, errors and other records are counted. HTML
bytes are decoded by :func:`.charset.decode_html` (HTTP charset, then ``<meta>``, then
detection) before extraction. Text and title are extracted with trafilatura in a process
pool; a page with no extracted text is kept with ``extraction = 'empty'``. Each input file
goes in as one transaction, and a file (or record) ingested before adds nothing. A bad record
or file is reported as a :class:`~webdedup.ingest.model.Problem` naming the file and offset;
the good records still go in, unless ``strict`` is set, which stops at the first problem
with :class:`~webdedup.errors.IngestProblems`.

Example::

    >>> from webdedup.ingest import ingest
    >>> report = ingest("crawl.sqlite", ["crawl-1.warc.gz"], workers=2)  # doctest: +SKIP
    >>> print(report.summary())  # doctest: +SKIP
    94 pages added (0 from revisit records, 2 with no extracted text) from 1 files ...
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from ..config import Columns
from ..errors import ConfigError, IngestProblems, InputError
from ..progress import Progress, progress_bar
from ..store import connect, use_wal
from ..store.connection import database_file_ids
from .charset import decode_html
from .extract_pool import Extractor, Job
from .model import MAX_RECORD_SIZE, Event, IngestReport, Problem, RawPage, Skipped
from .revisits import RevisitIndex, copy_original
from .sources import html_files, is_html_name, open_maybe_gzip, read_html_folder, read_jsonl
from .warc import read_archive
from .writer import PageWriter

__all__ = ["MAX_RECORD_SIZE", "IngestReport", "IngestWarning", "Problem", "ingest"]

BATCH = 128  # pages extracted between two reads of the input


class IngestWarning(UserWarning):
    """A bad record or file met by :func:`ingest` (when no ``on_problem`` is given)."""


def file_sha256(path: str | Path) -> str:
    """The sha256 hex digest of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def input_kind(path: Path) -> str | None:
    """``warc``, ``jsonl``, ``html`` or ``folder`` by name, else by sniffing; None if unknown."""
    name = path.name.lower()
    if path.is_dir():
        return "folder"
    for suffix, kind in ((".warc", "warc"), (".arc", "warc"), (".jsonl", "jsonl"),
                         (".ndjson", "jsonl")):
        if name.endswith((suffix, suffix + ".gz")):
            return kind
    if is_html_name(name):
        return "html"
    try:
        with open_maybe_gzip(path) as fh:
            head = fh.read(64).lstrip()
    except (OSError, EOFError):
        return None
    if head.startswith((b"WARC/", b"filedesc://")):
        return "warc"
    if head.startswith(b"{"):
        return "jsonl"
    if head.lower().startswith((b"<!doctype html", b"<html")):
        return "html"
    return None


def expand_inputs(
    inputs: Iterable[str | Path], database: set[tuple[int, int]] | frozenset[tuple[int, int]] = (
        frozenset()
    ),
) -> list[tuple[str, Path]]:
    """``(kind, path)`` per input; a folder of WARC/JSONL files expands to them.

    ``database``: ``(device, inode)`` of the database's files (its -wal and -shm too), which
    are never opened here (that would drop this process's locks on them): given as an input
    they are refused, met in a folder they are passed over.
    """
    out: list[tuple[str, Path]] = []
    for raw in inputs:
        path = Path(raw)
        if not path.exists():
            raise InputError(f"{path}: no such file or folder")
        if _file_id(path) in database:
            raise InputError(
                f"{path} is the database itself (or its -wal/-shm); give the input another path"
            )
        kind = input_kind(path)
        if kind == "folder":
            if html_files(path):
                out.append(("folder", path))
            else:
                for child in sorted(p for p in path.iterdir() if p.is_file()):
                    if _file_id(child) in database:
                        continue  # the database being written, beside its inputs
                    child_kind = input_kind(child)
                    if child_kind in ("warc", "jsonl"):
                        out.append((child_kind, child))
            continue
        out.append((kind or "unknown", path))
    return out


def _file_id(path: Path) -> tuple[int, int]:
    st = path.stat()  # a stat opens no descriptor
    return (st.st_dev, st.st_ino)


class _Run:
    """The state of one ``ingest`` call."""

    def __init__(
        self,
        writer: PageWriter,
        extractor: Extractor,
        report: IngestReport,
        bar: Progress,
        strict: bool,
        on_problem: Callable[[Problem], None],
        max_record: int,
    ) -> None:
        self.max_record = max_record
        self.writer = writer
        self.extractor = extractor
        self.report = report
        self.bar = bar
        self.strict = strict
        self.on_problem = on_problem

    def problem(self, problem: Problem) -> None:
        self.report.problems.append(problem)
        if self.strict:
            raise IngestProblems(f"{problem} (stopped by --strict; nothing of this file went in)")
        self.on_problem(problem)

    def _extract(self, batch: list[RawPage]) -> None:
        jobs: list[Job] = []
        for p in batch:  # one decoding for every input kind, before extraction
            html = decode_html(p.html, p.content_type) if p.html else ""
            p.html = html or None
            jobs.append((html, p.url, p.want_page_date))
        for page, (text, title, date) in zip(batch, self.extractor.map(jobs), strict=True):
            page.text = text
            page.title = page.title or title
            if page.want_page_date and date:
                page.datetime = date
            page.extraction = "ok" if text.strip() else "empty"
            if not self.writer.keep_html:
                page.html = None
            self.bar.update(1)

    def file(self, kind: str, path: Path, events: Iterator[Event], sha256: str | None) -> None:
        """Read, extract, resolve and write one input (one transaction)."""
        pages: list[RawPage] = []
        revisits: list[RawPage] = []
        batch: list[RawPage] = []
        seen: set[str] = set()
        skipped: Counter[str] = Counter()
        problems = 0
        for event in events:
            if isinstance(event, Problem):
                problems += 1
                self.problem(event)
            elif isinstance(event, Skipped):
                skipped[event.kind] += 1
            elif (
                event.record_key in seen
                or self.writer.has_record(event.record_key)
                or self.writer.has_legacy_record(event)
            ):
                skipped["already_ingested"] += 1
            else:
                seen.add(event.record_key)
                if event.kind == "revisit":
                    revisits.append(event)
                    continue
                pages.append(event)
                if event.text is None:
                    batch.append(event)
                    if len(batch) >= BATCH:
                        self._extract(batch)
                        batch = []
                else:
                    if not self.writer.keep_html:
                        event.html = None
                    self.bar.update(1)
        self._extract(batch)
        index = RevisitIndex()
        for page in pages:
            index.add(page)
        resolved = 0
        for rev in revisits:
            original = index.find(rev) or self.writer.find_original(rev)
            if original is None:
                skipped["revisit_unresolved"] += 1
                continue
            copy_original(rev, original)
            pages.append(rev)
            resolved += 1
            self.bar.update(1)
        written = self.writer.write(
            pages,
            sha256=sha256,
            path=str(path),
            kind=kind,
            skipped=sum(skipped.values()),
            problems=problems,
        )
        self.report.pages += written
        self.report.revisits += resolved
        self.report.empty_extractions += sum(p.extraction == "empty" for p in pages)
        self.report.skipped.update(skipped)


def ingest(
    db: str | Path | sqlite3.Connection,
    inputs: Iterable[str | Path],
    *,
    columns: Columns = Columns(),  # noqa: B008 - frozen dataclass, safe as a default
    keep_html: bool = False,
    strict: bool = False,
    workers: int = 0,
    progress: bool = False,
    busy_timeout: float = 5.0,
    jsonl_fields: Mapping[str, str] | None = None,
    on_problem: Callable[[Problem], None] | None = None,
    max_record_size: int = MAX_RECORD_SIZE,
) -> IngestReport:
    """Add the pages of WARC/ARC files, JSONL files and HTML folders to ``db``'s pages table.

    ``db`` is created when missing. ``columns`` maps the page fields to an existing table's
    names; ``keep_html`` also stores the raw HTML; ``workers`` extraction processes (0 = all
    cores); ``jsonl_fields`` renames JSONL fields (``{"url": "link", "html": "raw"}``).
    Each bad record or file is passed to ``on_problem`` (default: an :class:`IngestWarning`)
    and listed in ``report.problems``; with ``strict`` the first one raises
    :class:`~webdedup.errors.IngestProblems` instead (files before it stay ingested).
    A record (WARC record headers or HTML body, JSONL line, HTML file) that decompresses to
    more than ``max_record_size`` bytes is such a problem, and is never held in memory whole.
    An extraction worker that cannot start raises :class:`~webdedup.errors.WorkerFailed`.

    Example::

        >>> r = ingest(":memory:", ["fixtures/sample-crawl.warc.gz"], workers=1)
        >>> (r.pages, r.revisits, r.skipped["redirect"])
        (109, 28, 5)
    """
    t0 = time.perf_counter()
    if max_record_size < 1:
        raise ConfigError(f"max_record_size must be a positive number of bytes, got "
                          f"{max_record_size}")
    if on_problem is None:
        def on_problem(problem: Problem) -> None:
            warnings.warn(str(problem), IngestWarning, stacklevel=4)

    own = not isinstance(db, sqlite3.Connection)
    # a database this call creates is removed again if it fails before committing anything
    created = own and str(db) != ":memory:" and not Path(str(db)).exists()
    conn = connect(db, must_exist=False, busy_timeout=busy_timeout)
    report = IngestReport()
    writer: PageWriter | None = None
    try:
        # the database's own files are never read as inputs (nor opened outside SQLite)
        files = expand_inputs(inputs, database_file_ids(conn))
        if own:  # ingest always writes; WAL lets a run read while pages are added
            use_wal(conn, busy_timeout)
        writer = PageWriter(conn, columns, keep_html)
        writer.prepare()
        bar = progress_bar("ingest", unit="page", enabled=progress)
        with Extractor(workers) as extractor, bar:
            run = _Run(writer, extractor, report, bar, strict, on_problem, max_record_size)
            for kind, path in files:
                _one_input(run, kind, path, jsonl_fields)
        if created and report.problems and not report.pages and not report.revisits:
            # a failed ingest that put nothing in leaves no database file behind
            conn.close()
            _remove_database(Path(str(db)))
            report.database_removed = True
    except BaseException:
        if created and (writer is None or not writer.committed):
            conn.close()
            _remove_database(Path(str(db)))
        raise
    finally:
        if own:
            conn.close()
    report.seconds = time.perf_counter() - t0
    return report


def _remove_database(path: Path) -> None:
    """Remove a database file and its -wal/-shm/-journal companions."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _one_input(
    run: _Run, kind: str, path: Path, jsonl_fields: Mapping[str, str] | None
) -> None:
    label = str(path)
    if kind == "folder":
        files = html_files(path)
        hashes = {str(p): file_sha256(p) for p in files}
        run.report.files += len(files)
        run.file(kind, path, read_html_folder(label, hashes, max_record=run.max_record), None)
        return
    sha = file_sha256(path)
    # an HTML file's copy under another name is another page: its records decide, not its hash
    if kind != "html" and run.writer.file_done(sha):
        run.report.files_already_ingested += 1
        return
    run.report.files += 1
    if kind == "warc":
        events: Iterator[Event] = read_archive(label, sha, max_record=run.max_record)
    elif kind == "jsonl":
        events = read_jsonl(label, sha, fields=jsonl_fields, max_record=run.max_record)
    elif kind == "html":
        events = read_html_folder(str(path.parent), {label: sha}, max_record=run.max_record)
    else:
        events = iter([Problem(label, 0, "not a WARC, ARC, JSONL or HTML file")])
    run.file(kind, path, events, sha)
