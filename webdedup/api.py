"""The Python API: :class:`Deduplicator`, the names crawler code already uses."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from .config import Config
from .errors import ConfigError
from .pipeline.context import PhaseHook
from .pipeline.in_memory import run_on_list
from .pipeline.run import RunResult, run_on_db


class Deduplicator:
    """Find URL, exact and near-duplicate pages and elect one canonical page per group.

    Example::

        >>> d = Deduplicator(threshold=0.9, urls_to_ignore=["tag"])
        >>> d.urls_to_ignore.append("/search")      # an editable attribute
        >>> rows = d.run_on_list([
        ...     {"url": "http://example.com/a?utm_source=x", "content": "Same text"},
        ...     {"url": "https://www.example.com/a", "content": "Same text"},
        ...     {"url": "https://example.com/tag/python", "content": "Other text"},
        ... ])
        >>> [(r["id"], r["dup_kind"], r["canonical_id"]) for r in rows]
        [(1, 'url', 2), (2, None, 2), (3, 'ignored', None)]

    (page 2 is canonical: ``https`` wins the election.) ``run_on_db("crawl.sqlite")`` does
    the same on the crawler's ``pages`` table and writes the output columns onto it in one
    transaction.

    ``threshold``, ``distance``, ``discard_params``, ``n_min``, ``method`` and
    ``urls_to_ignore`` default to the values of ``config`` (or of :class:`Config`: 0.9, 50,
    False, 0, ``"minhash"``, none); a value given here wins over ``config``'s.
    """

    def __init__(
        self,
        threshold: float | None = None,
        distance: int | None = None,
        discard_params: bool | None = None,
        n_min: int | None = None,
        method: str | None = None,
        urls_to_ignore: Iterable[str] | None = None,
        *,
        config: Config | None = None,
        progress: bool = False,
        on_phase: PhaseHook | None = None,
        **options: Any,
    ) -> None:
        base = config or Config()
        self.threshold = base.threshold if threshold is None else threshold
        self.distance = base.distance if distance is None else distance
        self.discard_params = base.discard_params if discard_params is None else discard_params
        self.n_min = base.n_min if n_min is None else n_min
        self.method = base.method if method is None else method
        if isinstance(urls_to_ignore, str):
            raise ConfigError(
                f"urls_to_ignore must be a list of patterns, not the string {urls_to_ignore!r}"
            )
        self.urls_to_ignore: list[str] = list(
            urls_to_ignore if urls_to_ignore is not None else base.urls_to_ignore
        )
        self.progress = progress
        self.on_phase = on_phase
        self._base = base
        self._options = dict(options)
        self.build_config()  # fail early on a bad parameter

    def build_config(self) -> Config:
        """The frozen :class:`Config` of the current attribute values."""
        known = {f.name for f in fields(Config)}
        unknown = sorted(set(self._options) - known)
        if unknown:
            raise ConfigError(
                f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return self._base.with_overrides(
            threshold=self.threshold,
            distance=self.distance,
            discard_params=self.discard_params,
            n_min=self.n_min,
            method=self.method,
            urls_to_ignore=tuple(self.urls_to_ignore),
            **self._options,
        )

    def run_on_db(
        self,
        db: str | Path | sqlite3.Connection,
        *,
        prune: bool = False,
        full: bool = False,
        on_message: Callable[[str], None] | None = None,
    ) -> RunResult:
        """Run on a crawl database (a path or an open connection); annotate its ``pages``.

        The first run is full; later runs process only what changed since (incremental),
        unless ``full=True`` or the parameters that shape signatures and edges changed.
        ``on_message`` receives a line saying which kind of run it is and why. With
        ``prune=True`` the non-canonical rows are moved to ``_webdedup_pruned``
        (``webdedup restore`` puts them back).
        """
        return run_on_db(
            db,
            self.build_config(),
            prune=prune,
            full=full,
            progress=self.progress,
            on_phase=self.on_phase,
            on_message=on_message,
        )

    def run_on_list(self, pages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Run on page dicts (keys as the column names: ``url``, ``content``, ...).

        Returns one dict per page, in input order, with ``id`` (the page's ``id`` or its
        1-based position), the output columns of ``run_on_db`` and ``ignored`` (why a page
        was left out, else None). The same pipeline runs on an in-memory SQLite database.
        """
        return run_on_list(pages, self.build_config())
