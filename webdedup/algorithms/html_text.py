"""Main-text extraction from HTML with trafilatura (used when a page has HTML but no text)."""

from __future__ import annotations

import logging


def extract_text(html: str | bytes | None) -> str:
    """The main text of an HTML page, or ``""`` when trafilatura finds none.

    Example::

        >>> page = "<html><body><article><p>" + "Hello world. " * 20 + "</p></article></html>"
        >>> extract_text(page)[:11]
        'Hello world'
    """
    if not html:
        return ""
    import trafilatura  # imported lazily: it is slow to import and rarely needed here

    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    try:
        text = trafilatura.extract(html, include_comments=False, favor_recall=True)
    except ImportError:  # a broken installation, not a broken page: stop the run
        raise
    except Exception:  # noqa: BLE001 - a broken page must not stop a run
        return ""
    return text or ""
