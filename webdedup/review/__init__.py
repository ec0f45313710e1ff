"""``webdedup review``: a local app to review duplicate groups and record verdicts.

:mod:`.app` renders the pages from webdedup's own SQL (``sql/review/``) and records verdicts
(:mod:`webdedup.store.verdicts`); :mod:`.server` serves it with the standard library's HTTP
server on 127.0.0.1. It sits beside :mod:`webdedup.output` (whose review-page pieces and
pictures it reuses) and below the CLI.

Example::

    >>> from webdedup.review import serve
    >>> serve("crawl.sqlite", port=8321)  # doctest: +SKIP
"""

from __future__ import annotations

from .app import Filters, Response, ReviewApp
from .server import serve

__all__ = ["Filters", "ReviewApp", "Response", "serve"]
