"""What the readers of ``webdedup ingest`` produce and what an ingest reports.

A reader turns one input file into a stream of events: a :class:`RawPage` (a record that may
become a page), a :class:`Skipped` record (counted by kind) or a :class:`Problem` (a bad record
or file, named by file and offset).

Example::

    >>> Problem("crawl.warc.gz", 1197, "payload digest mismatch")
    Problem(file='crawl.warc.gz', offset=1197, message='payload digest mismatch')
    >>> str(Problem("crawl.warc.gz", 1197, "payload digest mismatch"))
    'crawl.warc.gz at offset 1197: payload digest mismatch'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..words import plural

#: The default of ``--max-record-size``: the most bytes one record (a WARC record's headers
#: or HTML body, a JSONL line, an HTML file), once decompressed, may take in memory.
MAX_RECORD_SIZE = 64 * 1024 * 1024


def too_large(what: str, limit: int) -> str:
    """The problem message of a record past the size limit."""
    return (
        f"{what}: more than {limit:,} bytes once decompressed (a gzip bomb? if it is real, "
        "raise --max-record-size); skipped"
    )


# Kinds of records counted and skipped (the keys of IngestReport.skipped).
SKIP_KINDS = (
    "redirect",            # 3xx responses
    "error",               # 4xx/5xx responses
    "not_html",            # 2xx responses of another media type
    "other_record",        # request, metadata, warcinfo, resource, conversion ... records
    "revisit_unresolved",  # a revisit whose original response was not found
    "already_ingested",    # a record ingested before (same WARC-Record-ID, file + offset,
                           # or HTML file + its path under the folder)
    "no_url",              # a JSONL line or page without a usable URL
)


@dataclass
class RawPage:
    """One record that becomes a page: its HTML (to extract) or its text (given).

    ``kind`` is ``"response"`` or ``"revisit"``; a revisit has no HTML of its own and carries
    what it refers to (``refers_to`` record id, ``refers_to_uri`` and ``refers_to_date``, and
    its ``payload_digest``).
    """

    url: str
    record_key: str
    source_file: str
    offset: int | None = None
    html: bytes | str | None = None  # bytes as read; text once decoded (or given as text)
    text: str | None = None
    title: str | None = None
    datetime: str | None = None
    crawled: str | None = None
    content_type: str | None = None
    status: int | None = None
    warc_record_id: str | None = None
    payload_digest: str | None = None
    kind: str = "response"
    refers_to: str | None = None
    refers_to_uri: str | None = None
    refers_to_date: str | None = None
    want_page_date: bool = False
    extraction: str | None = None  # 'ok', 'empty' or 'given' once known
    # the key an older webdedup gave this record (HTML files: '<sha256>:0'), honoured when
    # recorded for the same source_file, so re-ingesting a folder after an upgrade adds nothing
    legacy_key: str | None = None


@dataclass(frozen=True)
class Skipped:
    """A record counted under ``kind`` (one of :data:`SKIP_KINDS`) and not made a page."""

    kind: str


@dataclass(frozen=True)
class Problem:
    """A bad record or file: where it is and what is wrong with it."""

    file: str
    offset: int | None
    message: str

    def __str__(self) -> str:
        where = f" at offset {self.offset}" if self.offset is not None else ""
        return f"{self.file}{where}: {self.message}"


Event = RawPage | Skipped | Problem


@dataclass
class IngestReport:
    """What ``ingest`` did: pages added, records skipped by kind, problems met."""

    files: int = 0
    files_already_ingested: int = 0
    pages: int = 0
    revisits: int = 0
    empty_extractions: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
    #: the database this ingest created was removed again: nothing went in
    database_removed: bool = False

    @property
    def ok(self) -> bool:
        """True when no record or file was bad."""
        return not self.problems

    def problems_line(self) -> str:
        """What went wrong, in one line (for the error that ends a failed ingest)."""
        bad = plural(len(self.problems), "bad record or file", "bad records or files")
        if self.database_removed:
            return f"{bad} (warned above); nothing went in, so no database was created"
        if not self.pages:
            return f"{bad} (warned above); nothing went in"
        return f"{bad} (warned above); the readable records went in"

    def summary(self) -> str:
        """A few human lines: pages added and the counts of skipped records."""
        rate = self.pages / self.seconds if self.seconds > 0 else 0.0
        lines = [
            f"{plural(self.pages, 'page')} added ({self.revisits:,} from revisit records, "
            f"{self.empty_extractions:,} with no extracted text) from "
            f"{plural(self.files, 'file')} in {self.seconds:.1f} s ({rate:,.1f} pages/s)"
        ]
        if self.files_already_ingested:
            lines.append(
                f"{plural(self.files_already_ingested, 'file was', 'files were')} already "
                "ingested"
            )
        skipped = ", ".join(f"{k} {v:,}" for k, v in sorted(self.skipped.items()) if v)
        lines.append(f"skipped: {skipped or 'none'}")
        if self.problems:
            lines.append(
                f"{plural(len(self.problems), 'bad record or file', 'bad records or files')} "
                "(see the warnings)"
            )
        return "\n".join(lines)
