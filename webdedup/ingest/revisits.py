"""Resolve WARC revisit records to the response they refer to.

A revisit says "same payload as an earlier capture" and carries no body. It is matched to
that capture by ``WARC-Refers-To`` (record id), else ``WARC-Refers-To-Target-URI`` with
``WARC-Refers-To-Date``, else by equal ``WARC-Payload-Digest`` (the same URL first). It then
becomes a page of its own, with its own URL and date and the original's text, so the exact
duplicate phase groups it with the original.

Example::

    >>> orig = RawPage("http://a.org/", "<r1>", "f", text="Hi", title="A",
    ...                payload_digest="sha1:X", crawled="2014-01-01T00:00:00Z")
    >>> rev = RawPage("http://a.org/", "<r2>", "f", kind="revisit", payload_digest="sha1:X")
    >>> index = RevisitIndex()
    >>> index.add(orig)
    >>> index.find(rev).text
    'Hi'
"""

from __future__ import annotations

from typing import Any

from .model import RawPage


class RevisitIndex:
    """The responses of the file being read, by record id, URL + date, and payload digest."""

    def __init__(self) -> None:
        self.by_id: dict[str, RawPage] = {}
        self.by_uri_date: dict[tuple[str, str], RawPage] = {}
        self.by_digest: dict[str, list[RawPage]] = {}

    def add(self, page: RawPage) -> None:
        if page.warc_record_id:
            self.by_id.setdefault(page.warc_record_id, page)
        if page.crawled:
            self.by_uri_date.setdefault((page.url, page.crawled), page)
        if page.payload_digest:
            self.by_digest.setdefault(page.payload_digest, []).append(page)

    def find(self, revisit: RawPage) -> RawPage | None:
        """The response ``revisit`` refers to, when it is in this index."""
        if revisit.refers_to and revisit.refers_to in self.by_id:
            return self.by_id[revisit.refers_to]
        if revisit.refers_to_date:
            uri = revisit.refers_to_uri or revisit.url
            hit = self.by_uri_date.get((uri, revisit.refers_to_date))
            if hit is not None:
                return hit
        if revisit.payload_digest:
            same = self.by_digest.get(revisit.payload_digest, [])
            for page in same:
                if page.url == (revisit.refers_to_uri or revisit.url):
                    return page
            if same:
                return same[0]
        return None


def copy_original(revisit: RawPage, original: RawPage | dict[str, Any]) -> None:
    """Give ``revisit`` the text, title and HTML of ``original`` (a page or stored fields)."""
    if isinstance(original, RawPage):
        revisit.text = original.text
        revisit.title = original.title
        revisit.extraction = original.extraction
        revisit.html = original.html
        revisit.content_type = revisit.content_type or original.content_type
    else:
        revisit.text = original.get("content") or ""
        revisit.title = original.get("title")
        revisit.extraction = original.get("extraction") or ("ok" if revisit.text else "empty")
        html = original.get("html")
        revisit.html = html if isinstance(html, str) else None
        revisit.content_type = revisit.content_type or original.get("content_type")
