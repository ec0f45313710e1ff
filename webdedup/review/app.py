"""The review app's pages and actions, without the socket (:mod:`.server` serves them).

:class:`ReviewApp` keeps one read connection to the annotated database and, once a run, an
index of its duplicate groups in TEMP tables, built in parts as requests need them: the groups
and their sizes first (``sql/review/groups_build.sql``: the list of groups needs no more), the
queue when it is first asked for (a queue page, a pair's link, an undo: ``queue_build.sql``,
the near members, each group's canonical and first member), each group's lowest score for
the score filters (``members_build.sql``), its canonical's language for the language filter
(``langs_build.sql``), the members' URLs and titles for a search (``search_build.sql``, by
the first search at any size); a small run's (:data:`EAGER_GROUPS`, :data:`EAGER_PAGES`) all
but the search's at once, and the members' hosts for the filter form's host list
(``places_build.sql``; a host filter looks its host's pages up, ``host_groups.sql``). A
request reads one page of groups (``LIMIT``/``OFFSET`` over that index) and those groups'
pages, never the whole table.
Each page is read in one read transaction, so it shows one run's groups even while a
``webdedup db`` run in another process commits. A verdict is written through a short write
connection of its own (``store.verdicts``), refused when it names a page the table does not
have, stored once however often it is posted, and honoured by the next run.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

from ..algorithms.election import DEFAULT_ELECTION, ELECTION_KEYS, validate_election
from ..algorithms.html_text import extract_text
from ..errors import ConfigError, DatabaseLocked, InputError, NotFound, WebdedupError
from ..incremental.plan import MISSED
from ..output.html_review import CSS, MAX_MEMBERS, _e, _link, _words, inline_diff, measures
from ..output.pictures import pictures_html
from ..output.source import KINDS, Source, counts, last_run, read_layout
from ..pipeline.char_cache import load_char_table
from ..pipeline.own_content import template_lines
from ..pipeline.phase5_write_back import INTERRUPTED
from ..store import (
    connect,
    decode_text,
    migrate,
    quote,
    run_script,
    sql,
    table_columns,
    table_exists,
    transaction,
    translate,
)
from ..store.counts import Counts, groups_subquery
from ..store.pages import as_text
from ..store.schema import GROUPS_TABLE
from ..store.state import host_pages, meta_value
from ..store.verdicts import (
    Verdict,
    add_verdict,
    missing_pages,
    pair_score,
    read_verdicts,
    verdict_pages,
    withdraw_verdict,
)
from ..words import plural
from .keys import KEYS_SCRIPT
from .pair import one_column, rows_html, side_by_side, why_grouped
from .queue import Item, Progress, item_at, next_pos, pos_of, progress

#: Groups a page shows by default, and at most.
PER_PAGE = 10
MAX_PER_PAGE = 50
#: The parameters of the list that page it, not filter it.
PAGING = ("limit", "offset")
#: Columns that may hold a page's language (the language filter appears when one exists).
LANG_COLUMNS = ("lang", "language")
#: A group id in a path: ASCII digits, at most SQLite's largest integer.
GROUP_ID = re.compile(r"[0-9]{1,19}")
#: A pair of the queue in a path: member and canonical ids.
PAIR = re.compile(r"([0-9]{1,19})-([0-9]{1,19})")
MAX_ID = 2**63 - 1
#: Where a form's ``back`` field may send the browser: a page of this app (the list, with its
#: query, or a group), never another host nor anything that could end a header.
BACK = re.compile(r"/(group/[0-9]{1,19}|queue(/[0-9]{1,19})?)?(\?[A-Za-z0-9_.~%&=+-]*)?")
#: A run of at most this many groups and pages has its whole index (the queue, the groups'
#: scores and languages, the members' hosts) built when the app first reads it (well under a
#: second: each part reads every groups row, a few numbers a page); a larger run's parts are
#: built by the first request that needs each, so the list of groups comes first (at ten
#: million pages the whole index took 39 s, docs/benchmarks.md), and its members' hosts by
#: none: the filter form's host list (suggestions) stays empty; a host filter looks its
#: host's pages up.
EAGER_GROUPS = 20_000
EAGER_PAGES = 200_000
#: The parts of the index (after the groups): the queue, each group's lowest score, its
#: canonical's language, and the members' hosts (the host list of a small run).
QUEUE, SCORES, LANGS, PLACES = "queue", "scores", "langs", "places"
#: The search's table (the members' URLs and titles), built by the first search of a run.
SEARCH = "search"
#: Distinct texts of a host read to find its template lines (the lines to dim), at most.
HOST_SAMPLE = 400
T = TypeVar("T")
_NOTHING: Any = object()  # the index of no run

APP_CSS = """
form.filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: end; margin: 12px 0; }
form.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
form.filters input, form.filters select { font: inherit; padding: 2px 4px; }
.canon { padding: 10px 14px; border-bottom: 1px solid var(--line); background: #f3fbf5; }
.member { padding: 10px 14px; border-top: 1px solid var(--line); }
.election { font-size: 12px; color: var(--muted); margin: 4px 0; }
form.verdict { display: inline; margin-right: 6px; }
form.verdict button { font-size: 12px; }
.verdicts { font-size: 12px; background: #fff8c5; padding: 6px 14px; margin: 0; }
.pager { margin: 14px 0; }
.pictures { display: flex; flex-wrap: wrap; gap: 18px; }
table.thresholds { border-collapse: collapse; font-size: 13px; }
table.thresholds td, table.thresholds th { border: 1px solid var(--line); padding: 2px 8px; }
dl.legend { font-size: 12px; color: var(--muted); }
dl.legend dt { font-weight: 600; }
.progress { font-size: 15px; margin: 4px 0 0; }
.progress strong { font-size: 17px; }
p.why { font-size: 16px; margin: 14px 0 6px; }
div.actions { margin: 10px 0; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
div.actions form { display: inline; margin: 0; }
div.actions button, div.actions a.nav { font: inherit; font-size: 13px; padding: 4px 10px;
  border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--fg);
  text-decoration: none; cursor: pointer; }
div.actions button.accept { background: #dafbe1; }
div.actions button.reject { background: #ffebe9; }
kbd { font: 11px ui-monospace, monospace; border: 1px solid var(--line); border-radius: 3px;
  padding: 0 4px; background: var(--bg); margin-left: 4px; }
table.sbs { width: 100%; border-collapse: collapse; table-layout: fixed; font-size: 14px; }
table.sbs th { text-align: left; vertical-align: top; padding: 8px 10px; background: var(--bg);
  border: 1px solid var(--line); font-weight: normal; }
table.sbs th h3 { margin: 0 0 2px; font-size: 14px; }
table.sbs td { vertical-align: top; padding: 4px 10px; border-left: 1px solid var(--line);
  border-right: 1px solid var(--line); overflow-wrap: anywhere; }
table.sbs tr.changed td { background: #fffbe6; }
table.sbs tr.chrome td { color: #8c959f; font-size: 12px; background: none; }
table.sbs tr.chrome del, table.sbs tr.chrome ins { background: none; }
table.sbs tbody tr:last-child td { border-bottom: 1px solid var(--line); }
.decided { background: #fff8c5; padding: 6px 10px; font-size: 13px; }
.text p { margin: 0 0 6px; }
.text p.chrome { color: #8c959f; font-size: 12px; }
.text p.chrome del, .text p.chrome ins { background: none; }
"""


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


def _one(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name) or []
    value = values[-1].strip() if values else ""
    return value or None


def _number(query: dict[str, list[str]], name: str, kind: type, low: float, high: float) -> Any:
    text = _one(query, name)
    if text is None:
        return None
    try:
        value = kind(text)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {text!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low:g} and {high:g}, got {text!r}")
    return value


@dataclass(frozen=True)
class Filters:
    """The list page's search, filters and page (from its query string)."""

    q: str | None = None
    kind: str | None = None
    host: str | None = None
    min_size: int | None = None
    max_size: int | None = None
    min_score: float | None = None
    max_score: float | None = None
    lang: str | None = None
    page: int = 1
    per_page: int = PER_PAGE

    @classmethod
    def from_query(cls, query: dict[str, list[str]]) -> Filters:
        """Raises :class:`ConfigError` (a 400 page) for a value out of range."""
        kind = _one(query, "kind")
        if kind is not None and kind not in KINDS:
            raise ConfigError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        big = 2**62
        return cls(
            q=_one(query, "q"),
            kind=kind,
            host=_one(query, "host"),
            min_size=_number(query, "min_size", int, 2, big),
            max_size=_number(query, "max_size", int, 2, big),
            min_score=_number(query, "min_score", float, 0.0, 1.0),
            max_score=_number(query, "max_score", float, 0.0, 1.0),
            lang=_one(query, "lang"),
            page=_number(query, "page", int, 1, big) or 1,
            per_page=_number(query, "per_page", int, 1, MAX_PER_PAGE) or PER_PAGE,
        )

    def filtered(self) -> bool:
        """Whether a search or a filter is set (else ``sql/review/groups_all.sql`` lists)."""
        return any(v is not None for k, v in self.params().items() if k not in PAGING)

    def params(self) -> dict[str, Any]:
        """The bound parameters of ``sql/review/groups.sql``."""
        like = None
        if self.q:
            escaped = self.q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            like = f"%{escaped}%"
        return {
            "q": like,
            "kind": self.kind,
            "host": self.host,
            "min_size": self.min_size,
            "max_size": self.max_size,
            "min_score": self.min_score,
            "max_score": self.max_score,
            "lang": self.lang,
            "limit": self.per_page,
            "offset": (self.page - 1) * self.per_page,
        }

    def query_string(self, **changes: Any) -> str:
        values = {k: v for k, v in vars(replace(self, **changes)).items() if v is not None}
        if values.get("page") == 1:
            values.pop("page")
        if values.get("per_page") == PER_PAGE:
            values.pop("per_page")
        return urlencode(values)


def as_date(epoch: float | None) -> str:
    """An election value stored as epoch seconds, as a UTC date (and time when it has one).

    >>> as_date(1714521600.0), as_date(1714559400.0), as_date(None)
    ('2024-05-01', '2024-05-01 10:30 UTC', '-')
    """
    if epoch is None:
        return "-"
    moment = datetime.fromtimestamp(float(epoch), tz=timezone.utc)
    if moment.hour == moment.minute == moment.second == 0:
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def election_text(keys: tuple[str, ...], row: dict[str, Any]) -> str:
    """The values a page is elected on, dates as dates (HTML-escaped)."""
    parts = []
    for key in keys:
        if key in ("newer_datetime", "older_datetime"):
            parts.append(f"page date {as_date(row.get('dt'))}")
        elif key in ("newer_crawled", "older_crawled"):
            parts.append(f"crawled {as_date(row.get('crawled_ts'))}")
        elif key == "internal":
            parts.append("external" if row.get("is_external") else "internal")
        elif key == "longer_text":
            parts.append(f"{int(row.get('text_len') or 0):,} characters of text")
        elif key == "https":
            parts.append("https" if row.get("is_https") else "not https")
        elif key == "shorter_url":
            parts.append(f"URL of {int(row.get('url_len') or 0):,} characters")
    return _e(", ".join(parts))


class ReviewApp:
    """The review pages of one annotated database, beside the nightly runs that rewrite it.

    Each page is read inside one read transaction (one snapshot: never half of one run and
    half of the next) on a long-lived connection that holds the index of the groups (TEMP
    tables, built once a run). A short connection of its own checks the last run at every
    request: a new run gets a new connection and a new index, and a connection that does not
    see the run just checked is replaced. Connections are opened by SQLite alone (never a
    plain ``open()`` of the file, which would drop this process's POSIX locks). Verdicts are
    written through a connection of their own, outside the page lock, waiting up to
    ``busy_timeout`` for a run's write lock. Thread-safe.
    """

    def __init__(self, db: str | Path, *, busy_timeout: float = 5.0) -> None:
        self.db = Path(db)
        self.busy_timeout = busy_timeout
        #: sent with every form and checked on every POST (no other site can post verdicts)
        self.token = secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._source: Source | None = None
        self._built_for: Any = _NOTHING
        self._lang: str | None = None
        self._pictures: tuple[Any, str] | None = None
        self._run_started = ""
        self._batched = False
        self._threshold = 0.9
        self._host_lines: dict[str, frozenset[str]] = {}  # the dimmed lines of a host, a run
        self._searchable = False  # temp.review_search built for the index's run
        self._host_groups_for: str | None = None  # the host of temp.review_host_groups
        self._parts: set[str] = set()  # the parts of the index built for its run
        self._groups = 0  # how many groups the index holds
        self._score = "a.dup_score"  # what members_ and queue_build.sql read as a score
        self._run_counts: dict[str, int] | None = None  # the run's counts, for the header
        #: the hosts with the most members (the host filter's choices), once they are read
        self._hosts: list[str] | None = None
        #: the verdicts this app recorded, newest last: what "undo" withdraws
        self._undo: list[int] = []
        self._undo_lock = threading.Lock()
        # fail now (not at the first request) on a file that is no database or not annotated
        connect(self.db, busy_timeout=busy_timeout, write=False).close()
        self._snapshot(lambda _conn, _source: None)

    def close(self) -> None:
        with self._lock:
            self._drop_reader()

    # -- connections ---------------------------------------------------------------------

    def _open(self, *, write: bool = False) -> sqlite3.Connection:
        """A connection as :func:`~webdedup.store.connect` opens them (SQLite alone opens the
        file: no descriptor of ours closes under the long-lived reader's locks), usable from
        the server's threads; a WAL database in a read-only folder is read as ``connect``
        reads it."""
        conn = connect(self.db, busy_timeout=self.busy_timeout, write=write, threads=True)
        conn.text_factory = decode_text
        return conn

    def _reader(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
            conn = self._conn
            conn.execute("PRAGMA temp_store = FILE")
            conn.execute("PRAGMA temp.cache_size = -16384")
            self._built_for = _NOTHING  # its TEMP index is still to build
        return self._conn

    def _drop_reader(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._built_for = _NOTHING

    def _last_run(self, conn: sqlite3.Connection) -> tuple[int, str]:
        row = conn.execute(sql_review("last_run")).fetchone()
        return (int(row[0]), str(row[1])) if row else (0, "")

    # -- reading -------------------------------------------------------------------------

    def _snapshot(self, render: Callable[[sqlite3.Connection, Source], T]) -> T:
        """``render(conn, source)`` inside one read transaction, on the index of the run
        that transaction sees (built in it when that run is new)."""
        with self._lock:
            probe = self._open()
            try:
                latest = self._last_run(probe)[0]
            finally:
                probe.close()
            for fresh in (False, True):
                if fresh or latest != self._built_for:
                    self._drop_reader()  # a new run: a new connection and index
                conn = self._reader()
                conn.execute("BEGIN")
                key, started = self._last_run(conn)
                if key >= latest:  # (a run may have finished since the probe: newer is fine)
                    break
                conn.execute("ROLLBACK")  # a connection that missed a run: replaced once
            else:
                self._drop_reader()
                raise WebdedupError(
                    f"the review app's connection to {self.db} does not see the last run; "
                    "restart 'webdedup review'"
                )
            try:
                if key != self._built_for or self._source is None:
                    self._build_index(conn)
                self._built_for = key
                self._run_started = started
                self._batched = meta_value(conn, MISSED) == INTERRUPTED
                if self._source is None:
                    raise WebdedupError("the review app has no index of the groups")
                result = render(conn, self._source)
            except WebdedupError:  # a page's own answer (no such group...): the index stays
                if conn.in_transaction:
                    conn.execute("COMMIT")
                raise
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")  # (an index half built is rebuilt next time)
                self._built_for, self._source = _NOTHING, None
                raise
            conn.execute("COMMIT")
            return result

    def _build_index(self, conn: sqlite3.Connection) -> None:
        """The groups of the run ``conn``'s transaction sees, in TEMP tables (once a run),
        from webdedup's state alone (``sql/review/groups_build.sql``); the rest of the index
        too when the run is small (:data:`EAGER_GROUPS`, :data:`EAGER_PAGES`), else as
        requests need it (:meth:`_need`)."""
        source = read_layout(conn, str(self.db))
        have = set(table_columns(conn, source.table))
        lang = next((c for c in LANG_COLUMNS if c in have), None)
        self._score = "a.dup_score"
        if "dup_score" not in table_columns(conn, GROUPS_TABLE):  # a state before schema 13
            self._score = (f"(SELECT p.dup_score FROM {quote(source.table)} AS p "
                           f"WHERE p.{quote(source.layout.rowid)} = a.id)")
        self._parts = set()
        run_script(conn, "review/groups_build", groups=groups_subquery())
        self._source, self._lang = source, lang
        self._pictures = None
        run = last_run(conn)
        self._threshold = float(run.get("params", {}).get("threshold") or 0.9)
        self._host_lines = {}
        self._searchable = False
        self._host_groups_for = None
        self._run_counts, self._hosts = None, None  # the index page's, once a run
        (self._groups,) = conn.execute("SELECT count(*) FROM temp.review_groups").fetchone()
        if self._groups <= EAGER_GROUPS and int(run.get("pages") or 0) <= EAGER_PAGES:
            self._need(conn, QUEUE, SCORES, LANGS, PLACES)

    def _need(self, conn: sqlite3.Connection, *parts: str) -> None:
        """Build the ``parts`` of the index not built yet for its run, inside the request's
        read transaction: :data:`QUEUE` (the queue: the near members, each group's canonical
        and first member), :data:`SCORES` (each group's lowest score), :data:`LANGS` (each
        group's canonical's language) and :data:`PLACES` (the members' hosts). That
        transaction sees the same last run as the one the groups were read in, but not
        always the same state: rows a batched run, a prune or a restore wrote since, before
        any new run row, are read as they are (the pages a page shows always were)."""
        for part in (QUEUE, SCORES, LANGS, PLACES):
            if part in parts and part not in self._parts:
                name, fills = self.part_script(part)
                run_script(conn, name, {"threshold": self._threshold}, **fills)
                self._parts.add(part)

    def part_script(self, part: str) -> tuple[str, dict[str, str]]:
        """The SQL file that builds ``part`` of the index (:data:`QUEUE`, :data:`SCORES`,
        :data:`LANGS`, :data:`PLACES`, or :data:`SEARCH`: the search's table) and its
        placeholders, as this app fills them for its run (``:threshold`` is the run's)."""
        if part in (QUEUE, SCORES):
            return {QUEUE: "review/queue_build", SCORES: "review/members_build"}[part], {
                "score": self._score}
        if part in (LANGS, PLACES):
            return f"review/{part}_build", {}
        source = self._source
        if part != SEARCH or source is None:
            raise ValueError(f"no such part of the index (or no index yet): {part!r}")
        return "review/search_build", {
            "pages": quote(source.table),
            "rowid": quote(source.layout.rowid),
            "url": quote(source.url),
            "title": source.column("p", source.title),
        }

    def _queue_built(self) -> bool:
        return QUEUE in self._parts

    def _search_table(self, conn: sqlite3.Connection, source: Source) -> str:
        """``temp.review_search`` (the members' URLs and titles), built by the first search
        of a run (the index itself does not read the pages' rows)."""
        if not self._searchable:
            name, fills = self.part_script(SEARCH)
            run_script(conn, name, None, **fills)
            self._searchable = True
        return "temp.review_search"

    def _host_groups(self, conn: sqlite3.Connection, host: str) -> str:
        """The groups with a member on ``host`` (``sql/review/host_groups.sql``: its pages
        looked up, not every member's host), as what ``groups.sql`` goes through; made again
        only when the host changes."""
        if self._host_groups_for != host:
            self._host_groups_for = None
            run_script(conn, "review/host_groups", {"host": host})
            self._host_groups_for = host
        return HOST_GROUPS

    # -- requests ------------------------------------------------------------------------

    def handle(
        self, method: str, path: str, query: dict[str, list[str]], form: dict[str, list[str]]
    ) -> Response:
        """Answer one request (``form``: the decoded POST body)."""
        try:
            try:
                if method == "GET" and path in ("/", "/index.html"):
                    return self._html(self._index(Filters.from_query(query)))
                if method == "GET" and path.startswith("/group/"):
                    return self._group_page(path.removeprefix("/group/"))
                if method == "GET" and path == "/thin":
                    return self._html(self._thin_page())
                if method == "GET" and path == "/queue":
                    return self._queue_next(query)
                if method == "GET" and path.startswith("/queue/pair/"):
                    return self._queue_pair(path.removeprefix("/queue/pair/"))
                if method == "GET" and path.startswith("/queue/"):
                    return self._queue_page(path.removeprefix("/queue/"))
                if method == "GET" and path == "/measures":
                    return self._html(self._measures_page())
                if method == "GET" and path == "/pictures":
                    return self._html(self._pictures_page())
                if method == "GET" and path == "/review.js":
                    return Response(200, KEYS_SCRIPT.encode("utf-8"),
                                    "text/javascript; charset=utf-8")
                if method == "GET" and path == "/health":
                    return Response(200, b"ok\n", "text/plain; charset=utf-8")
                if method == "POST" and path == "/verdict/undo":
                    return self._undo_last(form)
                if method == "POST" and path in ("/verdict", "/verdict/withdraw"):
                    return self._post(path, form)
            except sqlite3.Error as exc:
                raise translate(exc, str(self.db)) from exc
            return self._error(404, f"no page {path!r} here (try /)")
        except ConfigError as exc:
            return self._error(400, str(exc))
        except NotFound as exc:
            return self._error(404, str(exc))
        except DatabaseLocked as exc:
            return self._error(503, str(exc), {"Retry-After": "5"})
        except WebdedupError as exc:
            return self._error(409 if isinstance(exc, InputError) else 500, str(exc))

    def _html(
        self, body: str, status: int = 200, headers: dict[str, str] | None = None
    ) -> Response:
        return Response(status, body.encode("utf-8"), headers=headers or {})

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        body = _page_head("webdedup review: error") + (
            f'<main><h1>Error {status}</h1><p>{_e(message)}</p><p><a href="/">back to the '
            "groups</a></p></main></body></html>\n"
        )
        return self._html(body, status, headers)

    def _post(self, path: str, form: dict[str, list[str]]) -> Response:
        if _one(form, "token") != self.token:
            return self._error(403, "this form is stale or not from this review app: reload it")
        back = _one(form, "back") or "/"
        if not BACK.fullmatch(back):
            back = "/"  # only a page of this app: no other host, no header
        conn = self._open(write=True)
        try:
            with transaction(conn):  # waits up to busy_timeout for a run's write lock
                migrate(conn)  # a database annotated before verdicts existed gets the table
                if path == "/verdict/withdraw":
                    withdraw_verdict(conn, _number(form, "id", int, 1, 2**62) or 0)
                else:
                    kind = _one(form, "kind") or ""
                    a = _number(form, "page_a", int, 0, 2**62)
                    b = _number(form, "page_b", int, 0, 2**62)
                    if a is None:
                        raise ConfigError("a verdict names a page (page_a)")
                    layout = read_layout(conn, str(self.db)).layout
                    missing = missing_pages(conn, layout.table, layout.rowid, [a, b])
                    if missing:
                        raise NotFound(
                            f"no page #{missing[0]} in table {layout.table!r}: a verdict names "
                            "pages of the database (reload the group)"
                        )
                    score = pair_score(conn, layout.table, layout.rowid, a, b)
                    given = add_verdict(conn, kind, a, b, _one(form, "note"), score)
                    with self._undo_lock:
                        if given not in self._undo:
                            self._undo.append(given)
        finally:
            conn.close()
        return Response(303, b"", headers={"Location": back})

    def _undo_last(self, form: dict[str, list[str]]) -> Response:
        """Withdraw the last verdict this app recorded (that is still there) and go back to
        its pair in the queue."""
        if _one(form, "token") != self.token:
            return self._error(403, "this form is stale or not from this review app: reload it")
        pages: tuple[int, int | None] | None = None
        conn = self._open(write=True)
        try:
            with transaction(conn):
                while pages is None:
                    with self._undo_lock:
                        if not self._undo:
                            break
                        last = self._undo.pop()
                    found = verdict_pages(conn, last)
                    if found is not None and withdraw_verdict(conn, last):
                        pages = found
        finally:
            conn.close()
        if pages is None:
            raise InputError("nothing to undo: this review app has recorded no verdict since "
                             "it started (withdraw older ones on their group's page)")
        a, b = pages
        pos = self._snapshot(lambda conn, _source: self._pos_of(conn, a, b))
        where = f"/queue/{pos}" if pos is not None else "/queue"
        return Response(303, b"", headers={"Location": where})

    # -- pages ---------------------------------------------------------------------------

    def _index(self, filters: Filters) -> str:
        def read(conn: sqlite3.Connection, source: Source) -> tuple[Any, ...]:
            if filters.min_score is not None or filters.max_score is not None:
                self._need(conn, SCORES)
            if filters.lang is not None:
                self._need(conn, LANGS)
            if self._run_counts is None:  # (once a run: a pass over the state)
                self._run_counts = counts(conn, source)
            if self._hosts is None and PLACES in self._parts:  # (once they are read)
                self._hosts = [h for h, _ in conn.execute(sql_review("hosts"), {"limit": 200})]
            total, hosts = self._run_counts, self._hosts or []
            run = last_run(conn)
            params = run.get("params", {})
            if filters.filtered():
                search = self._search_table(conn, source) if filters.q else NO_SEARCH
                groups = ALL_GROUPS if filters.host is None else self._host_groups(
                    conn, filters.host)
                query = sql_review("groups", search=search, groups=groups)
                rows = conn.execute(query, filters.params()).fetchall()
            else:  # (the whole list: a page of the index on size, the count kept)
                rows = conn.execute(sql_review("groups_all"), {
                    "total": self._groups, **{k: filters.params()[k] for k in PAGING}
                }).fetchall()
            verdicts = read_verdicts(conn)
            sections = [
                self._render_group(conn, source, int(g), int(size), params, verdicts)
                for g, size, _n in rows
            ]
            pictures = (
                self._pictures_html(conn, source, run)
                if int(run.get("pages") or 0) <= INLINE_PICTURES_PAGES
                or self._pictures_ready(run)
                else PICTURES_LINK
            )
            return total, run, params, rows, hosts, verdicts, sections, pictures, (
                self._batch_note()
            ), progress(conn) if self._queue_built() else None

        total, run, params, rows, hosts, verdicts, sections, pictures, note, queue = (
            self._snapshot(read)
        )
        matched = int(rows[0][2]) if rows else 0
        start = (filters.page - 1) * filters.per_page
        out = [
            _page_head(f"webdedup review — {self.db.name}"),
            '<header class="top">',
            f"<h1>webdedup review — {_e(self.db.name)}</h1>",
            # the counts in the words of 'webdedup stats' and 'db': groups by kind, then
            # duplicates by kind
            f'<p class="summary">{_e(Counts.from_mapping(total).line())}. '
            f"<a href=\"/thin\">{_e(plural(int(total.get('thin', 0)), 'thin page'))}</a> (no "
            "content of their own: never near-duplicates, never pruned). "
            f"Last run: {_e(run.get('mode'))} {_e(params.get('method'))}, "
            f"threshold {_e(params.get('threshold'))}, finished "
            f"{_e(run.get('finished_at'))}. {_e(plural(len(verdicts), 'reviewer verdict'))}. "
            '<a href="/measures">How the scores are measured</a>.</p>',
            '<p class="progress"><a href="/queue"><strong>Review the queue</strong></a>: '
            + (_e(queue.line()) if queue is not None else
               "the pairs most likely wrong first (put in order when it is first opened)")
            + "</p>",
            note,
            "</header><main>",
            pictures,
            self._filter_form(filters, hosts),
            f'<p class="matched">{matched:,} groups match'
            + (
                f"; groups {start + 1:,}–{start + len(rows):,} shown, largest first.</p>"
                if rows
                else ".</p>"
            ),
            *sections,
            self._pager(filters, matched),
            "</main></body></html>\n",
        ]
        return "\n".join(out)

    def _thin_page(self) -> str:
        """The thin pages, each with why it is thin (its own text against min_words)."""

        def read(conn: sqlite3.Connection, source: Source) -> list[Any]:
            if not table_exists(conn, "_webdedup_thin"):
                return []
            return list(conn.execute(source.sql("thin_pages")).fetchall())

        rows = self._snapshot(read)  # one read transaction, on the run the page shows
        items = "".join(
            f"<tr><td>{int(pid)}</td><td>{_e(url)}</td><td>{_e(title or '')}</td>"
            f"<td>{_e(reason)}</td></tr>"
            for pid, url, title, reason in rows
        )
        return (
            _page_head(f"webdedup review — thin pages — {self.db.name}")
            + f"<main><h1>{len(rows):,} thin pages</h1><p>Pages whose text is almost all "
            "lines their host repeats on many pages (navigation, footers, log-in boxes): too "
            "little content of their own to be a duplicate of another page by content. Each "
            'is its own canonical and is never pruned. <a href="/">back to the groups</a></p>'
            "<table><tr><th>id</th><th>url</th><th>title</th><th>why</th></tr>"
            + items
            + "</table></main></body></html>\n"
        )

    def _group_page(self, ref: str) -> Response:
        if not GROUP_ID.fullmatch(ref) or int(ref) > MAX_ID:
            raise NotFound(f"no group {ref[:40]!r}{'...' if len(ref) > 40 else ''}")

        def read(conn: sqlite3.Connection, source: Source) -> tuple[dict[str, Any], str]:
            row = conn.execute(
                "SELECT size FROM temp.review_groups WHERE dup_group = ?", (int(ref),)
            ).fetchone()
            if row is None:
                raise NotFound(f"no duplicate group {ref} (groups of 2+ pages only)")
            params = last_run(conn).get("params", {})
            section = self._render_group(
                conn, source, int(ref), int(row[0]), params, read_verdicts(conn), dim=True
            )
            return params, self._batch_note() + section

        _params, section = self._snapshot(read)
        body = (
            _page_head(f"group {ref} — webdedup review")
            + f'<main><p><a href="/">all groups</a> · <a href="/queue">the queue</a> · '
            f'<a href="/measures">how the scores are measured</a></p>{section}'
            + "</main></body></html>\n"
        )
        return self._html(body)

    # -- the queue ------------------------------------------------------------------------

    def _queue_next(self, query: dict[str, list[str]]) -> Response:
        """The next pair that needs a person (after ``?after=`` when given), or a page that
        says the queue is done."""
        after = _number(query, "after", int, 0, MAX_ID) or 0

        def read(conn: sqlite3.Connection, _source: Source) -> tuple[int | None, Progress]:
            self._need(conn, QUEUE)
            return next_pos(conn, after), progress(conn)

        pos, done = self._snapshot(read)
        if pos is not None:
            return Response(303, b"", headers={"Location": f"/queue/{pos}"})
        return self._html(
            _page_head(f"the queue — webdedup review — {self.db.name}")
            + '<header class="top"><h1>Nothing left to review</h1>'
            f'<p class="progress">{_e(done.line())}</p></header><main><p>Every pair in the '
            "queue has a verdict. The next <code>webdedup db</code> run honours them; "
            '<a href="/">all groups</a>.</p></main></body></html>\n'
        )

    def _queue_pair(self, ref: str) -> Response:
        """``/queue/pair/<member>-<canonical>``: the place of that pair in the queue (a group
        page links its members so before the queue is put in order)."""
        pair = PAIR.fullmatch(ref)
        if pair is None or max(int(pair[1]), int(pair[2])) > MAX_ID:
            raise NotFound(f"no pair {ref[:40]!r} (the queue's pairs are /queue/pair/A-B)")
        a, b = int(pair[1]), int(pair[2])
        pos = self._snapshot(lambda conn, _source: self._pos_of(conn, a, b))
        if pos is None:
            raise NotFound(f"the pair #{a}–#{b} is not in the queue")
        return Response(303, b"", headers={"Location": f"/queue/{pos}"})

    def _pos_of(self, conn: sqlite3.Connection, a: int, b: int | None) -> int | None:
        self._need(conn, QUEUE)
        return pos_of(conn, a, b)

    def _queue_page(self, ref: str) -> Response:
        if not GROUP_ID.fullmatch(ref) or int(ref) > MAX_ID:
            raise NotFound(f"no place {ref[:40]!r} in the queue")

        def read(conn: sqlite3.Connection, source: Source) -> str:
            self._need(conn, QUEUE)
            item = item_at(conn, int(ref))
            if item is None:
                raise NotFound(f"no place {ref} in the queue (it has changed: start at /queue)")
            query = source.sql("pair_pages", folder="review")
            cur = conn.execute(query, {"canonical": item.canonical, "member": item.member})
            names = [d[0] for d in cur.description]
            rows = {int(r[0]): dict(zip(names, map(as_text, r), strict=True)) for r in cur}
            params = last_run(conn).get("params", {})
            chrome = {
                pid: self._chrome(conn, source, params, row.get("host"))
                for pid, row in rows.items()
            }
            mine = [v for v in read_verdicts(conn, [item.member, item.canonical])
                    if {v.page_a, v.page_b} == {item.member, item.canonical}
                    or (v.kind == "canonical" and v.page_a == item.member)]
            return self._batch_note() + self._render_item(
                item, rows, chrome, mine, progress(conn)
            )

        body = self._snapshot(read)
        return self._html(
            _page_head(f"queue {ref} — webdedup review — {self.db.name}") + body
            + '<script src="/review.js"></script></body></html>\n'
        )

    def _chrome(
        self, conn: sqlite3.Connection, source: Source, params: dict[str, Any], host: str | None
    ) -> frozenset[str]:
        """The lines ``host`` repeats on its pages (to dim), as the run's own content counts
        them, from up to :data:`HOST_SAMPLE` of its distinct texts; none when the run
        compared whole texts."""
        if not host or not params.get("own_content", True):
            return frozenset()
        if host not in self._host_lines:
            load_char_table()  # (the normalizer's table as a run stores it: not built again)
            texts = conn.execute(
                sql_review("host_texts", host_pages=host_pages(conn)),
                {"host": host, "limit": HOST_SAMPLE},
            ).fetchall()
            min_pages = int(params.get("segment_min_pages") or 3)
            self._host_lines[host] = (
                template_lines(conn, source.layout, texts, min_pages)
                if len(texts) >= 2 else frozenset()
            )
        return self._host_lines[host]

    def _render_item(
        self,
        item: Item,
        rows: dict[int, dict[str, Any]],
        chrome: dict[int, frozenset[str]],
        verdicts: list[Verdict],
        done: Progress,
    ) -> str:
        canonical, member = rows.get(item.canonical), rows.get(item.member)
        if canonical is None or member is None:
            raise NotFound("a page of this pair has gone since the last run: go to the next")
        table, share = side_by_side(
            _text(canonical), _text(member), chrome[item.canonical], chrome[item.member]
        )
        back = f"/queue?after={item.pos}"
        here = f"/queue/{item.pos}"
        sentence = why_grouped(item.kind, share, canonical.get("canonical_url"))
        scored = ""
        if item.kind == "near" and item.score is not None:
            scored = (f" The run scored the pair {item.score:.3f} (threshold "
                      f"{self._threshold:g}).")
        actions = [self._form("duplicate", item.member, item.canonical, "Duplicate", back,
                              key="a", ident="accept", css="accept")]
        if item.kind == "near":
            actions.append(self._form("not_duplicate", item.member, item.canonical,
                                      "Not a duplicate", back, key="n", ident="reject",
                                      css="reject"))
        actions.append(self._form("canonical", item.member, item.canonical,
                                  "Make this the canonical", back, key="c", ident="canonical"))
        if item.pos > 1:
            actions.append(f'<a class="nav" id="prev" rel="prev" href="/queue/{item.pos - 1}">'
                           "← previous<kbd>k</kbd></a>")
        actions.append(f'<a class="nav" id="next" rel="next" href="{_e(back)}">'
                       "next →<kbd>j</kbd></a>")
        actions.append(
            '<form method="post" action="/verdict/undo" id="undo">'
            f'<input type="hidden" name="token" value="{_e(self.token)}">'
            '<button type="submit">undo<kbd>u</kbd></button></form>'
        )
        decided = ""
        if verdicts:
            decided = '<p class="decided">Decided: ' + "<br>".join(
                self._verdict_line(v, here) for v in verdicts) + "</p>"

        def head(row: dict[str, Any], label: str) -> str:
            return (f'<th><h3>{label} #{row["id"]} · {_title(row)}</h3>'
                    f'<p class="url">{_link(row["url"])}</p></th>')

        return "\n".join([
            '<header class="top">',
            f"<h1>webdedup review — {_e(self.db.name)}</h1>",
            f'<p class="progress"><strong>{_e(done.line())}</strong> · '
            '<a href="/">all groups</a> · <a href="/measures">how the scores are measured</a>'
            "</p></header>",
            f'<main class="queue" data-pos="{item.pos}" data-member="{item.member}" '
            f'data-canonical="{item.canonical}" data-group="{item.group}">',
            f'<p class="why">{sentence}{_e(scored)} <a href="/measures#{_e(item.kind or "")}">'
            "how this is measured</a> · "
            f'<a href="/group/{item.group}">the whole group</a></p>',
            decided,
            f'<div class="actions">{"".join(actions)}</div>',
            '<table class="sbs"><thead><tr>',
            head(canonical, '<span class="badge canonical">canonical</span>'),
            head(member, f'<span class="badge">{_e(item.kind or "?")}</span> member'),
            "</tr></thead><tbody>",
            rows_html(table) or '<tr><td colspan="2" class="note">(no text)</td></tr>',
            "</tbody></table>",
            '<p class="note">Keys: <kbd>a</kbd> duplicate · <kbd>n</kbd> not a duplicate · '
            "<kbd>c</kbd> make the member the canonical · <kbd>j</kbd> next · <kbd>k</kbd> "
            "previous · <kbd>u</kbd> undo. Dimmed: lines the site repeats on its other pages. "
            "Marked: <del>only in the canonical</del>, <ins>only in the member</ins>.</p>",
            "</main>",
        ])

    def _measures_page(self) -> str:
        params = self._snapshot(lambda conn, _source: last_run(conn).get("params", {}))
        return (
            _page_head(f"how the scores are measured — webdedup review — {self.db.name}")
            + '<main><p><a href="/queue">the queue</a> · <a href="/">all groups</a></p>'
            "<h1>How the scores are measured</h1>"
            '<p id="near">The sentence above a pair in the queue ("92 % of the member\'s own '
            "text is in the canonical\") is the review's own count: the member's words, "
            "without the lines its site repeats on its other pages, found in the same order "
            "in the canonical's. The run decided with its own measure, named here:</p>"
            + _legend(params) + "</main></body></html>\n"
        )

    def _batch_note(self) -> str:
        if not self._batched:
            return ""
        return (
            '<p class="verdicts">A <code>webdedup db</code> run is writing its results in '
            "batches (or stopped halfway through them): some pages below may carry its "
            "groups, others the run before's. Reload once it has finished.</p>"
        )

    def _pictures_html(self, conn: sqlite3.Connection, source: Source, run: dict) -> str:
        key = run.get("id")
        if self._pictures is not None and self._pictures[0] == key:
            return self._pictures[1]
        self._pictures = (key, pictures_html(conn, source, run))
        return self._pictures[1]

    def _pictures_ready(self, run: dict) -> bool:
        """Whether the pictures of ``run`` were made already (by ``/pictures``)."""
        return self._pictures is not None and self._pictures[0] == run.get("id")

    def _pictures_page(self) -> str:
        """The pictures alone: on a large crawl the first page links here, as they take
        a pass over every verified pair and a clustering at three thresholds."""

        def read(conn: sqlite3.Connection, source: Source) -> str:
            return self._pictures_html(conn, source, last_run(conn))

        return (
            _page_head(f"pictures — webdedup review — {self.db.name}")
            + '<main><p><a href="/">all groups</a> · <a href="/queue">the queue</a></p>'
            + self._snapshot(read) + "</main></body></html>\n"
        )

    def _filter_form(self, f: Filters, hosts: list[str]) -> str:
        def field_(name: str, label: str, value: Any, kind: str = "text", extra: str = "") -> str:
            shown = "" if value is None else _e(value)
            return (
                f'<label>{label}<input name="{name}" type="{kind}" value="{shown}" {extra}>'
                "</label>"
            )

        kinds = "".join(
            f'<option value="{k}"{" selected" if f.kind == k else ""}>{k}</option>' for k in KINDS
        )
        options = "".join(f'<option value="{_e(h)}">' for h in hosts)
        lang = field_("lang", "language", f.lang) if self._lang else ""
        return (
            '<form class="filters" method="get" action="/" id="filters">'
            + field_("q", "search URL or title", f.q, "search", 'size="28"')
            + f'<label>kind<select name="kind"><option value="">any</option>{kinds}'
            "</select></label>"
            + field_("host", "host", f.host, "text", 'list="hosts" size="22"')
            + f'<datalist id="hosts">{options}</datalist>'
            + field_("min_size", "size ≥", f.min_size, "number", 'min="2" style="width:5em"')
            + field_("max_size", "size ≤", f.max_size, "number", 'min="2" style="width:5em"')
            + field_("min_score", "lowest score ≥", f.min_score, "number",
                     'min="0" max="1" step="0.01" style="width:6em"')
            + field_("max_score", "lowest score ≤", f.max_score, "number",
                     'min="0" max="1" step="0.01" style="width:6em"')
            + lang
            + '<button type="submit">Filter</button> <a href="/">clear</a></form>'
        )

    def _pager(self, f: Filters, matched: int) -> str:
        links = []
        if f.page > 1:
            links.append(f'<a rel="prev" href="/?{_e(f.query_string(page=f.page - 1))}">'
                         "← previous</a>")
        if f.page * f.per_page < matched:
            links.append(f'<a rel="next" href="/?{_e(f.query_string(page=f.page + 1))}">'
                         "next →</a>")
        pages = max(1, -(-matched // f.per_page))
        return f'<p class="pager">page {f.page:,} of {pages:,} {" · ".join(links)}</p>'

    def _render_group(
        self,
        conn: sqlite3.Connection,
        source: Source,
        group: int,
        size: int,
        params: dict[str, Any],
        verdicts: list[Verdict],
        *,
        dim: bool = False,
    ) -> str:
        """A group's section: its canonical, then each member's text aligned with the
        canonical's (``dim``: the lines their sites repeat dimmed, as on a group's own page;
        the list of groups leaves them, to read no host's other pages)."""
        query = source.sql("group_pages", folder="review")
        cur = conn.execute(query, {"group": group, "limit": MAX_MEMBERS + 1})
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, map(as_text, r), strict=True)) for r in cur]
        if not rows:
            return ""
        keys = validate_election(source.election or DEFAULT_ELECTION)
        canonical, members = rows[0], rows[1:]
        named = measures(params)
        canon_text = _text(canonical)
        canon_words, _ = _words(canon_text)
        canon_chrome = (
            self._chrome(conn, source, params, canonical["host"]) if dim else frozenset()
        )
        ids = {r["id"] for r in rows}
        mine = [v for v in verdicts if v.page_a in ids or v.page_b in ids]
        queued = set() if self._queue_built() else self._queued(
            conn, group, int(canonical["id"]), [int(m["id"]) for m in members]
        )
        back = f"/group/{group}"
        out = [
            f'<section class="group" id="g{group}" data-group="{group}">',
            f'<h2><a href="/group/{group}">Group {group}</a> · {size:,} pages</h2>',
            '<div class="canon">',
            f'<h3>#{canonical["id"]} · {_title(canonical)} '
            '<span class="badge canonical">canonical</span></h3>',
            f'<p class="url">{_link(canonical["url"])}</p>',
            f'<p class="election">canonical URL {_e(canonical["canonical_url"] or "-")}</p>',
            f'<p class="election">elected on: {election_text(keys, canonical)} '
            f'(order: {_e(", ".join(ELECTION_KEYS[k].name for k in keys))})</p>',
            "</div>",
        ]
        if mine:
            out.append('<div class="verdicts">' + "<br>".join(
                self._verdict_line(v, back) for v in mine) + "</div>")
        for m in members[:MAX_MEMBERS - 1]:
            text = _text(m)
            words, n_words = _words(text)
            ratio = inline_diff(canon_words, words)[1]
            chrome = self._chrome(conn, source, params, m["host"]) if dim else frozenset()
            diff = one_column(canon_text, text, canon_chrome, chrome)
            if self._queue_built():
                pos = pos_of(conn, int(m["id"]), int(canonical["id"]))
                link = None if pos is None else f"/queue/{pos}"
            elif int(m["id"]) in queued:
                link = f"/queue/pair/{int(m['id'])}-{int(canonical['id'])}"
            else:
                link = None
            out.append(self._member(m, canonical["id"], diff, ratio, n_words, named, back, link))
        if size > len(rows):
            out.append(
                f'<p class="more">{size - len(rows):,} more pages in this group are not shown '
                "here (the canonical and the first members by id are).</p>"
            )
        out.append("</section>")
        return "\n".join(out)

    @staticmethod
    def _queued(
        conn: sqlite3.Connection, group: int, canonical: int, shown: list[int]
    ) -> set[int]:
        """Which of a group's ``shown`` members the queue holds a pair of with ``canonical``,
        before the queue is put in order: the rule of ``sql/review/queue_build.sql`` on the
        state it reads (the group's canonical there; its near members, else its first member
        by id), a few keyed look-ups, not the group's every member."""
        if not shown:
            return set()
        (held,) = conn.execute(
            "SELECT max(id) FROM main._webdedup_group_members "
            "WHERE dup_group = ? AND is_canonical = 1", (group,)
        ).fetchone()
        if held != canonical:
            return set()  # (no canonical, or another one than the page's: no pair of it)
        if conn.execute(
            "SELECT 1 FROM main._webdedup_group_kinds WHERE dup_kind = 'near' AND dup_group = ?",
            (group,),
        ).fetchone() is None:
            (first,) = conn.execute(
                "SELECT min(id) FROM main._webdedup_group_members "
                "WHERE dup_group = ? AND is_canonical = 0", (group,)
            ).fetchone()
            return {first} & set(shown)
        marks = ", ".join("?" * len(shown))
        return {int(i) for (i,) in conn.execute(
            "SELECT id FROM main._webdedup_group_kinds "
            f"WHERE dup_kind = 'near' AND dup_group = ? AND id IN ({marks})", (group, *shown)
        )}

    def _member(
        self,
        m: dict[str, Any],
        canonical: int,
        diff: str,
        ratio: float,
        n_words: int,
        named: dict[str, str],
        back: str,
        link: str | None = None,
    ) -> str:
        """One member on a group's page (``link``: its pair's place in the queue)."""
        kind = m["dup_kind"] or "?"
        score = m["dup_score"]
        scores = [f'<span class="badge">{_e(kind)}</span>']
        if kind == "near" and score is not None:
            scores.append(
                f'<span title="{_e(named["near"])}">similarity to the canonical '
                f"{score:.3f} ({_e(_short_measure(named['near']))})</span>"
            )
        elif kind in ("url", "exact"):
            scores.append(f'<span title="{_e(named[kind])}">{_e(named[kind])}</span>')
        if m["edge_score"] is not None:
            scores.append(f"verified edge {m['edge_score']:.3f}")
        scores.append(f'<span title="{_e(named["words"])}">word similarity {ratio:.3f}</span>')
        if link is not None:
            scores.append(f'<a href="{link}">side by side, paragraphs aligned →</a>')
        forms = [self._form("duplicate", m["id"], canonical, "Duplicate", back),
                 self._form("canonical", m["id"], canonical, "Make this the canonical", back)]
        if kind == "near":
            forms.insert(1, self._form("not_duplicate", m["id"], canonical, "Not a duplicate",
                                       back))
        else:
            forms.append('<span class="note">same URL or text as its group: a run cannot '
                         "split it</span>")
        note = ""
        if n_words > 1500:
            note = f'<p class="note">word similarity of the first 1,500 of {n_words:,} words</p>'
        return (
            f'<div class="member" data-id="{m["id"]}" data-kind="{_e(kind)}">'
            f'<h3>#{m["id"]} · {_title(m)}</h3><p class="url">{_link(m["url"])}</p>'
            f'<p class="scores">{" · ".join(scores)}</p>'
            f'<p>{"".join(forms)}</p>'
            f'<div class="text">{diff or "<span class=note>(no text)</span>"}</div>{note}</div>'
        )

    def _form(
        self, kind: str, a: int, b: int, label: str, back: str, *, key: str = "",
        ident: str = "", css: str = "",
    ) -> str:
        """A verdict's form (``key``: its keyboard key, shown; ``ident``: the form's id, by
        which the queue's script submits it)."""
        form_id = f' id="{ident}"' if ident else ""
        button_class = f' class="{css}"' if css else ""
        shown = f"{_e(label)}<kbd>{_e(key)}</kbd>" if key else _e(label)
        return (
            f'<form class="verdict" method="post" action="/verdict"{form_id}>'
            f'<input type="hidden" name="token" value="{_e(self.token)}">'
            f'<input type="hidden" name="kind" value="{kind}">'
            f'<input type="hidden" name="page_a" value="{int(a)}">'
            f'<input type="hidden" name="page_b" value="{int(b)}">'
            f'<input type="hidden" name="back" value="{_e(back)}">'
            f'<button type="submit" name="verdict" value="{kind}-{int(a)}"{button_class}>'
            f"{shown}</button></form>"
        )

    def _verdict_line(self, v: Verdict, back: str) -> str:
        # ISO 8601 UTC strings of one format compare as times
        applied = bool(self._run_started) and v.created_at < self._run_started
        when = (
            "honoured by the last run"
            if applied
            else "applies from the next <code>webdedup db</code> run"
        )
        return (
            f"{_e(v.describe())} — {when} "
            f'<form class="verdict" method="post" action="/verdict/withdraw">'
            f'<input type="hidden" name="token" value="{_e(self.token)}">'
            f'<input type="hidden" name="id" value="{v.id}">'
            f'<input type="hidden" name="back" value="{_e(back)}">'
            f'<button type="submit">withdraw</button></form>'
        )


#: Up to this many pages in the last run the first page shows the pictures (group sizes,
#: verified scores, groups by threshold). They take a pass over every verified pair and a
#: clustering at three thresholds, about two minutes at a million pages: a larger crawl's
#: first page links to ``/pictures`` instead, and shows them once they were made there.
INLINE_PICTURES_PAGES = 50_000
PICTURES_LINK = (
    '<p class="pictures"><a href="/pictures">Pictures: group sizes, verified scores, groups '
    "by threshold</a> (on a crawl this large they take a minute or more to make, once a run)"
    "</p>"
)


def sql_review(name: str, **identifiers: str) -> str:
    return sql("review/" + name, **identifiers)


#: What ``sql/review/groups.sql`` goes through: every group, or with a host filter the groups
#: of ``temp.review_host_groups`` (``sql/review/host_groups.sql``), in that order.
ALL_GROUPS = "temp.review_groups"
HOST_GROUPS = ("(SELECT g.dup_group, g.size FROM temp.review_host_groups AS h "
               "CROSS JOIN temp.review_groups AS g ON g.dup_group = h.dup_group)")
#: What ``sql/review/groups.sql`` searches when no search is asked (no rows).
NO_SEARCH = "(SELECT NULL AS dup_group, NULL AS url, NULL AS title WHERE 0)"


def _text(row: dict[str, Any]) -> str | None:
    text = row.get("text")
    if not text and row.get("html"):
        text = extract_text(row["html"])
    return text


def _title(row: dict[str, Any]) -> str:
    return _e(row["title"]) if row.get("title") else '<span class="note">(no title)</span>'


def _short_measure(text: str) -> str:
    if text.startswith("verified on the texts"):
        return "verified text similarity (Levenshtein, moved or contained)"
    if text.startswith("verified overlap"):
        return "verified word-shingle overlap"
    if text.startswith("verified Jaccard"):
        return "verified word-shingle Jaccard"
    return "Levenshtein ratio"


def _legend(params: dict[str, Any]) -> str:
    named = measures(params)
    return (
        '<dl class="legend"><dt>similarity to the canonical (near-duplicates)</dt>'
        f"<dd>{_e(named['near'])}</dd><dt>verified edge</dt><dd>the same measure, stored "
        "when the member was compared with the canonical directly</dd>"
        f"<dt>url / exact</dt><dd>{_e(named['url'])}; {_e(named['exact'])}</dd>"
        f"<dt>word similarity</dt><dd>{_e(named['words'])}</dd>"
        "<dt>marks</dt><dd><del>words only in the canonical</del>, "
        "<ins>words only in the member</ins></dd></dl>"
    )


def _page_head(title: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}{APP_CSS}</style>\n</head>\n<body>\n"
    )
