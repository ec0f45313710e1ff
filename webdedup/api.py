"""The Python API: :class:`Deduplicator`, the names crawler code already uses.

It follows the ``Deduplicator`` of Aurélien Pierre's crawler (``core.deduplicator``): the
constructor's ``threshold``, ``distance``, ``discard_params``, ``n_min`` and ``fix_urls``,
an editable ``urls_to_ignore``, ``run_on_db(db, chunksize)``, ``run_on_list(posts)``,
``get_unique_urls``, ``get_unique_content``, ``get_close_content``,
``prepare_posts_parallel`` and ``add_content_hash_column`` — the same names and meanings,
implemented by webdedup's one pipeline (README, "The Deduplicator API").
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from .algorithms.timestamps import parse_timestamp
from .algorithms.urls import IgnoreRules, canonical_host, canonicalize_url, unwrap_archive_url
from .config import Columns, Config
from .errors import ConfigError
from .pipeline.context import PhaseHook
from .pipeline.in_memory import run_on_list
from .pipeline.run import RunResult, run_on_db
from .store import connect
from .store.content_hash import add_content_hash_column

#: How a page joined its group, per ``get_*`` function: pages that joined that way go.
_DROPPED = {
    "urls": ("url", "ignored"),
    "content": ("url", "exact", "ignored"),
}


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

    ``fix_urls`` is accepted for code written for the API this one follows, where it sends
    requests to see whether the ``https`` and ``www.``-less variants of a URL answer. Here
    the canonical URL always unifies ``http``/``https`` and ``www.`` offline (no DNS, no
    request), whatever its value. Given positionally after ``n_min`` (that API's order), a
    ``True``/``False`` in ``method``'s place is taken as ``fix_urls``.
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
        fix_urls: bool = True,
        config: Config | None = None,
        progress: bool = False,
        on_phase: PhaseHook | None = None,
        **options: Any,
    ) -> None:
        if isinstance(method, bool):  # Deduplicator(0.9, 50, True, 0, False): that API's order
            fix_urls, method = method, None
        self.fix_urls = bool(fix_urls)
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
        chunksize: int | None = None,
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
        (``webdedup restore`` puts them back). ``chunksize`` is how many pages phase 1 hands
        to a worker at a time (``Config.chunk_size``, default 256).
        """
        config = self.build_config()
        if chunksize is not None:
            config = config.with_overrides(chunk_size=chunksize)
        return run_on_db(
            db,
            config,
            prune=prune,
            full=full,
            progress=self.progress,
            on_phase=self.on_phase,
            on_message=on_message,
        )

    def run_on_list(
        self, pages: Iterable[Mapping[str, Any]], *, survivors_only: bool = False
    ) -> list[dict[str, Any]]:
        """Run on page dicts (keys as the column names: ``url``, ``content``, ...).

        Returns one dict per page, in input order, with ``id`` (the page's ``id`` or its
        1-based position), the output columns of ``run_on_db``, ``ignored`` (why a page
        was left out, else None) and ``lang``. The same pipeline runs on an in-memory SQLite
        database.

        With ``survivors_only=True``, as the API this one follows returns them: one page per
        group (its canonical), ignored pages left out — each a copy of the given page dict
        with ``url`` replaced by its canonical URL, ``domain`` its host, and the annotations.
        In this mode and in the ``get_*`` methods a page dict with a ``parsed`` key is read
        from ``parsed`` (that API's field for the extracted text; its ``content`` is the raw
        page), unless ``columns`` maps the text to another key.
        """
        if not survivors_only:
            return run_on_list(pages, self.build_config())
        return self._survivors(pages, self.build_config(), lambda row: bool(row["is_canonical"]))

    # -- the rest of the API this one follows ---------------------------------------------
    def get_unique_urls(self, posts: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """One page per canonical URL (the elected one), pages to ignore or without text
        left out. Pages of one text under several URLs all stay (``get_unique_content``)."""
        config = self.build_config().with_overrides(n_min=0)
        return self._survivors(posts, config, lambda r: r["dup_kind"] not in _DROPPED["urls"])

    def get_unique_content(self, posts: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """One page per text (the elected one): exact duplicates after normalization go, and
        so do URL duplicates (this API runs it on ``get_unique_urls``' output anyway)."""
        config = self.build_config().with_overrides(n_min=0)
        return self._survivors(posts, config, lambda r: r["dup_kind"] not in _DROPPED["content"])

    def get_close_content(
        self, posts: Iterable[Mapping[str, Any]], threshold: float = 0.90, distance: int = 50
    ) -> list[dict[str, Any]]:
        """One page per group of near-duplicates found as that API finds them: the
        Levenshtein ratio of each page with the next ``distance`` pages in URL order, at least
        ``threshold`` (``method="levenshtein"``); also one per URL and exact group. Pages
        shorter than ``min_words`` (50) words are never near-duplicates."""
        config = self.build_config().with_overrides(
            method="levenshtein", threshold=threshold, distance=distance, n_min=0
        )
        return self._survivors(posts, config, lambda row: bool(row["is_canonical"]))

    @classmethod
    def prepare_posts_parallel(
        cls,
        elem: MutableMapping[str, Any],
        discard_params: bool = False,
        urls_to_ignore: Iterable[str] = (),
        fix_urls: bool = True,
    ) -> MutableMapping[str, Any] | None:
        """Prepare one page dict in place, as that API does before grouping by URL.

        Returns None for a page whose URL matches ``urls_to_ignore`` (webdedup's path-segment
        rules, ``IgnoreRules``) or is not an http(s) URL; else ``elem`` with ``url`` replaced
        by its canonical URL (web archive URLs unwrapped, the archive URL kept in ``wayback``),
        ``domain`` its host, ``length`` the text's length when missing, and ``datetime``
        parsed from ``date`` when missing (a UTC datetime, or None). ``fix_urls`` is accepted:
        the canonical URL unifies ``http``/``https`` and ``www.`` offline either way.
        """
        url = elem.get("url")
        if not isinstance(url, str):
            return None
        try:
            rules = IgnoreRules.from_patterns(tuple(urls_to_ignore))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"urls_to_ignore: {exc}") from exc
        if rules.patterns and rules.match(url) is not None:
            return None
        canonical = canonicalize_url(url, discard_params=discard_params)
        if canonical is None:
            return None
        if unwrap_archive_url(url) != url:
            elem["wayback"] = url
        elem["url"] = canonical
        elem["domain"] = canonical_host(canonical)
        if not elem.get("length"):
            text = elem.get("parsed") or elem.get("content") or ""
            elem["length"] = len(text) if isinstance(text, str) else 0
        if elem.get("datetime") is None:
            ts = parse_timestamp(elem.get("date"))
            elem["datetime"] = (
                None if ts is None else dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
            )
        return elem

    @staticmethod
    def add_content_hash_column(
        db: str | Path | sqlite3.Connection, columns: Columns | None = None
    ) -> int:
        """Add (if missing) and fill a ``content_hash`` column on the pages table, with an
        index; returns the rows filled. The hash is the one ``webdedup db`` writes (SHA-1 of
        the normalized text); a table with a ``parsed`` column is read from it, as that API's
        crawlers store the text, unless ``columns`` maps the text elsewhere."""
        conn = connect(db)
        try:
            return add_content_hash_column(conn, columns)
        finally:
            if not isinstance(db, sqlite3.Connection):
                conn.close()

    def _survivors(
        self,
        posts: Iterable[Mapping[str, Any]],
        config: Config,
        keep: Callable[[dict[str, Any]], bool],
    ) -> list[dict[str, Any]]:
        posts = list(posts)
        content = config.columns.content
        from_parsed = content == Columns().content  # not mapped elsewhere
        pages = []
        for position, post in enumerate(posts, start=1):
            page = {k: v for k, v in post.items() if k != "id"}
            if from_parsed and "parsed" in post:
                page[content] = post["parsed"]
            pages.append(page | {"id": position})
        out = []
        for post, row in zip(posts, run_on_list(pages, config), strict=True):
            if keep(row):
                canonical = row["canonical_url"]
                extra = {k: v for k, v in row.items() if k != "id"}
                url = canonical or post.get(config.columns.url)
                domain = canonical_host(canonical) if canonical else None
                out.append(dict(post) | extra | {"url": url, "domain": domain})
        return out
