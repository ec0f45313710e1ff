"""Read WARC and ARC files (gzipped or not) into ingest events, surviving bad records.

Records are read with warcio (see ``benchmarks/speed/bench_ingest.py`` for why warcio and not
fastwarc). Each record becomes one event: a :class:`~webdedup.ingest.model.RawPage` for a
successful HTML response or a revisit of one, a :class:`~webdedup.ingest.model.Skipped` count
for everything else, or a :class:`~webdedup.ingest.model.Problem` for a bad record (truncated,
wrong digest, unreadable). After a record that can't be parsed the reader looks for the next
record start (the next gzip member, or the next ``WARC/`` line) and carries on; a gzip file
that is one single stream instead of one member per record is read as one stream.

Example::

    >>> from collections import Counter
    >>> events = read_archive("fixtures/sample-crawl.warc.gz", "ab12")
    >>> Counter(type(e).__name__ for e in events)
    Counter({'RawPage': 109, 'Skipped': 38})
"""

from __future__ import annotations

import contextlib
import io
import zlib
from collections.abc import Iterator
from typing import IO, Any

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import DecompressingBufferedReader
from warcio.exceptions import ArchiveLoadFailed

from .model import MAX_RECORD_SIZE, Event, Problem, RawPage, Skipped, too_large

HTML_TYPES = ("text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml")
GZIP_MAGIC = b"\x1f\x8b\x08"
_CHUNK = 1 << 16


def media_type(content_type: str | None) -> str:
    """The lower-case media type of a Content-Type header (``""`` when absent)."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def looks_like_html(body: bytes) -> bool:
    """True when a body without a Content-Type starts like an HTML document."""
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<!--"))


class RecordTooLarge(Exception):
    """A record's headers or HTML body go past the size limit (a gzip bomb, or damage)."""


class _CappedReader(DecompressingBufferedReader):
    """warcio's record reader, refusing more than ``limit`` bytes of lines for one record.

    warcio reads headers line by line into memory: a gzip member that decompresses to
    gigabytes without a blank line (a gzip bomb) would be held whole. Bodies are read with
    ``read`` in bounded pieces. The reader of the archive sets ``line_bytes`` back to 0 after
    each record.
    """

    def __init__(self, stream: Any, limit: int) -> None:
        super().__init__(stream)
        self.limit = limit
        self.line_bytes = 0

    def readline(self, length: int | None = None) -> bytes:
        room = self.limit + 1 - self.line_bytes
        line: bytes = super().readline(min(length, room) if length else room)
        self.line_bytes += len(line)
        if self.line_bytes > self.limit:
            raise RecordTooLarge(too_large("the record's headers", self.limit))
        return line



def _capped_iterator(fh: IO[bytes], limit: int) -> ArchiveIterator:
    """warcio's ArchiveIterator over ``fh`` (at its current place) with a :class:`_CappedReader`."""
    it = ArchiveIterator(fh, arc2warc=True, check_digests=True)
    it.reader = _CappedReader(it.fh, limit)
    return it


def _status(record: Any) -> int | None:
    headers = record.http_headers
    if headers is None:
        return None
    code = headers.get_statuscode()
    try:
        return int(code)
    except (TypeError, ValueError):
        return None


def _drain(record: Any) -> None:
    """Read the rest of a record's block (so digests and lengths can be checked)."""
    while record.raw_stream.read(_CHUNK):
        pass


def _record_problem(record: Any) -> str | None:
    """What is wrong with a fully read record, or None."""
    remaining = getattr(record.raw_stream, "limit", 0) or 0
    if remaining > 0:
        return (
            f"record truncated: {remaining:,} of its {record.length or 0:,} bytes "
            "(Content-Length) are missing"
        )
    checker = getattr(record, "digest_checker", None)
    if checker is not None and checker.passed is False:
        # Only a wrong *block* digest means damaged bytes: many crawlers compute the payload
        # digest over the decoded body, so a payload-only mismatch is no sign of damage.
        block = [str(p) for p in checker.problems if "block" in str(p)]
        if block:
            return "digest mismatch (" + "; ".join(block) + ")"
    return None


