"""The review app's pages and actions, without the socket (:mod:`.server` serves them).

:class:`ReviewApp` keeps one read connection to the annotated database and, once a run, an
index of its duplicate groups in TEMP tables (``sql/review/members_build.sql``): a request
reads one page of groups (``LIMIT``/``OFFSET`` over that index) and those groups' pages, never
the whole table. A verdict is written through a short write connection of its own
(``store.verdicts``) and honoured by the next ``webdedup db`` run.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from ..algorithms.election import DEFAULT_ELECTION, ELECTION_KEYS, validate_election
from ..algorithms.html_text import extract_text
from ..errors import ConfigError, InputError, WebdedupError
from ..output.html_review import CSS, MAX_MEMBERS, _e, _link, _words, inline_diff, measures
from ..output.pictures import pictures_html
from ..output.source import KINDS, Source, counts, last_run, read_layout
from ..store import (
    connect,
    migrate,
    quote,
    run_script,
    sql,
    table_columns,
    table_exists,
    transaction,
)
from ..store.counts import groups_subquery
from ..store.pages import as_text
from ..store.verdicts import Verdict, add_verdict, read_verdicts, withdraw_verdict

#: Groups a page shows by default, and at most.
PER_PAGE = 10
MAX_PER_PAGE = 50
#: Columns that may hold a page's language (the language filter appears when one exists).
LANG_COLUMNS = ("lang", "language")

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
    """The review pages of one annotated database (thread-safe: one request at a time)."""

    def __init__(self, db: str | Path, *, busy_timeout: float = 5.0) -> None:
        self.db = Path(db)
        self.busy_timeout = busy_timeout
        #: sent with every form and checked on every POST (no other site can post verdicts)
        self.token = secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._source: Source | None = None
        self._built_for: Any = None
        self._lang: str | None = None
        self._pictures: tuple[Any, str] | None = None
        self._run_started = ""
        with self._lock:
            self._refresh()  # fail now (not at the first request) on a database not annotated

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- reading -------------------------------------------------------------------------

    def _refresh(self) -> tuple[sqlite3.Connection, Source]:
        """The read connection and layout; the group index rebuilt when a run finished."""
        if self._conn is None:
            self._conn = connect(self.db, busy_timeout=self.busy_timeout, write=False)
        conn = self._conn
        run = conn.execute(
            "SELECT id, started_at FROM _webdedup_runs WHERE status = 'ok' ORDER BY id DESC "
            "LIMIT 1"
        ).fetchone()
        key = run[0] if run else None
        self._run_started = str(run[1]) if run else ""
        if self._source is None or key != self._built_for:
            source = read_layout(conn, str(self.db))
            have = set(table_columns(conn, source.table))
            lang = next((c for c in LANG_COLUMNS if c in have), None)
            conn.execute("BEGIN")
            try:
                run_script(
                    conn,
                    "review/members_build",
                    pages=quote(source.table),
                    rowid=quote(source.layout.rowid),
                    url=quote(source.url),
                    title=source.column("p", source.title),
                    lang=source.column("p", lang),
                    groups=groups_subquery(quote(source.table)),
                )
            finally:
                conn.execute("COMMIT")
            self._source, self._lang, self._built_for = source, lang, key
            self._pictures = None
        assert self._source is not None
        return conn, self._source

    # -- requests ------------------------------------------------------------------------

    def handle(
        self, method: str, path: str, query: dict[str, list[str]], form: dict[str, list[str]]
    ) -> Response:
        """Answer one request (``form``: the decoded POST body)."""
        try:
            with self._lock:
                if method == "GET" and path in ("/", "/index.html"):
                    return self._html(self._index(Filters.from_query(query)))
                if method == "GET" and path.startswith("/group/"):
                    return self._group_page(path.removeprefix("/group/"))
                if method == "GET" and path == "/thin":
                    return self._html(self._thin_page())
                if method == "GET" and path == "/health":
                    return Response(200, b"ok\n", "text/plain; charset=utf-8")
                if method == "POST" and path in ("/verdict", "/verdict/withdraw"):
                    return self._post(path, form)
            return self._error(404, f"no page {path!r} here (try /)")
        except ConfigError as exc:
            return self._error(400, str(exc))
        except WebdedupError as exc:
            return self._error(409 if isinstance(exc, InputError) else 500, str(exc))

    def _html(self, body: str, status: int = 200) -> Response:
        return Response(status, body.encode("utf-8"))

    def _error(self, status: int, message: str) -> Response:
        body = _page_head("webdedup review: error") + (
            f'<main><h1>Error {status}</h1><p>{_e(message)}</p><p><a href="/">back to the '
            "groups</a></p></main></body></html>\n"
        )
        return self._html(body, status)

    def _post(self, path: str, form: dict[str, list[str]]) -> Response:
        if _one(form, "token") != self.token:
            return self._error(403, "this form is stale or not from this review app: reload it")
        back = _one(form, "back") or "/"
        if not back.startswith("/") or back.startswith("//"):
            back = "/"
        conn = connect(self.db, busy_timeout=self.busy_timeout)
        try:
            with transaction(conn):
                migrate(conn)  # a database annotated before verdicts existed gets the table
                if path == "/verdict/withdraw":
                    withdraw_verdict(conn, _number(form, "id", int, 1, 2**62) or 0)
                else:
                    kind = _one(form, "kind") or ""
                    a = _number(form, "page_a", int, 0, 2**62)
                    b = _number(form, "page_b", int, 0, 2**62)
                    if a is None:
                        raise ConfigError("a verdict names a page (page_a)")
                    add_verdict(conn, kind, a, b, _one(form, "note"))
        finally:
            conn.close()
        return Response(303, b"", headers={"Location": back})

    # -- pages ---------------------------------------------------------------------------

    def _index(self, filters: Filters) -> str:
        conn, source = self._refresh()
        conn.execute("BEGIN")
        try:
            total = counts(conn, source)
            run = last_run(conn)
            params = run.get("params", {})
            rows = conn.execute(sql_review("groups"), filters.params()).fetchall()
            matched = int(rows[0][4]) if rows else 0
            hosts = [h for h, _ in conn.execute(sql_review("hosts"), {"limit": 200})]
            verdicts = read_verdicts(conn)
            sections = [
                self._render_group(conn, source, int(g), int(size), params, verdicts)
                for g, size, _canonical, _low, _n in rows
            ]
            pictures = self._pictures_html(conn, source, run)
        finally:
            conn.execute("COMMIT")
        start = (filters.page - 1) * filters.per_page
        out = [
            _page_head(f"webdedup review — {self.db.name}"),
            '<header class="top">',
            f"<h1>webdedup review — {_e(self.db.name)}</h1>",
            f'<p class="summary">{total["pages"]:,} pages, {total["duplicate_groups"]:,} groups '
            f"with duplicates ({total['url_duplicates']:,} URL, "
            f"{total['exact_duplicates']:,} exact, {total['near_duplicates']:,} near "
            f"duplicates); <a href=\"/thin\">{total.get('thin', 0):,} thin pages</a> (no "
            "content of their own: never near-duplicates, never pruned). "
            f"Last run: {_e(run.get('mode'))} {_e(params.get('method'))}, "
            f"threshold {_e(params.get('threshold'))}, finished "
            f"{_e(run.get('finished_at'))}. {len(verdicts):,} reviewer verdicts.</p>",
            _legend(params),
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
        conn, source = self._refresh()
        conn.execute("BEGIN")
        try:
            rows = (
                conn.execute(source.sql("thin_pages")).fetchall()
                if table_exists(conn, "_webdedup_thin")
                else []
            )
        finally:
            conn.execute("COMMIT")
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
        if not ref.isdigit():
            return self._error(404, f"no group {ref!r}")
        conn, source = self._refresh()
        conn.execute("BEGIN")
        try:
            row = conn.execute(
                "SELECT size FROM temp.review_groups WHERE dup_group = ?", (int(ref),)
            ).fetchone()
            if row is None:
                return self._error(404, f"no duplicate group {ref} (groups of 2+ pages only)")
            params = last_run(conn).get("params", {})
            section = self._render_group(
                conn, source, int(ref), int(row[0]), params, read_verdicts(conn)
            )
        finally:
            conn.execute("COMMIT")
        body = (
            _page_head(f"group {ref} — webdedup review")
            + f'<main><p><a href="/">all groups</a></p>{_legend(params)}{section}'
            + "</main></body></html>\n"
        )
        return self._html(body)

    def _pictures_html(self, conn: sqlite3.Connection, source: Source, run: dict) -> str:
        key = run.get("id")
        if self._pictures is not None and self._pictures[0] == key:
            return self._pictures[1]
        self._pictures = (key, pictures_html(conn, source, run))
        return self._pictures[1]

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
    ) -> str:
        query = source.sql("group_pages", folder="review")
        cur = conn.execute(query, {"group": group, "limit": MAX_MEMBERS + 1})
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, map(as_text, r), strict=True)) for r in cur]
        if not rows:
            return ""
        keys = validate_election(source.election or DEFAULT_ELECTION)
        canonical, members = rows[0], rows[1:]
        named = measures(params)
        canon_words, _ = _words(_text(canonical))
        ids = {r["id"] for r in rows}
        mine = [v for v in verdicts if v.page_a in ids or v.page_b in ids]
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
            words, n_words = _words(_text(m))
            diff, ratio = inline_diff(canon_words, words)
            out.append(self._member(m, canonical["id"], diff, ratio, n_words, named, back))
        if size > len(rows):
            out.append(
                f'<p class="more">{size - len(rows):,} more pages in this group are not shown '
                "here (the canonical and the first members by id are).</p>"
            )
        out.append("</section>")
        return "\n".join(out)

    def _member(
        self,
        m: dict[str, Any],
        canonical: int,
        diff: str,
        ratio: float,
        n_words: int,
        named: dict[str, str],
        back: str,
    ) -> str:
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
        forms = [self._form("canonical", m["id"], canonical, "Make this the canonical", back)]
        if kind == "near":
            forms.insert(0, self._form("not_duplicate", m["id"], canonical, "Not a duplicate",
                                       back))
        else:
            forms.append('<span class="note">same URL or text as its group: a run cannot '
                         "split it</span>")
        note = ""
        if n_words > 1500:
            note = f'<p class="note">first 1,500 of {n_words:,} words compared</p>'
        return (
            f'<div class="member" data-id="{m["id"]}" data-kind="{_e(kind)}">'
            f'<h3>#{m["id"]} · {_title(m)}</h3><p class="url">{_link(m["url"])}</p>'
            f'<p class="scores">{" · ".join(scores)}</p>'
            f'<p>{"".join(forms)}</p>'
            f'<div class="text">{diff or "<span class=note>(no text)</span>"}</div>{note}</div>'
        )

    def _form(self, kind: str, a: int, b: int, label: str, back: str) -> str:
        return (
            f'<form class="verdict" method="post" action="/verdict">'
            f'<input type="hidden" name="token" value="{_e(self.token)}">'
            f'<input type="hidden" name="kind" value="{kind}">'
            f'<input type="hidden" name="page_a" value="{int(a)}">'
            f'<input type="hidden" name="page_b" value="{int(b)}">'
            f'<input type="hidden" name="back" value="{_e(back)}">'
            f'<button type="submit" name="verdict" value="{kind}-{int(a)}">{_e(label)}</button>'
            "</form>"
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


def sql_review(name: str) -> str:
    return sql("review/" + name)


def _text(row: dict[str, Any]) -> str | None:
    text = row.get("text")
    if not text and row.get("html"):
        text = extract_text(row["html"])
    return text


def _title(row: dict[str, Any]) -> str:
    return _e(row["title"]) if row.get("title") else '<span class="note">(no title)</span>'


def _short_measure(text: str) -> str:
    if text.startswith("verified overlap"):
        return "verified word-shingle overlap"
    if text.startswith("verified Jaccard"):
        return "verified word-shingle Jaccard"
    if text.startswith("SimHash"):
        return "SimHash similarity"
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
