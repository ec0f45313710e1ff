"""Decoding real pages before extraction: HTTP charset, then <meta>, then detection.

The pages are real responses of ../shared/data/warc/commoncrawl-sample.warc.gz: a GBK page
that declares its charset only in a <meta> tag (it used to be stored as mojibake), a
windows-1251 page, a gb2312 page, a windows-1252 page. (The 600 saved pages of
../shared/data/html are all UTF-8; none is GBK, Shift-JIS or windows-1251.)
"""

from __future__ import annotations

import json
import re
import sqlite3
from functools import cache
from pathlib import Path

from conftest import SHARED_DATA
from warcio.archiveiterator import ArchiveIterator

from webdedup.ingest import ingest
from webdedup.ingest.charset import declared_charsets, decode_html, detect_charset

SAMPLE = SHARED_DATA / "warc" / "commoncrawl-sample.warc.gz"
GBK_URL = "http://041696.com/15477/list_6_4.html"  # <meta charset=gbk>, no HTTP charset
GBK_TITLE = "上海特舟实业有限公司"
CP1251_URL = "http://01spb.ru/company/"  # windows-1251 in the header and the <meta>
CP1251_TITLE = "О компании - Стратегия пожарной безопасности"
GB2312_URL = "http://037426.cn/"
CP1252_URL = "http://06.live-radsport.ch/tippspiel/stats_140_petzi.html"  # <meta> only


@cache
def record(url: str) -> tuple[bytes, str]:
    """The HTTP body and Content-Type of the real response for ``url``."""
    with SAMPLE.open("rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_type == "response" and rec.rec_headers.get_header("WARC-Target-URI") == url:
                return rec.content_stream().read(), rec.http_headers.get_header("Content-Type")
    raise LookupError(url)


def title_of(html: str) -> str:
    found = re.search(r"<title>(.*?)</title>", html, re.IGNORECASE | re.DOTALL)
    assert found, "no <title>"
    return " ".join(found.group(1).split())


def without_meta_charset(body: bytes) -> bytes:
    return re.sub(rb"<meta[^>]*charset[^>]*>", b"", body, flags=re.IGNORECASE)


def test_meta_charset_decodes_the_gbk_demo_page() -> None:
    body, ctype = record(GBK_URL)
    assert ctype == "text/html" and declared_charsets(body, ctype) == ["gb18030"]
    html = decode_html(body, ctype)
    assert "\ufffd" not in html
    assert "上海" in html and "ÉĎşŁ" not in html  # what it was stored as before


def test_http_charset_and_meta_decode_cyrillic_and_chinese() -> None:
    body, ctype = record(CP1251_URL)
    assert "windows-1251" in ctype
    assert title_of(decode_html(body, ctype)) == CP1251_TITLE
    body, ctype = record(GB2312_URL)
    assert "亚洲" in title_of(decode_html(body, ctype))


def test_the_http_header_wins_over_the_meta_tag() -> None:
    body, _ = record(CP1252_URL)  # <meta> says iso-8859-1 (read as windows-1252)
    assert declared_charsets(body) == ["cp1252"]
    assert decode_html(body, "text/html; charset=iso-8859-15") == body.decode("iso-8859-15")
    # a header whose strict decoding fails gives way to the <meta> that decodes cleanly
    gbk, _ = record(GBK_URL)
    assert decode_html(gbk, "text/html; charset=utf-8") == gbk.decode("gb18030")


def test_detection_when_a_real_page_declares_nothing() -> None:
    body, _ = record(CP1251_URL)
    bare = without_meta_charset(body)
    assert declared_charsets(bare, "text/html") == []
    assert detect_charset(bare) == "cp1251"
    assert title_of(decode_html(bare, "text/html")) == CP1251_TITLE
    gbk = without_meta_charset(record(GBK_URL)[0])
    assert "上海" in decode_html(gbk, None)


def test_warc_ingest_stores_the_gbk_page_readable(tmp_path: Path) -> None:
    db = tmp_path / "cc.sqlite"
    ingest(db, [SAMPLE], workers=1, keep_html=True)
    with sqlite3.connect(db) as conn:
        rows = {u: (t, c, h) for u, t, c, h in conn.execute(
            "SELECT url, title, content, html FROM pages")}
    title, content, html = rows[GBK_URL]
    assert title == GBK_TITLE and "香港" in content and "上海" in html
    assert rows[CP1251_URL][0] == CP1251_TITLE and "компании" in rows[CP1251_URL][1]


def test_html_folder_and_jsonl_ingest_decode_once(tmp_path: Path) -> None:
    body, _ = record(GBK_URL)
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "page.html").write_bytes(body)  # a saved file: no HTTP header, only the <meta>
    (folder / "page.url").write_text(GBK_URL, encoding="utf-8")
    # JSONL carries HTML as text already: its <meta charset=gbk> must not decode it again
    jsonl = tmp_path / "pages.jsonl"
    line = {"url": GBK_URL + "?copy", "html": body.decode("gb18030")}
    jsonl.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    db = tmp_path / "f.sqlite"
    ingest(db, [folder, jsonl], workers=1)
    with sqlite3.connect(db) as conn:
        titles = dict(conn.execute("SELECT url, title FROM pages"))
    assert titles == {GBK_URL: GBK_TITLE, GBK_URL + "?copy": GBK_TITLE}
