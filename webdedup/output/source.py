"""The annotated database an export reads: opening it, its layout, and the export filters.

An export only reads. It needs a database that ``webdedup db`` has run on: the run's
configuration (``_webdedup_meta`` key ``config``) says which table holds the pages and what
its URL, title and text columns are called.

Example::

    >>> ExportFilters(min_group_size=2, kinds=("near",)).params()
    {'min_size': 2, 'kinds': '["near"]'}
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Columns
from ..errors import ConfigError, InputError
from ..incremental.plan import INCREMENTAL_SCHEMA, pages_now
from ..store import (
    connect,
    lenient_text,
    quote,
    schema_version,
    sql,
    table_columns,
    table_exists,
    translate,
)
from ..store.counts import count as count_pages
from ..store.counts import groups_subquery
from ..store.layout import Layout, crawler_columns
from ..store.schema import GROUP_TABLES, OUTPUT_COLUMNS, RESULT_TABLES
from ..store.state import stored_columns, stored_config

#: The ways a page can join a duplicate group, as the ``--kind`` filter accepts them.
KINDS = ("url", "exact", "near")

#: The columns ``webdedup db`` adds to the pages table; an export needs all of them.
ANNOTATION_COLUMNS = tuple(OUTPUT_COLUMNS)


class NotAnnotated(InputError):
    """The database has not been through ``webdedup db`` (nothing to export or explain)."""


@dataclass(frozen=True)
class ExportFilters:
    """Which pages and groups an export keeps.

    ``min_group_size`` keeps pages whose duplicate group has at least that many members (and
    groups of at least that size); ``kinds`` keeps pages that joined their group as one of
    the kinds (``url``, ``exact``, ``near``) together with the canonicals of those groups, and
    only the group lists of those kinds. The defaults keep everything.
    """

    min_group_size: int | None = None
    kinds: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.min_group_size is not None and int(self.min_group_size) < 1:
            raise ConfigError(
                f"min_group_size must be 1 or more (or None for no filter), "
                f"got {self.min_group_size!r}"
            )
        kinds = tuple(dict.fromkeys(self.kinds))
        bad = [k for k in kinds if k not in KINDS]
        if bad:
            raise ConfigError(
                f"unknown duplicate kind(s) {', '.join(map(repr, bad))}; "
                f"choose from: {', '.join(KINDS)}"
            )
        object.__setattr__(self, "kinds", kinds)

    def params(self) -> dict[str, Any]:
        """The bound parameters ``:min_size`` and ``:kinds`` of the export's SQL."""
        size = self.min_group_size if self.min_group_size and self.min_group_size > 1 else None
        return {"min_size": size, "kinds": json.dumps(list(self.kinds)) if self.kinds else None}

    def keeps(self, kind: str) -> bool:
        """Whether the group list of ``kind`` is part of the export."""
        return not self.kinds or kind in self.kinds

    def as_dict(self) -> dict[str, Any]:
        return {"min_group_size": self.min_group_size, "kinds": list(self.kinds)}


@dataclass(frozen=True)
class Source:
    """An annotated database as an export reads it: the pages' layout and the last run's
    configuration (as stored)."""

    layout: Layout
    config: dict[str, Any] = field(default_factory=dict)
    has_lang: bool = False  #: whether ``_webdedup_prepared`` has ``lang`` (schema 6 on)
    #: the table's ``content_hash`` is the crawler's own (webdedup's hash is in its state)
    crawler_hash: bool = False

    @property
    def table(self) -> str:
        return self.layout.table

    @property
    def url(self) -> str:
        return self.layout.url

    @property
    def title(self) -> str | None:
        return self.layout.title

    @property
    def content(self) -> str | None:
        return self.layout.content

    @property
    def html(self) -> str | None:
        return self.layout.html

    @property
    def election(self) -> tuple[str, ...]:
        return tuple(self.config.get("election") or ())

    def column(self, alias: str, name: str | None) -> str:
        """``alias."column"``, or ``NULL`` when the table has no such column."""
        return f"{alias}.{quote(name)}" if name else "NULL"

    def text_fallback_html(self, alias: str) -> str:
        """The HTML column only where the text column is empty (for extraction), else NULL."""
        if not self.html:
            return "NULL"
        if not self.content:
            return self.column(alias, self.html)
        text = self.layout.text(alias)
        return f"CASE WHEN coalesce({text}, '') = '' THEN {self.column(alias, self.html)} END"

    def content_hash_sql(self, alias: str) -> str:
        """webdedup's hash of a page's text: the ``content_hash`` column, or, where that column
        is the crawler's own (:func:`~webdedup.store.schema.crawler_columns`), the state's."""
        if not self.crawler_hash:
            return self.column(alias, "content_hash")
        return (
            "(SELECT h.content_hash FROM main._webdedup_prepared AS h "
            f"WHERE h.id = {alias}.{quote(self.layout.rowid)})"
        )

    def sql(self, name: str, *, folder: str = "export", **extra: str) -> str:
        """``sql/<folder>/<name>.sql`` with the table and column placeholders filled."""
        fills = {
            "pages": quote(self.table),
            "url": quote(self.url),
            "rowid": quote(self.layout.rowid),
            "title": self.column("p", self.title),
            "title_a": self.column("pa", self.title),
            "title_b": self.column("pb", self.title),
            "text": self.layout.text("p") if self.content else "NULL",
            "html": self.text_fallback_html("p"),
            "groups": groups_subquery(),
            "lang": "pr.lang" if self.has_lang else "NULL",
            "content_hash": self.content_hash_sql("p"),
        }
        fills.update(extra)
        return sql(f"{folder}/{name}", **fills)


