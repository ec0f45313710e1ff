"""Phase 1, prepare: canonical URL, normalized-text hash and election attributes per page.

``prepare_page`` is pure and shared by ``run_on_db`` and ``run_on_list``; ``run`` streams the
``pages`` table in bounded chunks into the run's ``run_prepared`` work table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..config import Config
from ..extract import extract_text
from ..store import quote, run_script, sql
from ..text import digest_text
from ..timestamps import parse_timestamp
from ..urls import IgnoreRules, canonicalize_url, is_https, url_host


class Prepared(NamedTuple):
    """One row of ``_prepared`` (same columns, same order)."""

    id: int
    url_hash: str
    canonical_url: str | None
    url_key: str
    host: str | None
    content_hash: str | None
    text_len: int
    word_count: int
    is_external: int
    is_https: int
    url_len: int
    dt: float | None
    crawled_ts: float | None
    ignored: str | None


@dataclass(frozen=True)
class PageInput:
    """A page as read from the crawler's table or given to ``run_on_list``."""

    id: int
    url: str | None
    text: str | None = None
    html: str | None = None
    datetime: Any = None
    crawled: Any = None
    category: str | None = None


def url_hash(url: str | None) -> str:
    """A short hash of the raw URL, stored per page id to detect renumbered rowids."""
    return hashlib.sha1((url or "").encode("utf-8", "surrogatepass")).hexdigest()[:16]


def page_text(page: PageInput) -> str | None:
    """The page's text: its text column, or the main text extracted from its HTML."""
    text = page.text if isinstance(page.text, str) else None
    if (text is None or not text.strip()) and page.html:
        html = page.html
        if isinstance(html, bytes):
            html = html.decode("utf-8", "replace")
        text = extract_text(html)
    return text


def prepare_page(page: PageInput, config: Config, rules: IgnoreRules) -> tuple[Prepared, str]:
    """Prepare one page; returns the row and the normalized text kept for sketches."""
    url = page.url if isinstance(page.url, str) else None
    digest = digest_text(page_text(page))
    canonical = canonicalize_url(url, discard_params=config.discard_params) if url else None
    ignored: str | None = None
    if digest.empty:
        ignored = "empty_text"
    elif url and rules.patterns:
        rule = rules.match(url)
        if rule is not None:
            ignored = f"urls_to_ignore:{rule}"
    category = page.category.strip().lower() if isinstance(page.category, str) else ""
    row = Prepared(
        id=int(page.id),
        url_hash=url_hash(url),
        canonical_url=canonical,
        url_key=canonical if canonical is not None else f"#{int(page.id)}",
        host=url_host(canonical) if canonical is not None else None,
        content_hash=None if digest.empty else digest.sha1,
        text_len=digest.n_chars,
        word_count=digest.n_words,
        is_external=1 if category == "external" else 0,
        is_https=1 if url and is_https(url) else 0,
        url_len=len(url or ""),
        dt=parse_timestamp(page.datetime),
        crawled_ts=parse_timestamp(page.crawled),
        ignored=ignored,
    )
    return row, digest.sketch


def small_hosts(rows: Iterable[Prepared], n_min: int) -> set[str]:
    """Hosts with fewer than ``n_min`` pages (the in-memory twin of ``sql/small_hosts.sql``)."""
    counts: dict[str, int] = {}
    for r in rows:
        if r.host is not None:
            counts[r.host] = counts.get(r.host, 0) + 1
    return {h for h, c in counts.items() if c < n_min}


# -- the database side ------------------------------------------------------------------------
def select_pages_sql(table: str, present: dict[str, str | None]) -> str:
    """``SELECT`` of the input columns; absent optional columns read as NULL."""

    def col(name: str) -> str:
        real = present.get(name)
        return quote(real) if real else "NULL"

    return (
        f"SELECT rowid, {col('url')}, {col('content')}, {col('html')}, {col('datetime')}, "
        f"{col('crawled')}, {col('category')} FROM {quote(table)}"
    )


def iter_pages(cursor: Iterable[tuple[Any, ...]]) -> Iterator[PageInput]:
    for rowid, url, content, html, dt, crawled, category in cursor:
        if isinstance(content, bytes):
            content = content.decode("utf-8", "replace")
        if isinstance(url, bytes):
            url = url.decode("utf-8", "replace")
        yield PageInput(rowid, url, content, html, dt, crawled, category)


def run(ctx: Any, on_text: Callable[[Prepared, str], None] | None = None) -> dict[str, int]:
    """Stream ``pages`` into ``temp.run_prepared``; ``on_text`` receives each kept page's text.

    Memory is bounded by ``config.chunk_size`` rows of prepared values (the texts themselves
    are read one row at a time).
    """
    conn, config = ctx.conn, ctx.config
    run_script(conn, "run_tables")
    rules = IgnoreRules.from_patterns(config.urls_to_ignore)
    insert = "INSERT INTO temp.run_prepared VALUES (" + ", ".join("?" * 14) + ")"
    reader = conn.cursor()
    reader.execute(select_pages_sql(ctx.table, ctx.present))
    batch: list[Prepared] = []
    seen = 0
    bar = ctx.bar("prepare", total=ctx.total_pages, unit="page")
    for page in iter_pages(reader):
        row, text = prepare_page(page, config, rules)
        batch.append(row)
        seen += 1
        if row.ignored is None and on_text is not None:
            on_text(row, text)
        if len(batch) >= config.chunk_size:
            conn.executemany(insert, batch)
            bar.update(len(batch))
            batch.clear()
    if batch:
        conn.executemany(insert, batch)
        bar.update(len(batch))
    bar.close()
    if config.n_min > 0:
        conn.execute(sql("small_hosts"), {"n_min": config.n_min})
    return {"pages": seen}