class _ArchiveReader:
    """One pass over one archive file; see :func:`read_archive`."""

    def __init__(
        self, fh: IO[bytes], name: str, sha256: str, keep_meta: bool, max_record: int
    ) -> None:
        self.fh = fh
        self.name = name
        self.sha256 = sha256
        self.max_record = max_record
        self.is_gzip = fh.read(3) == GZIP_MAGIC
        fh.seek(0)
        self.is_arc = self._peek_text().startswith(b"filedesc://")
        self.want_page_date = keep_meta

    def _peek_text(self) -> bytes:
        self.fh.seek(0)
        if self.is_gzip:
            try:
                head = zlib.decompressobj(31).decompress(self.fh.read(4096), 4096)
            except zlib.error:
                head = b""
        else:
            head = self.fh.read(64)
        self.fh.seek(0)
        return head.lstrip()

    # -- one record ---------------------------------------------------------------------
    def _key(self, record: Any, offset: int, stream_mode: bool) -> str:
        rid = record.rec_headers.get_header("WARC-Record-ID")
        if rid and not self.is_arc:
            return rid
        return f"{self.sha256}:{'u' if stream_mode else ''}{offset}"

    def convert(self, record: Any) -> tuple[Event | None, str | None]:
        """The event of one record (offset filled in later) and a problem found while reading."""
        rtype = record.rec_type
        uri = record.rec_headers.get_header("WARC-Target-URI") or ""
        if rtype not in ("response", "revisit") or not uri.lower().startswith(("http:", "https:")):
            _drain(record)
            return Skipped("other_record"), _record_problem(record)
        status = _status(record)
        headers = record.http_headers
        ctype = headers.get_header("Content-Type") if headers is not None else None
        if rtype == "response" and status is None:
            _drain(record)
            return None, "response record without a valid HTTP status line (bad length or header?)"
        kind = None
        if status is not None:
            if 300 <= status < 400 and status != 304:
                kind = "redirect"
            elif status >= 400 or status < 200:
                kind = "error"
        mtype = media_type(ctype)
        if kind is None and mtype and mtype not in HTML_TYPES:
            kind = "not_html"
        if kind is not None:
            _drain(record)
            return Skipped(kind), _record_problem(record)
        warc_date = record.rec_headers.get_header("WARC-Date")
        page = RawPage(
            url=uri,
            record_key="",
            source_file=self.name,
            datetime=warc_date,
            crawled=warc_date,
            content_type=ctype,
            status=status,
            warc_record_id=None if self.is_arc else record.rec_headers.get_header("WARC-Record-ID"),
            payload_digest=record.rec_headers.get_header("WARC-Payload-Digest"),
            want_page_date=self.want_page_date,
        )
        if rtype == "revisit":
            _drain(record)
            page.kind = "revisit"
            page.refers_to = record.rec_headers.get_header("WARC-Refers-To")
            page.refers_to_uri = record.rec_headers.get_header("WARC-Refers-To-Target-URI")
            page.refers_to_date = record.rec_headers.get_header("WARC-Refers-To-Date")
            return page, _record_problem(record)
        encoding = (headers.get_header("Content-Encoding") or "").strip().lower()
        if encoding == "br" and not _has_brotli():
            _drain(record)
            return None, "brotli-compressed body and the 'brotli' package is not installed"
        try:  # at most the limit in memory: a gzip bomb stops here (RecordTooLarge)
            body = record.content_stream().read(self.max_record + 1)
        except (OSError, EOFError, zlib.error, ValueError, OverflowError) as exc:
            return None, f"unreadable body ({type(exc).__name__}: {exc})"
        if len(body) > self.max_record:
            raise RecordTooLarge(too_large("the record's HTML body", self.max_record))
        _drain(record)
        problem = _record_problem(record)
        if problem:
            return None, problem
        if not mtype and not looks_like_html(body):
            return Skipped("not_html"), None
        page.html = body
        return page, None

    # -- the file -----------------------------------------------------------------------
    def events(self) -> Iterator[Event]:
        pos = 0
        emitted = 0
        while True:
            self.fh.seek(pos)
            it = _capped_iterator(self.fh, self.max_record)
            failure: str | None = None
            fail_at = pos
            non_chunked = False
            short_at: int | None = None
            try:
                for record in it:
                    errs = it.err_count
                    try:
                        event, problem = self.convert(record)
                    except (OSError, EOFError, zlib.error, ValueError, ArchiveLoadFailed,
                            OverflowError) as exc:
                        event, problem = None, f"unreadable record ({type(exc).__name__}: {exc})"
                    try:
                        offset = it.get_record_offset()  # warcio counts from the start of fh
                    except Exception:  # noqa: BLE001 - the record's end could not be found
                        offset = max(it.offset, pos)
                    emitted += 1
                    if problem is None and it.err_count > errs:
                        problem = "record length does not match its Content-Length"
                    it.reader.line_bytes = 0  # the lines of the next record count from here
                    yield from self._emit(record, event, problem, offset, uncompressed=False)
                    if not self.is_gzip and (getattr(record.raw_stream, "limit", 0) or 0) > 0:
                        # its Content-Length ran to the end of the file, over the records
                        # after it: look for them from its start on
                        short_at = offset
                        break
            except ArchiveLoadFailed as exc:
                msg = " ".join(str(exc).split())
                if "non-chunked gzip" in msg:
                    non_chunked = True
                else:
                    failure, fail_at = msg, max(it.offset, pos)
            except RecordTooLarge as exc:  # skipped without reading it: the next record
                failure, fail_at = str(exc), max(it.offset, pos)
            except OverflowError:  # a length no file can have: Content-Length 10**29, say
                failure = "a length too large to be real (Content-Length or chunk size)"
                fail_at = max(it.offset, pos)
            except (OSError, EOFError, zlib.error, ValueError, AttributeError, TypeError) as exc:
                # warcio raises AttributeError/TypeError on a record header cut short
                failure = f"unreadable data ({type(exc).__name__}: {exc})"
                fail_at = max(it.offset, pos)
            if non_chunked:
                yield Problem(
                    self.name,
                    0,
                    "one gzip stream for all records instead of one gzip member per record "
                    "(recompress with 'warcio recompress'); read it as one stream, offsets "
                    "below are of the uncompressed data",
                )
                yield from self._stream_events(skip=emitted)
                return
            if short_at is not None:
                nxt = self._next_record_start(short_at + 1)
                if nxt is None:
                    return
                pos = nxt
                continue
            if failure is None:
                # warcio ends quietly at a gzip member cut short or at bytes that are no
                # gzip member: check the members it read, so a cut file is never silent
                damage = self._gzip_damage(pos) if self.is_gzip else None
                if damage is not None:
                    yield Problem(self.name, *damage)
                return
            yield Problem(self.name, fail_at, failure)
            nxt = self._next_record_start(fail_at + 1)
            if nxt is None:
                return
            pos = nxt

    def _emit(
        self,
        record: Any,
        event: Event | None,
        problem: str | None,
        offset: int,
        *,
        uncompressed: bool,
    ) -> Iterator[Event]:
        """What one converted record gives: its problem, or its page stamped with its place."""
        if problem is not None:
            yield Problem(
                self.name, offset, problem + (" (uncompressed offset)" if uncompressed else "")
            )
        elif isinstance(event, RawPage):
            event.offset = offset
            event.record_key = self._key(record, offset, uncompressed)
            yield event
        elif event is not None:
            yield event

    def _next_record_start(self, start: int) -> int | None:
        """The offset of the next plausible record start at or after ``start``."""
        marker = GZIP_MAGIC if self.is_gzip else b"\nWARC/"  # WARC/1.0, 1.1 and 0.17
        self.fh.seek(start)
        base, tail = start, b""
        while True:
            block = self.fh.read(1 << 20)
            if not block:
                return None
            data = tail + block
            i = data.find(marker)
            while i >= 0:
                cand = base - len(tail) + i + (0 if self.is_gzip else 1)
                if not self.is_gzip or self._gzip_member_is_record(cand):
                    return cand
                i = data.find(marker, i + 1)
            tail = data[-16:]
            base += len(block)

    def _gzip_damage(self, start: int) -> tuple[int, str] | None:
        """Where and how the gzip members from ``start`` to the end are broken, or None."""
        self.fh.seek(start)
        member_at, fed = start, 0  # start of the current member, bytes given to it
        d = zlib.decompressobj(31)
        pending = b""
        while True:
            block = pending or self.fh.read(1 << 20)
            pending = b""
            if not block:
                if fed:
                    return member_at, (
                        "gzip member cut short: the file ends inside it (a truncated download "
                        "or copy?); the records before it went in"
                    )
                return None
            try:  # in bounded pieces: a gzip bomb must not be inflated whole into memory
                d.decompress(block, _CHUNK)
                while d.unconsumed_tail and not d.eof:
                    d.decompress(d.unconsumed_tail, _CHUNK)
            except zlib.error as exc:
                return member_at, f"not a valid gzip member ({exc}); the records before it went in"
            if d.eof:
                member_at += fed + len(block) - len(d.unused_data)
                pending, fed = d.unused_data, 0
                d = zlib.decompressobj(31)
            else:
                fed += len(block)

    def _gzip_member_is_record(self, at: int) -> bool:
        here = self.fh.tell()
        self.fh.seek(at)
        try:
            head = zlib.decompressobj(31).decompress(self.fh.read(2048), 2048)
        except zlib.error:
            head = b""
        self.fh.seek(here)
        return head.startswith((b"WARC/", b"http:", b"https:", b"filedesc:", b"dns:"))

    def _stream_events(self, skip: int) -> Iterator[Event]:
        """Read a non-chunked gzip file through one decompressor (records after ``skip``)."""
        import gzip

        self.fh.seek(0)
        with gzip.GzipFile(fileobj=self.fh) as stream:
            it = _capped_iterator(stream, self.max_record)  # type: ignore[arg-type]
            n = 0
            try:
                for record in it:
                    n += 1
                    it.reader.line_bytes = 0
                    if n <= skip:
                        continue
                    event, problem = self.convert(record)
                    offset = it.get_record_offset()
                    yield from self._emit(record, event, problem, offset, uncompressed=True)
            except (ArchiveLoadFailed, OSError, EOFError, zlib.error, ValueError, OverflowError,
                    RecordTooLarge) as exc:
                msg = " ".join(str(exc).split()) or type(exc).__name__
                yield Problem(self.name, max(it.offset, 0), f"{msg} (uncompressed offset)")


def _has_brotli() -> bool:
    try:
        import brotli  # noqa: F401
    except ImportError:
        return False
    return True


def read_archive(
    path: str,
    sha256: str,
    *,
    name: str | None = None,
    page_dates: bool = False,
    max_record: int = MAX_RECORD_SIZE,
) -> Iterator[Event]:
    """The events of the WARC or ARC file ``path`` (gzipped or not), in file order.

    ``sha256`` (of the file) keys records without a WARC-Record-ID (ARC records) by offset;
    ``name`` is the file name reported in problems and stored as ``source_file``.
    ``page_dates`` asks the extraction for the page's own date instead of the WARC-Date.
    A record whose headers or HTML body decompress to more than ``max_record`` bytes is a
    problem, skipped without being read further (other bodies are read in bounded pieces).
    warcio's own stderr notices are captured and reported as problems instead.
    """
    label = name or path
    with open(path, "rb") as fh:
        reader = _ArchiveReader(fh, label, sha256, page_dates, max_record)
        gen = reader.events()
        while True:
            with contextlib.redirect_stderr(io.StringIO()):
                try:
                    event = next(gen)
                except StopIteration:
                    return
            yield event
