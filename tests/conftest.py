"""Shared fixtures and builders: real SQLite files, real texts from ../shared/data."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# The property tests run the same examples every time (CI must not fail on a draw that no
# one can reproduce); HYPOTHESIS_PROFILE=explore draws new ones to look for more.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("WEBDEDUP_SHARED_DATA", ROOT.parent / "shared" / "data"))
FIXTURES = ROOT / "fixtures"

PAGE_COLUMNS = ("url", "title", "content", "datetime", "crawled", "category")
#: The output columns webdedup writes onto pages (the specification, pinned here on purpose).
OUTPUT = (
    "canonical_url",
    "content_hash",
    "exact_group_size",
    "dup_group",
    "dup_group_size",
    "canonical_id",
    "is_canonical",
    "dup_kind",
    "dup_score",
)


@cache
def real_texts(limit: int = 400, min_words: int = 80) -> tuple[dict[str, str], ...]:
    """Real extracted page texts (distinct, long enough) from ../shared/data/texts.jsonl.gz."""
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    with gzip.open(SHARED_DATA / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            text = rec["text"]
            key = " ".join(text.split())[:200]
            if len(text.split()) < min_words or key in seen:
                continue
            seen.add(key)
            out.append({"url": rec.get("url") or "", "text": text})
            if len(out) >= limit:
                break
    return tuple(out)


def normalized_texts(
    n: int, *, min_words: int = 0, step: int = 1, max_chars: int | None = None
) -> list[str]:
    """The first ``n`` real texts (every ``step``-th line of texts.jsonl.gz) with at least
    ``min_words`` words, normalized as webdedup does (cut to ``max_chars`` if given)."""
    from webdedup.algorithms.text import normalize_text

    out: list[str] = []
    with gzip.open(SHARED_DATA / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i % step:
                continue
            text = normalize_text(json.loads(line)["text"])
            if len(text.split()) >= min_words:
                out.append(text[:max_chars] if max_chars else text)
                if len(out) == n:
                    break
    return out


def make_page(url: str, content: str | None = "some text", **extra: Any) -> dict[str, Any]:
    """A page dict as a crawler would store it."""
    page: dict[str, Any] = {"url": url, "content": content}
    page.update(extra)
    return page


def write_pages(
    path: Path,
    pages: Iterable[dict[str, Any]],
    *,
    integer_pk: bool = True,
    table: str = "pages",
    columns: tuple[str, ...] = PAGE_COLUMNS,
) -> Path:
    """Create ``table`` in the SQLite file ``path`` and insert ``pages`` (ids from 1)."""
    conn = sqlite3.connect(path)
    cols = ", ".join(f'"{c}" TEXT' for c in columns)
    pk = "id INTEGER PRIMARY KEY, " if integer_pk else ""
    conn.execute(f'CREATE TABLE "{table}" ({pk}{cols})')
    rows = [tuple(p.get(c) for c in columns) for p in pages]
    placeholders = ", ".join("?" * len(columns))
    names = ", ".join(f'"{c}"' for c in columns)
    conn.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({placeholders})', rows)
    conn.commit()
    conn.close()
    return path


def dump(path: Path) -> list[str]:
    """Every statement that recreates the database (schema and rows), for byte-level checks."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def annotations(path: Path, table: str = "pages") -> dict[int, tuple[Any, ...]]:
    """``{rowid: (the OUTPUT columns)}`` of a table."""
    conn = sqlite3.connect(path)
    try:
        cols = ", ".join(OUTPUT)
        return {r[0]: tuple(r[1:]) for r in conn.execute(f'SELECT rowid, {cols} FROM "{table}"')}
    finally:
        conn.close()


@pytest.fixture
def checkpoints_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The checkpoints each batched write made beside it (phase5_write_back._Checkpointer),
    one number a write, appended when the write closes its checkpointer."""
    from webdedup.pipeline import phase5_write_back

    made: list[int] = []

    class Counted(phase5_write_back._Checkpointer):
        def close(self, quiet: bool = False) -> None:
            super().close(quiet)
            made.append(self.checkpoints)

    monkeypatch.setattr(phase5_write_back, "_Checkpointer", Counted)
    return made


@pytest.fixture
def db_builder(tmp_path: Path) -> Callable[..., Path]:
    """``db_builder(pages, name="crawl.sqlite", **kw)`` -> path of a new crawl database."""

    def build(pages: Iterable[dict[str, Any]], name: str = "crawl.sqlite", **kw: Any) -> Path:
        return write_pages(tmp_path / name, pages, **kw)

    return build


@pytest.fixture
def texts() -> tuple[dict[str, str], ...]:
    return real_texts()


def crawl_with_duplicates(n_originals: int = 40) -> list[dict[str, Any]]:
    """Real texts plus real-world URL variants, exact copies and re-crawls of them."""
    pages: list[dict[str, Any]] = []
    for i, rec in enumerate(real_texts()[:n_originals]):
        base = f"https://site{i % 7}.example.org/articles/{i}"
        text = rec["text"]
        pages.append(make_page(base, text, title=f"Article {i}", datetime="2024-03-01T10:00:00Z"))
        if i % 3 == 0:  # URL variant with tracking parameters, older crawl
            pages.append(
                make_page(
                    base.replace("https://", "http://www.") + "/?utm_source=feed&fbclid=abc",
                    text,
                    crawled="2024-02-01",
                )
            )
        if i % 4 == 0:  # exact mirror on another host, whitespace and case changed
            pages.append(make_page(f"https://mirror.example.net/copy/{i}", text.upper() + "  \n"))
        if i % 5 == 0:  # re-crawl of the same URL with a changed counter
            pages.append(make_page(base + "#comments", text + " 12 comments", crawled="2024-03-02"))
        if i % 9 == 0:
            pages.append(make_page(f"https://site{i}.example.org/empty", "   "))
    return pages
