"""Build the bundled sample crawl from the real WARCs of /work/shared/data/warc.

Writes ``fixtures/sample-crawl.warc.gz`` (real records copied byte for byte, located with warcio:
HTML responses with URL variants and exact duplicates, revisits, natural near-duplicates (two
pairs of archive.org forum pages of 2008 where one page shows the other's post in its thread),
and a few redirects, 404s and non-HTML records so the skip counts show), then three **derived**
copies of one real article (data.gov.uk's "open data vision" blog post of 2014), generated here
and labelled as such: a syndicated copy in another site's template, a print view and an edited
re-post. They live on ``*.example.org`` hosts and carry ``WARC-Webdedup-Derived-From`` (the
original's URL) and ``WARC-Webdedup-Derivation`` (what was done) headers, so that the demo shows
near-duplicates of an article and nobody mistakes them for crawled pages. Then
``fixtures/sample-crawl.jsonl.gz`` (the pages of that WARC after ``webdedup ingest``: url,
title, content, datetime, crawled), so tests of the db phases can load pages without parsing
WARC. The output is deterministic.

Usage::

    python scripts/build_fixtures.py [--data /work/shared/data/warc] [--out fixtures]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import sqlite3
import tempfile
import uuid
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

import lxml.html
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

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
    # natural near-duplicates: the forum posts 191024 and 191031 (among the pages above) show
    # these two posts in their threads
    ("aut-2008-crawl.warc.gz", lambda r: html_ok(r) and _url(r).endswith(
        ("post-view.php?id=191025", "post-view.php?id=191026")), 2),
]

#: The real article the derived copies are made of (a response of datagovuk-crawl1).
DERIVED_SOURCE = ("datagovuk-crawl1.warc.gz", "http://data.gov.uk/blog/open-data-vision-leeds")
DERIVED_TITLE = "Open data vision: Leeds"


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


def _paragraphs(html: bytes) -> list[str]:
    """The article's paragraphs (``<p>`` of 12+ words; the last one is a reader's comment)."""
    tree = lxml.html.fromstring(html)
    paras = [" ".join(p.text_content().split()) for p in tree.iter("p")]
    return [p for p in paras if len(p.split()) >= 12][:-1]


def _page(title: str, body: str) -> bytes:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title></head>\n<body>\n{body}\n</body></html>\n"
    ).encode()


def _ps(paras: list[str]) -> str:
    return "\n".join(f"<p>{escape(p)}</p>" for p in paras)


def derived_pages(source_url: str, paras: list[str]) -> list[tuple[str, str, bytes]]:
    """``(url, what was done, HTML)`` of the three derived copies of the article."""
    syndicated = _page(
        f"{DERIVED_TITLE} | City Data News",
        '<header><a href="/">City Data News</a> <nav>Home | Regions | Events | Jobs | About us'
        "</nav></header>\n<main><article>"
        f"<h1>{DERIVED_TITLE}</h1><p class=byline>Syndicated from data.gov.uk</p>\n"
        f"{_ps(paras)}\n<p>This article first appeared on data.gov.uk and is republished "
        "with permission.</p></article></main>\n<aside><h2>More from City Data News</h2>"
        "<ul><li>Open data in Manchester</li><li>Bristol's data hub</li></ul></aside>\n"
        "<footer>City Data News, a demo site of webdedup's sample crawl</footer>",
    )
    printed = _page(
        f"{DERIVED_TITLE} (print view)",
        f"<h1>{DERIVED_TITLE}</h1>\n<p>Printed from {escape(source_url)}</p>\n{_ps(paras)}",
    )
    edited = list(paras[:-2]) + [paras[-1]]  # one paragraph cut
    edited[0] = edited[0].replace("Leeds is a fabulous city", "Leeds is a great city", 1)
    edited.append("Editor's note: this post was shortened and re-posted from data.gov.uk.")
    repost = _page(
        f"{DERIVED_TITLE} (re-post)",
        f"<div id=content><h1>{DERIVED_TITLE}</h1>\n{_ps(edited)}</div>",
    )
    return [
        ("http://syndicated.example.org/news/open-data-vision-leeds",
         "syndicated copy: the article's paragraphs in another site's template", syndicated),
        ("http://print-view.example.org/data.gov.uk/blog/open-data-vision-leeds",
         "print view: the article's paragraphs without the site's template", printed),
        ("http://repost.example.org/2014/03/leeds-open-data",
         "edited re-post: one paragraph cut, a few words changed, an editor's note added", repost),
    ]


def append_derived(data: Path, out: Path) -> int:
    """Append the derived copies of :data:`DERIVED_SOURCE` to ``out``; returns how many."""
    name, url = DERIVED_SOURCE
    with (data / name).open("rb") as src:
        for rec in ArchiveIterator(src):
            if rec.rec_type == "response" and _url(rec) == url:
                html, date = rec.content_stream().read(), rec.rec_headers.get_header("WARC-Date")
                break
        else:
            raise SystemExit(f"{url} is not in {name}")
    pages = derived_pages(url, _paragraphs(html))
    with out.open("ab") as fh:
        writer = WARCWriter(fh, gzip=True)
        for target, how, body in pages:
            http = StatusAndHeaders(
                "200 OK",
                [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))],
                protocol="HTTP/1.1",
            )
            headers = {
                # the same date as the original, and a record id fixed by the URL: the
                # output stays byte-for-byte the same from one build to the next
                "WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, target)}>",
                "WARC-Date": date,
                "WARC-Webdedup-Derived-From": url,
                "WARC-Webdedup-Derivation": how + " (generated by scripts/build_fixtures.py)",
            }
            record = writer.create_warc_record(
                target, "response", payload=io.BytesIO(body), http_headers=http,
                warc_headers_dict=headers,
            )
            writer.write_record(record)
    return len(pages)


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
    append_derived(args.data, warc)
    size = warc.stat().st_size
    if size > MAX_BYTES:
        raise SystemExit(f"{warc} is {size:,} bytes, over the {MAX_BYTES:,} budget")
    pages = build_jsonl(warc, args.out / "sample-crawl.jsonl.gz")
    print(f"{warc}: {size:,} bytes; {pages} pages in sample-crawl.jsonl.gz")


if __name__ == "__main__":
    main()