@contextmanager
def open_source(
    db: str | Path | sqlite3.Connection, *, busy_timeout: float = 5.0
) -> Iterator[tuple[sqlite3.Connection, Source]]:
    """Open an annotated database for reading and find its layout.

    Raises :class:`NotAnnotated` when ``webdedup db`` never ran on it. Text that is not valid
    UTF-8 is read with replacement characters rather than failing the export.
    """
    own = not isinstance(db, sqlite3.Connection)
    conn = connect(db, busy_timeout=busy_timeout, write=False)
    where = str(db) if own else "the database"
    try:
        with lenient_text(conn):
            yield conn, read_layout(conn, where)
    except sqlite3.Error as exc:
        raise translate(exc, where) from exc
    finally:
        if own:
            conn.close()


def read_layout(conn: sqlite3.Connection, where: str = "the database") -> Source:
    """The pages table and columns recorded by the last ``webdedup db`` run."""
    hint = (
        f"run 'webdedup db {where}' first"
        if where != "the database"
        else ("run 'webdedup db' on it first")
    )
    version = schema_version(conn)
    if 0 < version < INCREMENTAL_SCHEMA:
        raise NotAnnotated(
            f"{where} was annotated by an older webdedup (state schema {version}); run "
            f"'webdedup db {where}' once to upgrade it (one full run), then export"
        )
    groups = all(table_exists(conn, t) for t in GROUP_TABLES)
    if version and not groups and table_exists(conn, "_webdedup_runs"):
        raise NotAnnotated(
            f"{where} was annotated by an older webdedup (state schema {version}); run "
            f"'webdedup db {where}' once to upgrade it, then export"
        )
    if not all(table_exists(conn, t) for t in RESULT_TABLES):
        raise NotAnnotated(f"{where} has no webdedup results (no state tables); {hint}")
    if conn.execute(sql("export/last_run")).fetchone() is None:
        raise NotAnnotated(f"{where} has no successful webdedup run recorded; {hint}")
    config = stored_config(conn, where)
    try:
        columns = Columns.from_mapping(stored_columns(conn, where))
    except ConfigError as exc:
        raise InputError(f"{where}: the stored webdedup config is unusable ({exc})") from exc
    if not table_exists(conn, columns.table):
        raise NotAnnotated(
            f"{where} has no table {columns.table!r} any more (the table webdedup annotated); "
            f"{hint}"
        )
    have = set(table_columns(conn, columns.table))
    missing = [c for c in ANNOTATION_COLUMNS if c not in have]
    if missing:
        raise NotAnnotated(
            f"table {columns.table!r} of {where} lacks the webdedup columns "
            f"{', '.join(missing)}; {hint}"
        )
    if columns.url not in have:
        raise InputError(
            f"table {columns.table!r} of {where} has no URL column {columns.url!r} any more"
        )
    has_lang = "lang" in table_columns(conn, "_webdedup_prepared")
    crawler_hash = "content_hash" in crawler_columns(conn, columns.table)
    return Source(
        Layout.resolve(conn, columns, where, need_text=False), config, has_lang, crawler_hash
    )


def last_run(conn: sqlite3.Connection) -> dict[str, Any]:
    """The last successful run (its parameters decoded from JSON)."""
    cur = conn.execute(sql("export/last_run"))
    names = [d[0] for d in cur.description]
    row = cur.fetchone()
    if row is None:  # pragma: no cover - read_layout checked it
        return {}
    out = dict(zip(names, row, strict=True))
    try:
        out["params"] = json.loads(out["params"]) if out.get("params") else {}
    except ValueError:
        out["params"] = {}
    return out


def counts(conn: sqlite3.Connection, layout: Source) -> dict[str, int]:
    """Whole-table counts: :class:`~webdedup.store.counts.Counts` (groups and duplicates by
    kind, unique and ignored pages), ``annotated`` pages, verified ``near_pairs``, and
    ``duplicate_groups`` (the same number as ``groups``; kept for readers of older reports).
    """
    table = layout.table
    found = count_pages(conn, table, pages=pages_now(conn, table))
    (pairs,) = conn.execute(layout.sql("counts")).fetchone()
    return found.as_dict() | {
        "annotated": found.pages - found.not_annotated,
        "duplicate_groups": found.groups,
        "near_pairs": int(pairs or 0),
    }
