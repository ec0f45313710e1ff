"""Build the bundled sample crawl from the real WARCs of /work/shared/data/warc.

Writes ``fixtures/sample-crawl.warc.gz`` (real records copied byte for byte, located with warcio:
HTML responses with URL variants and exact duplicates, revisits, and a few redirects, 404s and
non-HTML records so the skip counts show) and ``fixtures/sample-crawl.jsonl.gz`` (the pages
of that WARC after ``webdedup ingest``: url, title, content, datetime, crawled), so tests of
the db phases can load pages without parsing WARC. The output is deterministic.

Usage::

    python scripts/build_fixtures.py [--data /work/shared/data/warc] [--out fixtures]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warcio.archiveiterator import ArchiveIterator

from webdedup.ingest import ingest

MAX_BYTES = 1_500_000


def _status(rec: Any) -> int:
    try:
        return int(rec.http_headers.get_statuscode()) if rec.http_headers else 0
    except ValueError:
        return 0


def _ctype(rec: Any) -> str:
    return (rec.http_headers.get_header("Content-Type") or "") if rec.http_headers else ""


def _url(rec: Any) -> str:
    return rec.rec_headers.get_header("WARC-Target-URI") or ""


def is_html(rec: Any) -> bool:
    return "html" in _ctype(rec).lower()


def html_ok(rec: Any) -> bool:
    return rec.rec_type == "response" and 200 <= _status(rec) < 300 and is_html(rec)


# (file, selector, at most N records) in output order; the selectors keep the records whose
# duplicates matter (crawl1 before the crawl2 revisits that point at it by digest).
Selector = Callable[[Any], bool]
PLAN: list[tuple[str, Selector, int]] = [
    ("datagovuk-crawl1.warc.gz", html_ok, 32),
    ("datagovuk-crawl1.warc.gz", lambda r: r.rec_type == "response" and _status(r) >= 300, 3),
    ("datagovuk-crawl2.warc.gz", lambda r: r.rec_type in ("response", "revisit")
     and is_html(r), 40),
    ("datagovuk-crawl2.warc.gz", lambda r: r.rec_type == "revisit" and not is_html(r), 3),
    ("aut-http-https-revisits.warc", lambda r: r.rec_type in ("response", "revisit"), 20),
    ("iana-revisits.warc.gz", lambda r: html_ok(r) and _url(r) in (
        "http://www.iana.org/", "http://www.iana.org/about", "http://www.iana.org/domains"), 3),
    ("iana-dupes.warc.gz", lambda r: r.rec_type in ("response", "revisit"), 20),
    ("wikipedia-blackout.warc.gz", html_ok, 1),
    ("wikipedia-post-blackout.warc.gz", html_ok, 1),
    ("shop-sort-variants.warc.gz", html_ok, 8),
    ("commoncrawl-sample.warc.gz", html_ok, 6),
    ("aut-2008-crawl.warc.gz", html_ok, 14),
    ("aut-2008-crawl.warc.gz", lambda r: r.rec_type == "response" and 300 <= _status(r) < 500,
     5),
    ("aut-2008-crawl.warc.gz", lambda r: r.rec_type == "response" and _status(r) == 200
     and not is_html(r) and (r.length or 0) < 4000, 3),
]


def build_warc(data: Path, out: Path) -> None:
    """Copy the chosen records byte for byte, one gzip member each.

    warcio's ``WARCWriter.write_record`` re-serializes a record (WARC version line, HTTP
    headers, Content-Length), which breaks the block digest of the ClueWeb shop records; so
    warcio only locates the records and their bytes are copied unchanged.
    """
    with out.open("wb") as fh:
        for name, keep, limit in PLAN:
            n = 0
            src_path = data / name
            with src_path.open("rb") as src:
                gz = src.read(2) == b"\x1f\x8b"
                src.seek(0)
                chosen: list[tuple[int, int]] = []
                it = ArchiveIterator(src)
                for rec in it:
                    if n < limit and keep(rec):
                        rec.content_stream().read()
                        chosen.append((it.get_record_offset(), it.get_record_length()))
                        n += 1
            with src_path.open("rb") as src:
                for offset, length in chosen:
                    src.seek(offset)
                    raw = src.read(length)
                    if not gz:
                        raw = gzip.compress(raw + b"\r\n\r\n", mtime=0)
                    fh.write(raw)


def build_jsonl(warc: Path, out: Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sample.sqlite"
        ingest(db, [warc], workers=2)
        with sqlite3.connect(db) as conn:
            rows = conn.execute(
                "SELECT url, title, content, datetime, crawled FROM pages ORDER BY id"
            ).fetchall()
    keys = ("url", "title", "content", "datetime", "crawled")
    text = "".join(
        json.dumps(dict(zip(keys, row, strict=True)), ensure_ascii=False) + "\n" for row in rows
    )
    with out.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(text.encode("utf-8"))
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/warc"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "fixtures")
    args = parser.parse_args()
    args.out.mkdir(exist_ok=True)
    warc = args.out / "sample-crawl.warc.gz"
    build_warc(args.data, warc)
    size = warc.stat().st_size
    if size > MAX_BYTES:
        raise SystemExit(f"{warc} is {size:,} bytes, over the {MAX_BYTES:,} budget")
    pages = build_jsonl(warc, args.out / "sample-crawl.jsonl.gz")
    print(f"{warc}: {size:,} bytes; {pages} pages in sample-crawl.jsonl.gz")


if __name__ == "__main__":
    main()
