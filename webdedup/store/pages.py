"""Reading the crawler's pages through a :class:`~webdedup.store.layout.Layout`.

Cells are read as text whatever their storage class: BLOBs are decoded as UTF-8 with
replacement characters, like invalid UTF-8 in TEXT cells.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..algorithms.html_text import extract_text
from ..algorithms.text import TextDigest, digest_text, sketch_utf8
from .layout import Layout
from .sqlfiles import quote

#: Page ids looked up per ``IN (...)`` query (under SQLite's bound-variable limit).
LOOKUP_CHUNK = 500


@dataclass(frozen=True)
class PageInput:
    """A page as read from the crawler's table (or given to ``run_on_list``)."""

    id: int
    url: str | None
    text: str | bytes | None = None  #: bytes: its UTF-8, decoded by :func:`page_text`
    html: str | None = None
    datetime: Any = None
    crawled: Any = None
    category: str | None = None
    lang: str | None = None  #: the crawler's own language column, when it has one


def as_text(value: Any) -> Any:
    """A BLOB cell as text (UTF-8, invalid bytes replaced); other values unchanged."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    return value


def page_text(page: PageInput) -> str | None:
    """The page's text: its text column, or the main text extracted from its HTML."""
    text = as_text(page.text)  # read as bytes (lenient_text(conn, bytes)): decoded here
    text = text if isinstance(text, str) else None
    html = as_text(page.html)
    if (not text or text.isspace()) and isinstance(html, str) and html:  # isspace: no copy
        text = extract_text(html)
    return text


def page_digest(page: PageInput) -> TextDigest:
    """``digest_text(page_text(page))``; a text read as bytes is digested without decoding it.

    When that digest is empty, the text may be blank and ``page_text`` may take the HTML
    instead: then it is decoded and read as ``page_text`` reads it (a text that normalizes to
    something is not blank, so the shortcut never changes which text is read).
    """
    if isinstance(page.text, bytes):
        digest = digest_text(page.text)
        if not digest.empty:
            return digest
    return digest_text(page_text(page))


def page_sketch_utf8(page: PageInput) -> bytes:
    """``sketch_utf8(page_text(page))``, what verification compares; a text read as bytes
    is normalized without decoding it, as in :func:`page_digest`."""
    if isinstance(page.text, bytes):
        utf8 = sketch_utf8(page.text)
        if utf8:
            return utf8
    return sketch_utf8(page_text(page))


def iter_pages(cursor: Iterable[tuple[Any, ...]]) -> Iterator[PageInput]:
    """Pages from rows of :meth:`Layout.select_pages` (the text as read: :func:`page_text`
    decodes it when it is bytes)."""
    for rowid, url, content, html, dt, crawled, category, lang in cursor:
        yield PageInput(
            rowid,
            as_text(url),
            content,
            html,
            as_text(dt),
            as_text(crawled),
            as_text(category),
            as_text(lang),
        )


def rowid_bounds(conn: sqlite3.Connection, layout: Layout) -> tuple[int, int] | None:
    """The first and last rowid of the crawler's table (``None`` when it is empty): two
    look-ups at the ends of its b-tree. (``SELECT min(rowid), max(rowid)`` in one query is
    not: SQLite looks a lone ``min`` or ``max`` up, but scans the whole table for both, every
    page's text with it: 31 GB from the disk for ten million pages.)

    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT)")
    >>> rowid_bounds(conn, Layout(table="pages", url="url")) is None
    True
    >>> _ = conn.executemany("INSERT INTO pages VALUES (?, 'u')", [(7,), (3,), (40,)])
    >>> rowid_bounds(conn, Layout(table="pages", url="url"))
    (3, 40)
    """
    table, rowid = quote(layout.table), quote(layout.rowid)
    lo, hi = conn.execute(
        f"SELECT (SELECT min({rowid}) FROM {table}), (SELECT max({rowid}) FROM {table})"
    ).fetchone()
    return None if lo is None else (int(lo), int(hi))


def fetch_pages(
    conn: sqlite3.Connection, layout: Layout, ids: Iterable[int]
) -> dict[int, PageInput]:
    """The raw pages of the given ids."""
    ids = list(ids)
    out: dict[int, PageInput] = {}
    base = layout.select_pages()
    for start in range(0, len(ids), LOOKUP_CHUNK):
        chunk = ids[start : start + LOOKUP_CHUNK]
        where = f" WHERE {quote(layout.rowid)} IN ({', '.join('?' * len(chunk))})"
        out.update((page.id, page) for page in iter_pages(conn.execute(base + where, chunk)))
    return out


def fetch_texts(conn: sqlite3.Connection, layout: Layout, ids: Iterable[int]) -> dict[int, str]:
    """Normalized (sketch-capped) texts of the given page ids."""
    pages = fetch_pages(conn, layout, ids)
    return {pid: page_digest(p).sketch for pid, p in pages.items()}
