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
import os
import re
from collections.abc import Iterable, Iterator
from types import TracebackType

from ..parallel import WorkerPool

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
    except ImportError:  # a broken installation, not a broken page: stop (WorkerFailed)
        raise
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


def extraction_setup() -> None:
    """Import the extraction stack (trafilatura, and through it jusText and lxml's cleaner).

    Run once by every extraction worker, and in this process before extracting here: a
    module missing from the installation stops the ingest at once with
    :class:`~webdedup.errors.WorkerFailed` instead of failing page by page.
    """
    import trafilatura  # noqa: F401 - imported once per worker, not per page
    import trafilatura.external  # noqa: F401 - jusText, which imports lxml_html_clean

    _quiet()


class Extractor:
    """A pool of ``workers`` processes (0 = all cores; 1 = in this process, no pool)."""

    def __init__(self, workers: int = 0) -> None:
        if workers < 0:
            raise ValueError("workers must be 0 (all cores) or a positive number")
        self.workers = workers or os.cpu_count() or 1
        self._pool = WorkerPool(self.workers, extraction_setup, "text extraction worker")

    def __enter__(self) -> Extractor:
        self._pool.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._pool.__exit__(exc_type, exc, tb)

    def map(self, jobs: Iterable[Job]) -> Iterator[Result]:
        """Results in the order of ``jobs``."""
        return self._pool.map(extract_one, ((job,) for job in jobs))
