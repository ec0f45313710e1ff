"""``run_on_list``: the very same pipeline over a list of pages, on an in-memory database.

The pages go into the ``pages`` table of an in-memory SQLite database under webdedup's own
column names (read from the page dicts under the mapped names; rowid = the page's id),
:func:`~webdedup.pipeline.run.run_on_db` runs there, and the annotations are read back.
There is one implementation of the rules: what ``run_on_db`` decides for a page,
``run_on_list`` decides too.

Example::

    >>> from webdedup.config import Config
    >>> rows = run_on_list([
    ...     {"url": "http://example.com/a?utm_source=x", "content": "Same text"},
    ...     {"url": "https://www.example.com/a", "content": "Same text"},
    ... ], Config())
    >>> [(r["id"], r["dup_kind"], r["canonical_id"]) for r in rows]
    [(1, 'url', 2), (2, None, 2)]
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..config import Columns, Config
from ..errors import ConfigError
from ..store import connect, sql
from ..store.schema import OUTPUT_COLUMNS
from .run import run_on_db

#: What each returned page dict holds besides its ``id``: the output columns and, for an
#: ignored page, why (``empty_text``, ``urls_to_ignore:<rule>``, ``small_host``,
#: ``language``), and the page's language (``lang``, None when unknown).
RESULT_KEYS = (*OUTPUT_COLUMNS, "ignored", "lang")


def _cell(value: Any) -> Any:
    """A value SQLite can store as the crawler would have stored it."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: what SQLite would hold is invalid UTF-8
            return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return value
    if value is None or isinstance(value, (bytes, int, float)):
        return value
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    return str(value)


#: The in-memory table: webdedup's own names, whatever the pages' keys are mapped to.
_COLUMNS = ("url", "content", "html", "title", "datetime", "crawled", "category", "lang")
_SQLITE_INT = (-(2**63), 2**63 - 1)


def _row(page: Mapping[str, Any], position: int, cols: Columns) -> tuple[Any, ...]:
    """``(id, url, content, html, title, datetime, crawled, category, lang)`` of a page dict."""
    try:
        page_id = int(page.get("id", position))
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"page {position}: 'id' must be an integer, got {page.get('id')!r}"
        ) from exc
    if not _SQLITE_INT[0] <= page_id <= _SQLITE_INT[1]:
        raise ConfigError(f"page {position}: 'id' {page_id} does not fit in 64 bits")
    content = page.get(cols.content)
    if not content and cols.content_fallback:  # e.g. ``parsed`` empty: ``content``
        content = page.get(cols.content_fallback) or content
    if content is None:
        content = page.get("text")
    when = page.get(cols.datetime)
    if when is None:
        when = page.get(cols.date)  # "datetime, else date", as Layout.resolve reads a table
    values = (
        page.get(cols.url),
        content,
        page.get(cols.html),
        page.get(cols.title),
        when,
        page.get(cols.crawled),
        page.get(cols.category),
        page.get(cols.lang),
    )
    return (page_id, *(_cell(v) for v in values))


def run_on_list(pages: Iterable[Mapping[str, Any]], config: Config) -> list[dict[str, Any]]:
    """Annotate page dicts (keys as the mapped column names; ``text`` is accepted for the
    text). Returns one dict a page, in input order: ``id`` (the page's ``id`` or its 1-based
    position) and :data:`RESULT_KEYS`."""
    rows: list[tuple[Any, ...]] = []
    seen: set[int] = set()
    for position, page in enumerate(pages, start=1):
        row = _row(page, position, config.columns)
        if row[0] in seen:
            raise ConfigError(f"page id {row[0]} appears twice; give every page a unique 'id'")
        seen.add(row[0])
        rows.append(row)
    conn = connect(":memory:", must_exist=False, busy_timeout=config.busy_timeout)
    try:
        conn.execute(sql("in_memory_pages"))
        conn.executemany(sql("in_memory_insert"), rows)
        # no other connection can wait for an in-memory database: one write transaction
        run_on_db(conn, replace(config, columns=Columns(), write_lock=0))
        out = {row[0]: dict(zip(("id", *RESULT_KEYS), row, strict=True))
               for row in conn.execute(sql("in_memory_results"))}
        return [out[r[0]] for r in rows]
    finally:
        conn.close()
