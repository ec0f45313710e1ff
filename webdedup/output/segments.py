"""``webdedup segments``: the lines repeated on many pages of one host (site boilerplate).

A run with ``count_segments`` (or ``strip_segments``) counts, per host, the pages that carry
each segment (a line of a page's
text: :mod:`webdedup.algorithms.segments`; ``_webdedup_segments``). :func:`list_segments`
reads the repeated ones, most pages first, with their share of the host's processed pages
and their text as one page that carries them has it (no segment text is stored).

Example::

    >>> found = list_segments("crawl.sqlite", host="example.com")  # doctest: +SKIP
    >>> found.segments[0].pages, found.segments[0].sample  # doctest: +SKIP
    (412, '© 2024 Example Ltd. All rights reserved.')
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..algorithms.segments import segment_lines
from ..algorithms.urls import canonical_host, canonicalize_url
from ..errors import ConfigError, InputError
from ..store import sql, table_exists
from ..store.pages import fetch_pages, page_text
from .source import NotAnnotated, open_source

#: How many characters of a segment's text are shown.
SAMPLE_CHARS = 160
#: The threshold when neither the option nor the last run's configuration gives one.
DEFAULT_MIN_PAGES = 3


@dataclass(frozen=True)
class Segment:
    host: str
    hash: int
    pages: int  #: pages of the host that carry it
    host_pages: int  #: processed pages of the host
    sample: str | None  #: its text on one of those pages (None: the page changed since)


@dataclass(frozen=True)
class SegmentList:
    min_pages: int
    host: str | None
    total: int  #: repeated segments (before ``limit``)
    hosts: int  #: hosts that have one
    segments: list[Segment]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        """The listing as text, one segment a line."""
        where = f" of {self.host}" if self.host else ""
        head = (
            f"{self.total:,} segments repeated on {self.min_pages}+ pages{where} "
            f"({self.hosts:,} host{'s' if self.hosts != 1 else ''})"
        )
        if self.total > len(self.segments):
            head += f"; the {len(self.segments):,} on the most pages:"
        out = [head]
        if self.segments:
            out.append(f"{'pages':>7}  {'share':>5}  {'host':<28}  text")
        for s in self.segments:
            share = f"{s.pages / s.host_pages:.0%}" if s.host_pages else "-"
            sample = s.sample if s.sample is not None else "(the page changed since the last run)"
            out.append(f"{s.pages:>7,}  {share:>5}  {s.host:<28}  {sample}")
        return out


def _host_key(host: str) -> str:
    """A host as the run stored it (lowercase, ``www.`` and port dropped, IDNA)."""
    canonical = canonicalize_url(f"http://{host.strip().strip('/')}/")
    if canonical is None:
        raise ConfigError(f"--host takes a host name such as example.com, got {host!r}")
    return canonical_host(canonical)


def list_segments(
    db: str | Path | sqlite3.Connection,
    *,
    host: str | None = None,
    min_pages: int | None = None,
    limit: int = 20,
    busy_timeout: float = 5.0,
) -> SegmentList:
    """The repeated segments of the annotated database ``db`` (read-only).

    ``min_pages``: a segment on at least this many pages of its host is listed (default: the
    last run's ``segment_min_pages``). Raises :class:`NotAnnotated` when no run counted
    segments, :class:`InputError` when ``host`` has no processed page.
    """
    if min_pages is not None and min_pages < 2:
        raise ConfigError(f"--min-pages must be 2 or more, got {min_pages}")
    if limit < 1:
        raise ConfigError(f"--limit must be 1 or more, got {limit}")
    with open_source(db, busy_timeout=busy_timeout) as (conn, source):
        where = str(db) if not isinstance(db, sqlite3.Connection) else "the database"
        if not table_exists(conn, "_webdedup_segments"):
            raise NotAnnotated(
                f"{where} was annotated by a webdedup that did not count segments; run "
                f"'webdedup db {where}' once (one full run), then list them"
            )
        if not (source.config.get("count_segments") or source.config.get("strip_segments")):
            raise NotAnnotated(
                f"the last run on {where} did not count segments (off by default); run "
                f"'webdedup db {where} --count-segments' once (a full run), then list them"
            )
        if min_pages is None:
            min_pages = int(source.config.get("segment_min_pages") or DEFAULT_MIN_PAGES)
        key = _host_key(host) if host is not None else None
        exists = sql("segments_host_exists")
        if key is not None and conn.execute(exists, {"host": key}).fetchone() is None:
            top = conn.execute(sql("segments_top_hosts")).fetchall()
            known = ", ".join(f"{h} ({n:,})" for h, n in top) or "none"
            raise InputError(
                f"the last run processed no page of host {key!r}; hosts with the most pages: "
                f"{known}"
            )
        params = {"min_pages": min_pages, "host": key, "limit": limit}
        total, hosts = conn.execute(sql("segments_summary"), params).fetchone()
        rows = conn.execute(sql("segments_list"), params).fetchall()
        names = sorted({r[0] for r in rows})
        host_pages = dict(conn.execute(sql("segments_host_pages"), {"hosts": json.dumps(names)}))
        pages = fetch_pages(conn, source.layout, {r[3] for r in rows if r[3] is not None})
        texts: dict[int, dict[int, str]] = {}
        for pid, page in pages.items():
            texts[pid] = {h: raw.strip() for h, _, raw in segment_lines(page_text(page))}
        segments = [
            Segment(
                host=h,
                hash=int(seg),
                pages=int(n),
                host_pages=int(host_pages.get(h, 0)),
                sample=_cut(texts.get(pid, {}).get(seg)),
            )
            for h, seg, n, pid in rows
        ]
    return SegmentList(min_pages, key, int(total), int(hosts), segments)


def _cut(text: str | None) -> str | None:
    if text is None or len(text) <= SAMPLE_CHARS:
        return text
    return text[: SAMPLE_CHARS - 3] + "..."
