"""Where the pages are: the crawler's table and the real names of its columns.

:meth:`Layout.resolve` is the one place that maps webdedup's logical input columns (``url``,
``content``, ``html``, ``title``, ``datetime`` — else ``date`` —, ``crawled``, ``category``)
onto a table's real columns. ``db``, ``export``, ``explain``, ``ingest`` and
``run_on_list`` (through ``run_on_db``) use it; a page dict of ``run_on_list`` has keys, not
columns, so there ``datetime``, else ``date``, is decided page by page.

Example::

    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE docs (link TEXT, body TEXT, date TEXT)")
    >>> layout = Layout.resolve(conn, Columns(table="docs", url="link", content="body"))
    >>> layout.url, layout.content, layout.datetime, layout.html
    ('link', 'body', 'date', None)
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace

from ..config import Columns
from ..errors import InputError, MissingColumn, NoPagesTable
from .sqlfiles import quote, sql
from .tables import is_without_rowid, table_columns, table_exists

#: The logical input columns, in the order a page is read.
LOGICAL = ("url", "content", "html", "title", "datetime", "crawled", "category", "lang")
#: Names under which SQLite exposes a table's rowid, unless a column takes the name.
ROWID_ALIASES = ("rowid", "_rowid_", "oid")


@dataclass(frozen=True)
class Layout:
    """The table of pages and its real column name for each logical column (None: absent)."""

    table: str
    url: str
    content: str | None = None
    html: str | None = None
    title: str | None = None
    datetime: str | None = None
    crawled: str | None = None
    category: str | None = None
    lang: str | None = None
    #: a second text column, read where ``content``'s value is empty (``Columns``)
    content_fallback: str | None = None
    rowid: str = "rowid"  #: how to name the rowid of ``table`` in SQL (see ROWID_ALIASES)

    @classmethod
    def resolve(
        cls,
        conn: sqlite3.Connection,
        columns: Columns,
        where: str = "the database",
        *,
        need_text: bool = True,
    ) -> Layout:
        """Find ``columns.table`` and its input columns; raise with advice when unusable."""
        table = columns.table
        if not table_exists(conn, table):
            tables = [r[0] for r in conn.execute(sql("list_tables"))]
            found = ", ".join(tables) if tables else "none"
            raise NoPagesTable(
                f"{where} has no table {table!r} (tables found: {found}); "
                "name the crawler's table with --table"
            )
        refuse_own_table(table)
        if is_without_rowid(conn, table):
            raise InputError(f"table {table!r} is WITHOUT ROWID; webdedup needs a rowid table")
        have = table_columns(conn, table)
        names = set(have)

        def real(name: str) -> str | None:
            return name if name in names else None

        dt = real(columns.datetime) or real(columns.date)
        layout = cls(
            table=table,
            url=columns.url,
            content=real(columns.content),
            html=real(columns.html),
            title=real(columns.title),
            datetime=dt,
            crawled=real(columns.crawled),
            category=real(columns.category),
            lang=real(columns.lang),
            content_fallback=real(columns.content_fallback) if columns.content_fallback else None,
            rowid=_rowid_alias(table, names),
        )
        if columns.url not in names:
            raise MissingColumn(
                f"table {table!r} has no URL column {columns.url!r}; columns found: "
                f"{', '.join(have)}. Map it with --column url=NAME"
            )
        if layout.content is None and layout.content_fallback is not None:
            layout = replace(layout, content=layout.content_fallback, content_fallback=None)
        if need_text and layout.content is None and layout.html is None:
            raise MissingColumn(
                f"table {table!r} has no text column {columns.content!r} (nor an HTML column "
                f"{columns.html!r}); columns found: {', '.join(have)}. "
                "Map it with --column content=NAME"
            )
        return layout

    @property
    def present(self) -> dict[str, str | None]:
        """``{logical name: real column or None}`` for every logical input column (and
        ``content_fallback``)."""
        return {name: getattr(self, name) for name in (*LOGICAL, "content_fallback")}

    def text(self, alias: str | None = None) -> str:
        """The SQL of a row's text: the ``content`` column, or where its value is empty (NULL
        or ``''``) the ``content_fallback`` column; ``NULL`` when the table has neither."""
        text = self.column("content", alias)
        if not self.content_fallback:
            return text
        fallback = self.column("content_fallback", alias)
        return f"coalesce(nullif({text}, ''), {fallback})"

    def column(self, logical: str, alias: str | None = None) -> str:
        """The quoted real column of a logical one (``alias."col"``), or ``NULL`` if absent."""
        name = getattr(self, logical)
        if not name:
            return "NULL"
        return f"{alias}.{quote(name)}" if alias else quote(name)

    def select_pages(self) -> str:
        """``SELECT`` of the rowid and the input columns that phase 1 reads, in that order."""
        cols = ", ".join(
            self.text() if n == "content" else self.column(n)
            for n in ("url", "content", "html", "datetime", "crawled", "category", "lang")
        )
        return f"SELECT {quote(self.rowid)}, {cols} FROM {quote(self.table)}"


def refuse_own_table(table: str) -> None:
    """Raise when ``table`` is one of webdedup's state tables (or SQLite's), not pages."""
    if table.lower().startswith(("_webdedup", "sqlite_")):
        raise InputError(
            f"table {table!r} is one of webdedup's (or SQLite's) own tables, not a table of "
            "pages; name the crawler's table with --table"
        )


def rowid_alias(conn: sqlite3.Connection, table: str) -> str:
    """How to name the rowid of ``table`` in SQL: the first of ROWID_ALIASES no column takes."""
    return _rowid_alias(table, set(table_columns(conn, table)))


def _rowid_alias(table: str, names: set[str]) -> str:
    lower = {n.lower() for n in names}
    for alias in ROWID_ALIASES:
        if alias not in lower:
            return alias
    raise InputError(
        f"table {table!r} has columns named rowid, _rowid_ and oid, which hide SQLite's row "
        "ids; rename one of them"
    )
