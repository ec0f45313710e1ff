"""Decoding a page's HTML bytes to text, before extraction: the one place ingestion does it.

The order is the browsers' (WHATWG "encoding sniffing", simplified): a byte-order mark, then
the charset of the HTTP ``Content-Type`` header, then a ``<meta charset>`` or
``<meta http-equiv="Content-Type" content="...; charset=...">`` among the first
:data:`PRESCAN_BYTES` bytes, then detection. A declared charset whose strict decoding fails
gives way to the next declared one that decodes cleanly (a server's ``ISO-8859-1`` default over
a page that says ``utf-8``); when none does, the first is used with replacement characters.
Labels map as browsers map them (``gb2312``/``gbk`` -> ``gb18030``, ``iso-8859-1`` ->
``windows-1252``, ``shift_jis`` -> ``cp932``...). Without a declaration, bytes that are valid
UTF-8 are UTF-8; anything else goes to charset-normalizer's detector.

Example::

    >>> page = '<meta charset="gbk"><title>上海</title>'.encode("gbk")
    >>> decode_html(page)
    '<meta charset="gbk"><title>上海</title>'
    >>> decode_html("<p>Café</p>".encode("cp1252"), "text/html; charset=windows-1252")
    '<p>Café</p>'
    >>> declared_charsets(b'<meta http-equiv="content-type" content="text/html;charset=Shift_JIS">')
    ['cp932']
"""

from __future__ import annotations

import codecs
import re

#: Bytes of the page searched for a ``<meta>`` charset (browsers look at 1,024; pages with
#: long head scripts put it later, so a little more).
PRESCAN_BYTES = 4096
#: Bytes handed to the detector (enough to tell the encoding, cheap on a huge page).
DETECT_BYTES = 65536

_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?\s*([^\s;\"',]+)", re.IGNORECASE)
_META = re.compile(rb"<meta\b[^>]*?>", re.IGNORECASE | re.DOTALL)
_META_CHARSET = re.compile(rb"charset\s*=\s*[\"']?\s*([a-z0-9_.:+-]+)", re.IGNORECASE)

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

#: Labels decoded as browsers decode them (a superset of what the label names).
_BROWSER_LABELS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "chinese": "gb18030",
    "csgb2312": "gb18030",
    "iso-ir-58": "gb18030",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "iso-8859-9": "cp1254",
    "latin5": "cp1254",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "big5": "big5hkscs",
    "tis-620": "cp874",
    "iso-8859-11": "cp874",
    # a page can't be UTF-16 if its <meta> is readable as ASCII; browsers read it as UTF-8
    "utf-16": "utf-8",
    "utf-16le": "utf-8",
    "utf-16be": "utf-8",
}


def python_codec(label: str | bytes | None) -> str | None:
    """The Python codec that decodes a charset label as a browser would, or None if unknown.

    >>> python_codec("GBK"), python_codec("utf8"), python_codec("klingon")
    ('gb18030', 'utf-8', None)
    """
    if isinstance(label, bytes):
        label = label.decode("ascii", "ignore")
    name = (label or "").strip().strip("\"'").lower()
    if not name:
        return None
    name = _BROWSER_LABELS.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def header_charset(content_type: str | None) -> str | None:
    """The codec named by an HTTP ``Content-Type`` header's ``charset`` parameter."""
    if not content_type:
        return None
    found = _HEADER_CHARSET.search(content_type)
    return python_codec(found.group(1)) if found else None


def meta_charset(body: bytes) -> str | None:
    """The codec named by the first ``<meta>`` charset among the page's first bytes."""
    for meta in _META.finditer(body[:PRESCAN_BYTES]):
        found = _META_CHARSET.search(meta.group(0))
        if found:
            codec = python_codec(found.group(1))
            if codec:
                return codec
    return None


def declared_charsets(body: bytes, content_type: str | None = None) -> list[str]:
    """The codecs a page declares, in the order they count: HTTP header, then ``<meta>``."""
    out: list[str] = []
    for codec in (header_charset(content_type), meta_charset(body)):
        if codec and codec not in out:
            out.append(codec)
    return out


def detect_charset(body: bytes) -> str | None:
    """The codec charset-normalizer finds most likely for bytes with no declaration."""
    from charset_normalizer import from_bytes

    best = from_bytes(body[:DETECT_BYTES]).best()
    return python_codec(best.encoding) if best is not None else None


def decode_html(body: bytes | str, content_type: str | None = None) -> str:
    """The text of a page's HTML bytes: BOM, HTTP charset, ``<meta>`` charset, detection.

    ``content_type`` is the HTTP ``Content-Type`` header (None when the page came without one,
    as a saved file does). Never raises: undecodable bytes become U+FFFD.
    """
    if isinstance(body, str):
        return body
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom):].decode(codec, "replace")
    declared = declared_charsets(body, content_type)
    for codec in declared:
        try:
            return body.decode(codec)
        except UnicodeDecodeError:
            continue
    if declared:
        return body.decode(declared[0], "replace")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    return body.decode(detect_charset(body) or "utf-8", "replace")
