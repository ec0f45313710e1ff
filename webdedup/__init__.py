"""webdedup: find duplicate and near-duplicate web pages in an SQLite crawl.

Example::

    >>> from webdedup import Deduplicator
    >>> Deduplicator(threshold=0.9).run_on_db("crawl.sqlite")  # doctest: +SKIP
"""

from __future__ import annotations

from .api import Deduplicator
from .config import Columns, Config
from .errors import WebdedupError
from .pipeline.run import RunResult
from .version import __version__

__all__ = ["Columns", "Config", "Deduplicator", "RunResult", "WebdedupError", "__version__"]
