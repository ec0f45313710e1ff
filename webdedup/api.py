"""The Python API: :class:`Deduplicator`, the names crawler code already uses.

It follows the ``Deduplicator`` of Aurélien Pierre's crawler (``core.deduplicator``): the
constructor's ``threshold``, ``distance``, ``discard_params``, ``n_min`` and ``fix_urls`` with
that API's defaults, an editable ``urls_to_ignore`` (its 17 patterns, matched as substrings),
the object called on an open connection or on a list of page dicts (``dedup(db)``,
``dedup(pages)``), ``run_on_db(db, chunksize)``, ``run_on_list(posts)``, ``get_unique_urls``,
``get_unique_content``, ``get_close_content``, ``prepare_posts_parallel`` and
``add_content_hash_column`` — the same names and meanings, implemented by webdedup's one
pipeline (README, "The Deduplicator API").
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .algorithms.timestamps import parse_timestamp
from .algorithms.urls import IgnoreRules, canonical_host, canonicalize_url, unwrap_archive_url
from .config import PARSED_COLUMNS, Columns, Config
from .errors import ConfigError, InputError
from .pipeline.context import PhaseHook
from .pipeline.in_memory import run_on_list
from .pipeline.prune import restore_pruned
from .pipeline.run import RunResult, run_on_db
from .store import connect, table_columns
from .store.content_hash import add_content_hash_column

if TYPE_CHECKING:  # the distributed path's results (Daft, Ray, pyarrow: imported when run)
    from .distributed.daft_pipeline import DaftResult
    from .distributed.parquet import ParquetExport

#: How a page joined its group, per ``get_*`` function: pages that joined that way go.
_DROPPED = {
    "urls": ("url", "ignored"),
    "content": ("url", "exact", "ignored"),
}
#: The ``urls_to_ignore`` of the API webdedup follows (archive pages, profiles, log-in and
#: shop pages), matched as substrings of the URL (``ignore_match="substring"``).
URLS_TO_IGNORE: tuple[str, ...] = (
    "/tag/", "/tags/", "/category/", "/categories/", "/author/", "/authors/", "/profil/",
    "/profiles/", "/user/", "/users/", "/login/", "/signup/", "/member/", "/members/",
    "/cart/", "/shop/", "/register",
)
#: ``min_words`` no page reaches: near-duplicate detection off (``threshold=1.0`` there).
NEAR_OFF = 2**31 - 1


def crawler_defaults() -> Config:
    """The defaults of the API webdedup follows, as a :class:`Config`: ``discard_params``,
    its 17 ``urls_to_ignore`` matched as substrings (a ``Deduplicator`` built without a
    ``config`` starts from these; the CLI and :class:`Config` keep webdedup's own).

    >>> crawler_defaults().discard_params, len(crawler_defaults().urls_to_ignore)
    (True, 17)
    """
    return Config(discard_params=True, urls_to_ignore=URLS_TO_IGNORE, ignore_match="substring")


def _with_fields(page: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """The page's own fields and the run's annotations; the page's own ``content_hash`` (a
    crawler's, under that API's definition) and ``id`` stay."""
    out = {**page, **row}
    for own in ("content_hash", "id"):
        if own in page:
            out[own] = page[own]
    return out


class Deduplicator:
    """Find URL, exact and near-duplicate pages and elect one canonical page per group.

    Called as the API it follows is called, it leaves only the winners::

        >>> d = Deduplicator(threshold=1.0, distance=50, discard_params=False, fix_urls=False)
        >>> d.urls_to_ignore += ["facebook.com"]
        >>> pages = d([
        ...     {"url": "http://example.com/a?utm_source=x", "parsed": "same text"},
        ...     {"url": "https://www.example.com/a", "parsed": "same text"},
        ...     {"url": "https://example.com/tag/python", "parsed": "other text"},
        ... ])
        >>> [(p["url"], p["domain"]) for p in pages]
        [('https://example.com/a', 'example.com')]

    ``d(db)`` (an open ``sqlite3`` connection, or a path) does the same to a ``pages`` table:
    only the winners stay (the rest moved to ``_webdedup_pruned``), their URL canonical and
    ``domain`` filled (the values replaced kept in ``_webdedup_rewritten``); ``webdedup
    restore`` undoes both. :meth:`run_on_db` and :meth:`run_on_list` annotate every page
    instead and delete nothing (``prune=True`` moves the non-canonical rows out)::

        >>> rows = Deduplicator(discard_params=False).run_on_list([
        ...     {"url": "http://example.com/a?utm_source=x", "content": "Same text"},
        ...     {"url": "https://www.example.com/a", "content": "Same text"},
        ... ])
        >>> [(r["id"], r["dup_kind"], r["canonical_id"]) for r in rows]
        [(1, 'url', 2), (2, None, 2)]

    Without ``config``, the defaults are that API's: ``threshold=0.9``, ``distance=50``,
    ``discard_params=True``, ``n_min=0``, ``urls_to_ignore`` its 17 patterns
    (:data:`URLS_TO_IGNORE`) matched as substrings of the URL (``ignore_match="substring"``),
    ``threshold=1.0`` turns near-duplicate detection off, and a table or page dict with a
    ``parsed`` text is read from it (else from ``content``). With ``config``, its values are
    the defaults (webdedup's: :class:`Config`) and the columns are read as it maps them; a
    value given here wins over ``config``'s. ``method`` is webdedup's (``"minhash"``).

    ``fix_urls`` is accepted for code written for that API, where it sends requests to see
    whether the ``https`` and ``www.``-less variants of a URL answer. Here the canonical URL
    always unifies ``http``/``https`` and ``www.`` offline (no DNS, no request), whatever its
    value. Given positionally after ``n_min`` (that API's order), a ``True``/``False`` in
    ``method``'s place is taken as ``fix_urls``.
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
        #: built without a config: that API's defaults and its way of finding the text
        self.crawler_mode = config is None
        base = config or crawler_defaults()
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
        options = dict(self._options)
        near_off = isinstance(self.threshold, (int, float)) and self.threshold >= 1.0
        if self.crawler_mode and near_off and "min_words" not in options:
            options["min_words"] = NEAR_OFF  # that API skips near-duplicates at 1.0
        return self._base.with_overrides(
            threshold=self.threshold,
            distance=self.distance,
            discard_params=self.discard_params,
            n_min=self.n_min,
            method=self.method,
            urls_to_ignore=tuple(self.urls_to_ignore),
            **options,
        )

    def __call__(
        self,
        posts: sqlite3.Connection | str | Path | Sequence[Mapping[str, Any]],
        chunksize: int | None = None,
    ) -> list[dict[str, Any]] | RunResult:
        """Deduplicate as the API webdedup follows does: only the winners are left.

        On a database (an open ``sqlite3.Connection`` or a path), the pages table keeps its
        winners only, their URL in canonical form and ``domain`` filled (``wayback`` too for
        a web archive URL, when the table has those columns); the other rows go to
        ``_webdedup_pruned`` and the replaced values to ``_webdedup_rewritten``, and
        ``webdedup restore`` puts both back. Returns the run's :class:`RunResult`.

        On a list of page dicts, returns the winners, in input order: copies of the given
        dicts, the crawler's own fields intact except ``url`` (canonical), ``domain`` (its
        host), ``wayback`` (the archive URL it came from), and ``length`` and ``datetime``
        when missing (from the text and ``date``). The list itself is left as it is.

        A winner is the canonical page of its group; pages matching ``urls_to_ignore`` or
        of hosts under ``n_min`` are dropped; a page without text takes part in URL
        deduplication only (it loses to a page with text at its URL).
        """
        if isinstance(posts, (sqlite3.Connection, str, Path)):
            config = self._config_for_db(posts)
            if chunksize is not None:
                config = config.with_overrides(chunk_size=chunksize)
            return run_on_db(posts, config, progress=self.progress, on_phase=self.on_phase,
                             winners_only=True)
        if isinstance(posts, Sequence) and not isinstance(posts, (str, bytes)):
            config = self.build_config()
            return self._survivors(posts, config, lambda r: bool(r["is_canonical"]),
                                   annotate=False)
        raise InputError(
            "a Deduplicator is called on an open sqlite3 connection (or a database path) or "
            f"on a list of page dicts, not on {type(posts).__name__!r}"
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
        to a worker at a time (``Config.chunk_size``, default 256). Nothing else is deleted
        or rewritten: calling the object (``dedup(db)``) is what leaves the winners only.
        With glibc, the run keeps glibc's mmap threshold at 1 MiB for the rest of the process
        (:func:`~webdedup.pipeline.context.keep_large_blocks_mapped`).
        """
        config = self._config_for_db(db)
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

    def restore(
        self,
        db: str | Path | sqlite3.Connection,
        *,
        on_message: Callable[[str], None] | None = None,
    ) -> int:
        """Put back into ``db``'s table of pages (the one this object maps) the rows that
        pruning moved out: those of a ``prune=True`` run, and those a call on the database
        (``dedup(db)``) left out, with the URLs it rewrote. Returns how many rows came back
        (``webdedup restore``).

        Every row goes back under its original id. When some cannot (the crawler has since
        written a new page under the id, or re-crawled the URL into a UNIQUE column), nothing
        is restored and :class:`~webdedup.errors.RestoreConflict` lists them. A table
        without an INTEGER PRIMARY KEY has no stable ids: there a row whose rowid is taken
        goes back under a new one, and ``on_message`` receives a line saying so.

        Example::

            >>> dedup = Deduplicator()
            >>> dedup("crawl.sqlite")  # doctest: +SKIP
            >>> dedup.restore("crawl.sqlite")  # doctest: +SKIP
            42
        """
        config = self.build_config()
        return restore_pruned(
            db, config.columns.table, busy_timeout=config.busy_timeout, on_message=on_message
        )

    def run_on_list(
        self, pages: Iterable[Mapping[str, Any]], *, survivors_only: bool = False
    ) -> list[dict[str, Any]]:
        """Run on page dicts (keys as the column names: ``url``, ``content``, ...).

        Returns one dict per page, in input order: a copy of the given page's fields with
        ``id`` (the page's ``id`` or its 1-based position), the output columns of
        ``run_on_db``, ``ignored`` (why a page was left out, else None) and ``lang`` added. As
        on a table, a page's own ``content_hash`` is kept (webdedup's hash of the normalized
        text is not written over it); webdedup's other output fields are this run's. The same
        pipeline runs on an in-memory SQLite database.

        With ``survivors_only=True``, as the API this one follows returns them: one page per
        group (its canonical), ignored pages left out — each a copy of the given page dict
        with ``url`` replaced by its canonical URL, ``domain`` its host, and the annotations
        under the keys the page does not have already. In this mode and in the ``get_*``
        methods a page dict is read from ``parsed`` (that API's field for the extracted
        text), else from ``content``, unless ``columns`` maps the text to another key.
        """
        if not survivors_only:
            given = [dict(p) for p in pages]
            rows = run_on_list(given, self.build_config())
            return [_with_fields(page, row) for page, row in zip(given, rows, strict=True)]
        return self._survivors(pages, self.build_config(), lambda row: bool(row["is_canonical"]))

    # -- beyond one machine: Parquet and Daft (webdedup[daft]) ------------------------------
    def export_parquet(self, db: str | Path, directory: str | Path) -> ParquetExport:
        """Write the pages of ``db`` as Parquet files into the new ``directory``, for
        :meth:`run_on_parquet` (``webdedup export --parquet``): one row a page under
        webdedup's column names, with the reviewers' verdicts on the pages they name. The
        table and columns are read as this object maps them (the last run's mapping when it
        names none); the database is only read, before any run or after.

        Example::

            >>> dedup = Deduplicator(config=Config(own_content=False))
            >>> dedup.export_parquet("crawl.sqlite", "pages/")  # doctest: +SKIP
            ParquetExport(directory='pages', pages=1520, files=1)
        """
        from .distributed.parquet import export_parquet

        config = self._config_for_db(db)
        return export_parquet(db, directory, config.columns, busy_timeout=config.busy_timeout)

    def run_on_parquet(
        self,
        inputs: str | Sequence[str],
        out: str | Path,
        *,
        ray_address: str | None = None,
        s3_endpoint: str | None = None,
        s3_region: str | None = None,
        s3_anonymous: bool = False,
        io_config: Any = None,
        on_message: Callable[[str], None] | None = None,
    ) -> DaftResult:
        """Deduplicate Parquet pages on Daft into the new directory ``out`` (``webdedup
        daft``): the phases and rules of :meth:`run_on_db`, with this object's configuration
        (method ``minhash`` only; whole texts: no own content), on Daft's native runner on
        this machine, or on the Ray cluster at ``ray_address`` (``"auto"``, ``HOST:PORT``
        or ``ray://HOST:PORT``). :meth:`load_assignments` writes the result into the
        database.

        ``inputs``: Parquet files or globs, local or ``s3://``, with an integer ``id``, a URL
        and a text (or HTML) column, e.g. :meth:`export_parquet`'s. ``out`` may be ``s3://``
        too; the ``s3_*`` values say how to reach it (else the AWS environment variables,
        which are read only when a path is remote); ``io_config``: a Daft ``IOConfig`` of
        one's own for the inputs instead (GCS, Azure, retries). ``on_message`` receives a
        line saying which runner runs how many pages.

        Example::

            >>> dedup = Deduplicator(config=Config(own_content=False))
            >>> dedup.export_parquet("crawl.sqlite", "pages/")  # doctest: +SKIP
            >>> dedup.run_on_parquet("pages/*.parquet", "assignments/")  # doctest: +SKIP
            >>> dedup.load_assignments("crawl.sqlite", "assignments/")  # doctest: +SKIP
        """
        from .distributed.daft_pipeline import run_daft
        from .distributed.objectstore import ObjectStore, is_remote

        paths = [inputs] if isinstance(inputs, str) else [str(p) for p in inputs]
        store = None  # local paths only: the AWS environment is not read
        if any(is_remote(p) for p in (*paths, str(out))):
            store = ObjectStore.from_options(s3_endpoint, s3_region, s3_anonymous)
        return run_daft(
            paths,
            out,
            self.build_config(),
            ray_address=ray_address,
            io_config=io_config,
            store=store,
            on_message=on_message,
        )

    def load_assignments(
        self,
        db: str | Path | sqlite3.Connection,
        assignments: str | Path,
        *,
        prune: bool = False,
        on_message: Callable[[str], None] | None = None,
    ) -> RunResult:
        """Annotate ``db``'s ``pages`` with the results of ``webdedup daft`` instead of
        computing them: ``assignments`` is its ``--out`` directory, or a glob of its Parquet
        files. The state a run keeps is stored too, so the next run is incremental from
        there; ``prune`` and ``on_message`` as for :meth:`run_on_db`.

        Example::

            >>> dedup = Deduplicator(config=Config(own_content=False))
            >>> dedup.load_assignments("crawl.sqlite", "out/")  # doctest: +SKIP
        """
        from .distributed.assignments import Assignments

        return run_on_db(
            db,
            self._config_for_db(db),
            prune=prune,
            progress=self.progress,
            on_phase=self.on_phase,
            on_message=on_message,
            loaded=Assignments.open(str(assignments)),
        )

    # -- the rest of the API this one follows ---------------------------------------------
    def get_unique_urls(self, posts: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """One page per canonical URL (the elected one), pages to ignore left out; a page
        without text stays when no page with text has its URL. Pages of one text under
        several URLs all stay (``get_unique_content``)."""
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
        if config.min_words == NEAR_OFF and "min_words" not in self._options:
            config = replace(config, min_words=Config().min_words)  # its own threshold
        return self._survivors(posts, config, lambda row: bool(row["is_canonical"]))

    @classmethod
    def prepare_posts_parallel(
        cls,
        elem: MutableMapping[str, Any],
        discard_params: bool = True,
        urls_to_ignore: Iterable[str] = URLS_TO_IGNORE,
        fix_urls: bool = True,
        *,
        ignore_match: str = "substring",
    ) -> MutableMapping[str, Any] | None:
        """Prepare one page dict in place, as that API does before grouping by URL.

        Returns None for a page whose URL matches ``urls_to_ignore`` (substrings of the URL,
        as there; ``ignore_match="segments"`` for webdedup's path-segment rules) or is not
        an http(s) URL; else ``elem`` with ``url`` replaced by its canonical URL (web archive
        URLs unwrapped, the archive URL kept in ``wayback``), ``domain`` its host, ``length``
        the text's length (``parsed``, else ``content``) when missing, and ``datetime``
        parsed from ``date`` when missing (a UTC datetime, or None). ``fix_urls`` is
        accepted: the canonical URL unifies ``http``/``https`` and ``www.`` offline either way.
        """
        url = elem.get("url")
        if not isinstance(url, str):
            return None
        try:
            rules = IgnoreRules.from_patterns(tuple(urls_to_ignore), ignore_match)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"urls_to_ignore: {exc}") from exc
        if rules.patterns and rules.match(url) is not None:
            return None
        canonical = canonicalize_url(url, discard_params=discard_params)
        if canonical is None:
            return None
        _fill(elem, canonical, "url")
        return elem

    @staticmethod
    def add_content_hash_column(
        db: str | Path | sqlite3.Connection, columns: Columns | None = None
    ) -> int:
        """Add (if missing) and fill a ``content_hash`` column on the pages table, with an
        index ``idx_pages_content_hash``; returns the rows filled. As that API's helper: the
        SHA-1 of each row's text as stored (``parsed`` when the table has it, else the
        mapped text column), rows without text left as they are; the column stays the
        crawler's (runs never write into it). Only a ``content_hash`` a webdedup run created
        is refreshed with the value runs write there (SHA-1 of the normalized text)."""
        conn = connect(db)
        try:
            return add_content_hash_column(conn, columns)
        finally:
            if not isinstance(db, sqlite3.Connection):
                conn.close()

    # -- helpers ----------------------------------------------------------------------------
    def _config_for_db(self, db: str | Path | sqlite3.Connection) -> Config:
        """The run's config; built without a config and naming no columns, a table with a
        ``parsed`` column is read from it, else from ``content`` (that API's pages)."""
        config = self.build_config()
        if not self.crawler_mode or config.columns != Columns():
            return config
        # an adopted connection is only asked (connect() would change its settings)
        conn = db if isinstance(db, sqlite3.Connection) else connect(db, write=False)
        try:
            if "parsed" not in table_columns(conn, config.columns.table):
                return config
        finally:
            if conn is not db:
                conn.close()
        return replace(config, columns=replace(PARSED_COLUMNS, table=config.columns.table))

    def _survivors(
        self,
        posts: Iterable[Mapping[str, Any]],
        config: Config,
        keep: Callable[[dict[str, Any]], bool],
        *,
        annotate: bool = True,
    ) -> list[dict[str, Any]]:
        """The pages ``keep`` keeps, and the pages without text that win their URL."""
        posts = list(posts)
        cols = config.columns
        from_parsed = cols == Columns()  # not mapped elsewhere: that API's fields
        pages = []
        for position, post in enumerate(posts, start=1):
            page = {k: v for k, v in post.items() if k != "id"}
            if from_parsed and "parsed" in post:
                page[cols.content] = post.get("parsed") or post.get(cols.content)
            pages.append(page | {"id": position})
        rows = run_on_list(pages, config)
        kept = {row["id"] for row in rows if keep(row)}
        kept |= _stub_winners(posts, rows, cols)
        out = []
        for post, row in zip(posts, rows, strict=True):
            if row["id"] in kept:
                page = dict(post)
                _fill(page, row["canonical_url"], cols.url)
                if annotate:
                    page |= {k: v for k, v in row.items() if k != "id" and k not in page}
                out.append(page)
        return out


def _fill(page: MutableMapping[str, Any], canonical: str | None, url_key: str) -> None:
    """What that API's preparation sets on a page dict: the canonical URL and its host, the
    web archive URL it came from, the text's length and the date as a datetime (when
    missing)."""
    url = page.get(url_key)
    if canonical is not None:
        if isinstance(url, str) and unwrap_archive_url(url) != url and not page.get("wayback"):
            page["wayback"] = url
        page[url_key] = canonical
        page["domain"] = canonical_host(canonical)
    if not page.get("length"):
        text = page.get("parsed") or page.get("content") or ""
        page["length"] = len(text) if isinstance(text, str) else 0
    if page.get("datetime") is None:
        ts = parse_timestamp(page.get("date"))
        page["datetime"] = None if ts is None else dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)


def _when(post: Mapping[str, Any], key: str) -> float:
    value = post.get(key)
    if isinstance(value, dt.datetime):
        value = value.isoformat()
    ts = parse_timestamp(value)
    return float("-inf") if ts is None else ts


def _stub_winners(
    posts: list[Mapping[str, Any]], rows: list[dict[str, Any]], cols: Columns
) -> set[int]:
    """Ids of the pages without text that win their canonical URL: no page with text has it,
    and no other page without text there is newer (date, then crawl; then the first)."""
    taken = {r["canonical_url"] for r in rows if r["ignored"] is None}
    best: dict[str, tuple[tuple[float, float, int], int]] = {}
    for post, row in zip(posts, rows, strict=True):
        url = row["canonical_url"]
        if row["ignored"] != "empty_text" or url is None or url in taken:
            continue
        newer = _when(post, cols.datetime)
        if newer == float("-inf"):
            newer = _when(post, cols.date)
        key = (-newer, -_when(post, cols.crawled), int(row["id"]))
        if url not in best or key < best[url][0]:
            best[url] = (key, int(row["id"]))
    return {page_id for _, page_id in best.values()}
