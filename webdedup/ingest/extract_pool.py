"""Text, title and date extraction with trafilatura, spread over a process pool.

The options match :func:`webdedup.extract.extract_text` (``favor_recall``, no comments), so
a page ingested here has the text the ``db`` phases would have extracted from its HTML.

Example::

    >>> page = "<html><head><title>Hi</title></head><body><article><p>" + "Hello world. " * 20
    >>> text, title, date = extract_one((page, None, False))
    >>> (text[:11], title)
    ('Hello world', 'Hi')
    >>> with Extractor(workers=1) as ex:
    ...     [r[1] for r in ex.map([(page, None, False)])]
    ['Hi']
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import re
from collections.abc import Iterable, Iterator
from multiprocessing.pool import Pool
from types import TracebackType

from ..parallel import start_worker

_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")

# (html decoded to text by .charset.decode_html, url, want the page's own date)
Job = tuple[str, "str | None", bool]
# (text, title, page date)
Result = tuple[str, "str | None", "str | None"]


def _quiet() -> None:
    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    logging.getLogger("htmldate").setLevel(logging.CRITICAL)


def extract_one(job: Job) -> Result:
    """Extract ``(text, title, date)`` from one page; ``("", None, None)`` when nothing found.

    The date is looked for only when asked (it costs time and a WARC record has its own).
    """
    html, url, want_date = job
    if not html:
        return "", None, None
    import trafilatura

    _quiet()
    try:
        doc = trafilatura.bare_extraction(
            html,
            url=url,
            favor_recall=True,
            include_comments=False,
            with_metadata=True,
            date_extraction_params={"extensive_search": want_date, "original_date": True},
        )
    except Exception:  # noqa: BLE001 - a broken page must not stop an ingest
        return "", None, None
    if doc is None:
        return "", _title_only(html), None
    text = getattr(doc, "text", None) or ""
    title = getattr(doc, "title", None) or _title_only(html)
    date = getattr(doc, "date", None) if want_date else None
    return text, title, date


def _title_only(html: str) -> str | None:
    """The ``<title>`` of a page trafilatura gave up on."""
    try:
        import lxml.html

        # lxml refuses text that starts with an XML declaration naming an encoding
        tree = lxml.html.fromstring(_XML_DECLARATION.sub("", html, count=1))
        title = tree.findtext(".//title")
    except Exception:  # noqa: BLE001 - unparseable HTML has no title
        return None
    title = " ".join((title or "").split())
    return title or None


def _init_worker(parent: int) -> None:
    start_worker(parent)  # a killed ingest leaves no extraction worker behind
    import trafilatura  # noqa: F401 - import once per worker, not per page

    _quiet()


class Extractor:
    """A pool of ``workers`` processes (0 = all cores; 1 = in this process, no pool)."""

    def __init__(self, workers: int = 0) -> None:
        if workers < 0:
            raise ValueError("workers must be 0 (all cores) or a positive number")
        self.workers = workers or os.cpu_count() or 1
        self._pool: Pool | None = None

    def __enter__(self) -> Extractor:
        if self.workers > 1:
            self._pool = multiprocessing.get_context().Pool(
                self.workers, initializer=_init_worker, initargs=(os.getpid(),)
            )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._pool is not None:
            if exc_type is None:
                self._pool.close()
            else:
                self._pool.terminate()
            self._pool.join()
            self._pool = None

    def map(self, jobs: Iterable[Job]) -> Iterator[Result]:
        """Results in the order of ``jobs``."""
        if self._pool is None:
            return map(extract_one, jobs)
        return self._pool.imap(extract_one, jobs, chunksize=2)
