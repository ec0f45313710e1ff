"""Where the pages are: the crawler's table, the real names of its columns, and which of
webdedup's output columns on it are whose.

:meth:`CrawlerTable.resolve` is the one place that resolves the crawler's table, in one pass
over SQLite's catalogue (:class:`Catalogue`: the schema's tables and indexes, webdedup's
``_webdedup_meta`` values) and one ``PRAGMA table_info`` of the table: the table and column
mapping (the last run's when a run names none), webdedup's logical input columns (``url``,
``content``, ``html``, ``title``, ``datetime`` — else ``date`` —, ``crawled``,
``category``) mapped onto the table's real columns (:class:`Layout`), and the output columns
the table already has that are the crawler's own. ``db``, ``export``, ``explain``,
``ingest`` and ``run_on_list`` (through ``run_on_db``) use it; a page dict of
``run_on_list`` has keys, not columns, so there ``datetime``, else ``date``, is decided page
by page.

Example::

    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE docs (link TEXT, body TEXT, date TEXT)")
    >>> layout = Layout.resolve(conn, Columns(table="docs", url="link", content="body"))
    >>> layout.url, layout.content, layout.datetime, layout.html
    ('link', 'body', 'date', None)
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..config import Columns
from ..errors import InputError, MissingColumn, NoPagesTable, WebdedupError
from .schema import CRAWLER_MAY_OWN, OUTPUT_COLUMNS, OUTPUT_MARK
from .sqlfiles import quote, sql
from .state import META, config_columns, parse_config, set_meta
from .tables import table_columns

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
    #: output columns the table already has as the crawler's own (``content_hash``): a run
    #: never writes into them (:meth:`Catalogue.crawler_columns`; set by
    #: :meth:`CrawlerTable.resolve`)
    crawler_columns: tuple[str, ...] = ()

    @classmethod
    def resolve(
        cls,
        conn: sqlite3.Connection,
        columns: Columns,
        where: str = "the database",
        *,
        need_text: bool = True,
    ) -> Layout:
        """Find ``columns.table`` and its input columns; raise with advice when unusable
        (:meth:`CrawlerTable.resolve`'s layout)."""
        return CrawlerTable.resolve(conn, columns, where, need_text=need_text).layout

    @classmethod
    def of(
        cls,
        columns: Columns,
        have: Sequence[str],
        where: str = "the database",
        *,
        need_text: bool = True,
    ) -> Layout:
        """The layout of a table whose columns are ``have`` (in order); raise with advice
        when the URL or every text column is missing."""
        table = columns.table
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


# -- the catalogue ------------------------------------------------------------------------------
_CRAWLER_COLUMNS = "crawler_columns"
_ANNOTATED = "annotated_tables"


@dataclass(frozen=True)
class Catalogue:
    """What SQLite's catalogue says of a database, read in one pass: each table's
    ``CREATE`` statement, the indexes' names, and webdedup's ``_webdedup_meta`` values."""

    tables: dict[str, str | None]
    indexes: frozenset[str]
    meta: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> Catalogue:
        tables: dict[str, str | None] = {}
        indexes: set[str] = set()
        for kind, name, create in conn.execute(sql("catalogue")):
            if kind == "index":
                indexes.add(name)
            else:
                tables[name] = create
        meta: dict[str, str] = {}
        if META in tables:
            rows = conn.execute(f"SELECT key, value FROM {META}")
            meta = {str(k): str(v) for k, v in rows if v is not None}
        return cls(tables, frozenset(indexes), meta)

    def stored_columns(self, where: str = "the database") -> dict[str, str]:
        """The ``[columns]`` mapping (with ``table``) of the last run's configuration."""
        return config_columns(parse_config(self.meta.get("config"), where))

    def annotated_tables(self) -> list[str]:
        """The tables webdedup has written its output columns into."""
        recorded = self.meta.get(_ANNOTATED)
        if recorded:
            return list(json.loads(recorded))
        table = self.stored_columns().get("table")  # written before the record existed
        return [table] if table else []

    def foreign_output_columns(self, table: str, have: Sequence[str]) -> list[str]:
        """Output column names that ``table`` (whose columns are ``have``) already has and
        webdedup did not create.

        Webdedup's own are recognised by the tables it recorded as annotated (or, for a
        database annotated before that record, by the last run's table), or by the comment
        on their declarations (:data:`~webdedup.store.schema.OUTPUT_MARK`), or by the index
        webdedup built on them before schema 11. Writing into a crawler's own
        ``content_hash`` would destroy the crawler's data.
        """
        present = [c for c in OUTPUT_COLUMNS if c in set(have)]
        if not present or table in self.annotated_tables():
            return []
        create = self.tables.get(table) or ""
        if f"/* {OUTPUT_MARK} */" in create or f"_webdedup_{table}_kind_group" in self.indexes:
            return []
        return present

    def crawler_columns(self, table: str, have: Sequence[str]) -> list[str]:
        """The output columns of ``table`` that are the crawler's, not webdedup's: those
        recorded at an earlier run, else those found now (:meth:`foreign_output_columns`)
        that a crawler may own. Webdedup never writes into them."""
        recorded = self.meta.get(_CRAWLER_COLUMNS)
        if recorded:
            mine = json.loads(recorded).get(table)
            if mine is not None:
                return [c for c in mine if c in set(have)]
        return [c for c in self.foreign_output_columns(table, have) if c in CRAWLER_MAY_OWN]


@dataclass(frozen=True)
class CrawlerTable:
    """The crawler's table as a run finds it (:meth:`resolve`)."""

    layout: Layout  #: with the crawler's own output columns (``Layout.crawler_columns``)
    #: the table and column mapping used: the one asked for, or the last run's (``remembered``)
    columns: Columns
    remembered: bool
    #: output columns the table already has that are neither webdedup's nor the crawler's
    foreign: tuple[str, ...] = ()

    @property
    def crawler_columns(self) -> tuple[str, ...]:
        """Output columns the table already has as the crawler's own (webdedup leaves them)."""
        return self.layout.crawler_columns

    @classmethod
    def resolve(
        cls,
        conn: sqlite3.Connection,
        columns: Columns,
        where: str = "the database",
        *,
        need_text: bool = True,
        remember: bool = False,
    ) -> CrawlerTable:
        """Resolve the crawler's table in one pass over the catalogue; raise with advice when
        it is missing, is webdedup's or SQLite's own, has no rowid, or lacks its URL or text.

        ``remember``: when ``columns`` names no table or column of its own, use the last
        run's mapping (a crawler whose pages live in ``documents.body`` maps them once).
        """
        catalogue = Catalogue.read(conn)
        remembered = False
        if remember and columns == Columns():
            stored = catalogue.stored_columns(where)
            try:
                last = Columns.from_mapping(stored) if stored else columns
            except WebdedupError:  # an unusable record: the defaults, as before it existed
                last = columns
            remembered, columns = last != columns, last
        table = columns.table
        if table not in catalogue.tables:
            tables = [r[0] for r in conn.execute(sql("list_tables"))]
            found = ", ".join(tables) if tables else "none"
            raise NoPagesTable(
                f"{where} has no table {table!r} (tables found: {found}); "
                "name the crawler's table with --table"
            )
        refuse_own_table(table)
        if re.search(r"without\s+rowid", catalogue.tables[table] or "", re.I):
            raise InputError(f"table {table!r} is WITHOUT ROWID; webdedup needs a rowid table")
        have = table_columns(conn, table)
        crawlers = catalogue.crawler_columns(table, have)
        foreign = [c for c in catalogue.foreign_output_columns(table, have) if c not in crawlers]
        layout = replace(
            Layout.of(columns, have, where, need_text=need_text), crawler_columns=tuple(crawlers)
        )
        return cls(layout, columns, remembered, tuple(foreign))


def annotated_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables webdedup has written its output columns into."""
    return Catalogue.read(conn).annotated_tables()


def record_annotated(conn: sqlite3.Connection, table: str) -> None:
    """Remember that ``table`` carries webdedup's output columns (inside the write)."""
    set_meta(conn, _ANNOTATED, json.dumps(sorted(set(annotated_tables(conn)) | {table})))


def crawler_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The output columns of ``table`` that are the crawler's
    (:meth:`Catalogue.crawler_columns`)."""
    return Catalogue.read(conn).crawler_columns(table, table_columns(conn, table))


def record_crawler_columns(conn: sqlite3.Connection, table: str, columns: list[str]) -> None:
    """Remember which output columns of ``table`` are the crawler's (inside the write)."""
    recorded: dict[str, Any] = json.loads(Catalogue.read(conn).meta.get(_CRAWLER_COLUMNS, "{}"))
    if recorded.get(table) == list(columns) or (not columns and table not in recorded):
        return
    recorded[table] = list(columns)
    set_meta(conn, _CRAWLER_COLUMNS, json.dumps(recorded, sort_keys=True))
