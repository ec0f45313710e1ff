"""webdedup: find duplicate and near-duplicate web pages in an SQLite crawl.

Example::

    >>> from webdedup import Deduplicator
    >>> Deduplicator(threshold=0.9).run_on_db("crawl.sqlite")  # doctest: +SKIP
"""

from __future__ import annotations

__version__ = "0.1.0"

from .config import Columns, Config  # noqa: E402
from .dedup import Deduplicator  # noqa: E402
from .errors import WebdedupError  # noqa: E402
from .pipeline import RunResult  # noqa: E402

__all__ = ["Columns", "Config", "Deduplicator", "RunResult", "WebdedupError", "__version__"]
