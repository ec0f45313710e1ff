"""``run_on_list``: the very same pipeline over a list of pages, on an in-memory database.

The pages go into a table of an in-memory SQLite database (the mapped column names, rowid =
the page's id), :func:`~webdedup.pipeline.run.run_on_db` runs there, and the annotations are
read back. There is one implementation of the rules: what ``run_on_db`` decides for a page,
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
from typing import Any

from ..config import Config
from ..errors import ConfigError
from ..store import connect, quote
from ..store.schema import OUTPUT_COLUMNS
from .run import run_on_db

#: What each returned page dict holds besides its ``id``: the output columns and, for an
#: ignored page, why (``empty_text``, ``urls_to_ignore:<rule>``, ``small_host``).
RESULT_KEYS = (*OUTPUT_COLUMNS, "ignored")


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


def run_on_list(pages: Iterable[Mapping[str, Any]], config: Config) -> list[dict[str, Any]]:
    """Annotate page dicts (keys as the mapped column names; ``text`` is accepted for the
    text). Returns one dict a page, in input order: ``id`` (the page's ``id`` or its 1-based
    position) and :data:`RESULT_KEYS`."""
    cols = config.columns
    names = list(
        dict.fromkeys(
            [cols.url, cols.content, cols.html, cols.title, cols.datetime, cols.date,
             cols.crawled, cols.category]
        )
    )
    rows: list[tuple[Any, ...]] = []
    seen: set[int] = set()
    for position, page in enumerate(pages, start=1):
        try:
            page_id = int(page.get("id", position))
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"page {position}: 'id' must be an integer, got {page.get('id')!r}"
            ) from exc
        if page_id in seen:
            raise ConfigError(f"page id {page_id} appears twice; give every page a unique 'id'")
        seen.add(page_id)
        values = {name: page.get(name) for name in names}
        if values[cols.content] is None and "text" in page:
            values[cols.content] = page["text"]
        rows.append((page_id, *(_cell(values[n]) for n in names)))
    conn = connect(":memory:", must_exist=False, busy_timeout=config.busy_timeout)
    try:
        table = quote(cols.table)
        conn.execute(f"CREATE TABLE {table} ({', '.join(quote(n) for n in names)})")
        # the rowid is the page id: name it by a name no column can take
        conn.executemany(
            f"INSERT INTO {table} (_rowid_, {', '.join(quote(n) for n in names)}) "
            f"VALUES ({', '.join('?' * (len(names) + 1))})",
            rows,
        )
        run_on_db(conn, config)
        out = {}
        query = (
            f"SELECT p._rowid_, {', '.join('p.' + quote(c) for c in OUTPUT_COLUMNS)}, "
            f"w.ignored FROM {table} AS p LEFT JOIN _webdedup_prepared AS w ON w.id = p._rowid_"
        )
        for row in conn.execute(query):
            out[row[0]] = dict(zip(("id", *RESULT_KEYS), row, strict=True))
        return [out[r[0]] for r in rows]
    finally:
        conn.close()
