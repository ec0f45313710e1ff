"""Issue 30: a real client. Crawler code written for the ``Deduplicator`` webdedup follows
(aurelienpierreeng/VirtualSecretary, ``src/core/deduplicator.py``) runs unchanged on a
``pages`` table of that crawler's exact schema, filled from the real WARCs of ../shared/data
the way its ``batch_parse_web_page`` fills ``parsed``, ``length``, ``datetime`` and
``content_hash``, called as its docs (``docs/starting/6-crawling-pages.md``,
``7-build-your-own-search-engine.md``, ``docs/index.md``) and its ``src/tests/test-crawler.py``
call it. The survivors are checked against that API's rules, written down below page by page;
where webdedup is deliberately different, the test says so.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import sqlite3
import unicodedata
import warnings
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import SHARED_DATA
from dateutil import parser as dateparser

from webdedup import Deduplicator
from webdedup.algorithms.text import content_hash
from webdedup.algorithms.urls import canonicalize_url
from webdedup.cli import cli
from webdedup.ingest import ingest
from webdedup.pipeline.prune import restore_pruned

#: That crawler's ``pages`` table as ``database.create_temp_db`` makes it (``web_page``'s
#: fields; no primary key, so that duplicates can be imported and deduplicated).
SCHEMA = (
    "CREATE TABLE pages (title TEXT, url TEXT, domain TEXT, date TEXT, content TEXT, "
    "excerpt TEXT, h1 LIST, h2 LIST, lang TEXT, category TEXT, datetime DATETIME, "
    "length INTEGER, parsed TEXT, tokenized LIST, stemmed LIST, vectorized ARRAY, "
    "wayback TEXT, crawled DATETIME, content_hash TEXT)"
)
#: Its main store (``database.create_db``): ``url`` is the primary key.
STORE_SCHEMA = SCHEMA.replace("url TEXT,", "url TEXT PRIMARY KEY,")
FIELDS = re.findall(r"(\w+) [A-Z]+", SCHEMA.partition("(")[2])

#: The crawls, in the order they are imported: two crawls of data.gov.uk 11 minutes apart
#: (every page twice), one iana.org page captured twice, Wikipedia's main page during and after
#: the 2012 blackout, one page over http and https with revisits, 29 pages of a shop.
WARCS = (
    "datagovuk-crawl1.warc.gz",
    "datagovuk-crawl2.warc.gz",
    "iana-dupes.warc.gz",
    "wikipedia-blackout.warc.gz",
    "wikipedia-post-blackout.warc.gz",
    "aut-http-https-revisits.warc",
    "shop-sort-variants.warc.gz",
)
#: The last iana.org capture was found by following an outside link: that crawler's
#: ``category="external"``, which loses every election.
EXTERNAL = ("http://example.com", "2014-01-27T17:12:51Z")
#: Imported after ``batch_parse_web_page`` ran: ``parsed``, ``length``, ``datetime`` and
#: ``content_hash`` empty (the text is read from ``content`` then: issue 29 item 5).
UNPARSED = ("http://en.wikipedia.org/wiki/Main_Page", "2012-01-19T10:02:03Z")


# -- that crawler's preparation (batch_parse_web_page), written from its description --------
_TYPOGRAPHY = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"',
                             "\u2013": "-", "\u2014": "-", "\u2026": "...", "\xa0": " "})


def _clean_whitespaces(text: str) -> str:
    """Blank lines to one paragraph break, runs of spaces to one, a newline inside a
    sentence to a space."""
    text = re.sub(r"(?: ?[\t\r\n]{2,} ?)+", "\n\n", text)
    text = re.sub(r" +", " ", text)
    text = re.sub(r"(?: ?[\t\r\n]+ ?){2,}", "\n\n", text)
    text = re.sub(r"(?<=\w)[\n\t\r](?=\w)", " ", text)
    return text.strip()


def _normalize(text: str) -> str:
    """``Tokenizer.normalize_text``: lower case, typography to ASCII (accents dropped, other
    non-ASCII characters removed), whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text.lower()).translate(_TYPOGRAPHY)
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _clean_whitespaces(text.encode("ascii", "ignore").decode().strip()).strip(" \n\r")


def _guess_date(text: str | None) -> dt.datetime | None:
    """``utils.guess_date``: a fuzzy parse, as a UTC datetime (None when it fails)."""
    if not text:
        return None
    try:
        when = dateparser.parse(text, fuzzy=True)
    except (ValueError, OverflowError):
        return None
    return when.replace(tzinfo=dt.timezone.utc) if when.tzinfo is None else when.astimezone(
        dt.timezone.utc)


def parse_web_page(page: dict[str, Any]) -> dict[str, Any]:
    """What ``batch_parse_web_page`` writes: cleaned title and content, ``parsed`` (the
    normalized title and content), its ``length`` and SHA-1 ``content_hash``, ``datetime``
    from ``date``, an ``excerpt``."""
    title = _clean_whitespaces(page["title"] or "")
    content = _clean_whitespaces(page["content"] or "")
    parsed = _normalize(f"{title}\n\n{content}")
    return page | {
        "title": title,
        "content": content,
        "excerpt": content[:800],
        "parsed": parsed,
        "length": len(parsed),
        "datetime": _guess_date(page["date"]),
        "content_hash": hashlib.sha1(parsed.encode("utf-8")).hexdigest(),
    }


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return crawl_pages(tmp_path_factory.mktemp("warcs") / "scratch.sqlite")


def crawl_pages(scratch: Path) -> list[dict[str, Any]]:
    """The pages as that crawler hands them to ``populate_db`` and then parses them: the
    real WARCs' HTML responses (text extracted by ``webdedup ingest``), in crawl order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the WARCs' own oddities (revisits, redirects)
        ingest(scratch, [SHARED_DATA / "warc" / name for name in WARCS], workers=1)
    with closing(sqlite3.connect(scratch)) as conn:
        rows = conn.execute(
            "SELECT url, title, content, datetime, crawled FROM pages ORDER BY id"
        ).fetchall()
    pages = []
    for url, title, content, date, crawled_at in rows:
        page = {"url": url, "title": title or "", "content": content or "", "date": date,
                "crawled": crawled_at, "lang": None,
                "category": "external" if (url, crawled_at) == EXTERNAL else "reference"}
        page = parse_web_page(page)
        if (url, crawled_at) == UNPARSED:
            page |= {"parsed": None, "length": None, "datetime": None, "content_hash": None}
        pages.append(page)
    return pages


def populate(
    db: Path | sqlite3.Connection, pages: list[dict[str, Any]], schema: str = SCHEMA
) -> None:
    """``database.populate_db``: one row a page, datetimes as sqlite3 stores them."""
    conn = sqlite3.connect(db) if isinstance(db, Path) else db
    conn.execute(schema)
    conn.executemany(
        f"INSERT OR REPLACE INTO pages ({', '.join(FIELDS)}) "
        f"VALUES ({', '.join('?' * len(FIELDS))})",
        [tuple(_stored(page.get(f)) for f in FIELDS) for page in pages],
    )
    conn.commit()
    if isinstance(db, Path):
        conn.close()


def _stored(value: Any) -> Any:
    return str(value) if isinstance(value, dt.datetime) else value  # sqlite3's adapter


def rows(conn: sqlite3.Connection, table: str = "pages") -> list[tuple[Any, ...]]:
    return conn.execute(
        f"SELECT rowid, {', '.join(FIELDS)} FROM {table} ORDER BY rowid"
    ).fetchall()


def source(crawled: list[dict[str, Any]], rowids: Iterator[int] | list[int]) -> list[str]:
    """``url @ crawl time`` of the pages at these rowids (1-based crawl order)."""
    return sorted(f"{crawled[i - 1]['url']} @ {crawled[i - 1]['crawled']}" for i in rowids)


#: Survivors of the docs' call (``threshold=1.0, discard_params=False``) by that API's rules,
#: as ``url @ crawl time`` of the row that stays: per canonical URL the internal page, then
#: the newer date, the newer crawl, the longer text; per content hash (of the URL winners) the
#: same, then the shorter URL; rows without a hash (the unparsed Wikipedia capture) take part
#: in URL deduplication only. So: data.gov.uk's second crawl (every URL newer), the internal
#: example.com capture (the external one has the same text), the blackout's Main_Page (the
#: other capture has no ``datetime``: it comes last), wend.htm (its title alone) and wend3.htm
#: (wend1-3 share their text; wend3 is newest), and one shop page per text (the shortest URL).
DOCS_SURVIVORS = [
    "http://data.gov.uk/ @ 2014-03-25T12:23:51Z",
    "http://data.gov.uk/about @ 2014-03-25T12:29:24Z",
    "http://data.gov.uk/accessibility-statement @ 2014-03-25T12:33:07Z",
    "http://data.gov.uk/apps @ 2014-03-25T12:30:15Z",
    "http://data.gov.uk/blog @ 2014-03-25T12:30:47Z",
    "http://data.gov.uk/blog/introducing-hampshire-hub-0 @ 2014-03-25T12:29:14Z",
    "http://data.gov.uk/blog/open-data-case-studies-and-time-machines%E2%80%A6"
    " @ 2014-03-25T12:28:23Z",
    "http://data.gov.uk/blog/open-data-sticky-sweets-and-nights-ibiza @ 2014-03-25T12:32:17Z",
    "http://data.gov.uk/blog/open-data-vision-leeds @ 2014-03-25T12:30:57Z",
    "http://data.gov.uk/blog/transparency-and-open-data-looking-forward @ 2014-03-25T12:32:57Z",
    "http://data.gov.uk/code-conduct @ 2014-03-25T12:31:07Z",
    "http://data.gov.uk/contact @ 2014-03-25T12:29:04Z",
    "http://data.gov.uk/cookies-policy @ 2014-03-25T12:30:26Z",
    "http://data.gov.uk/data/api @ 2014-03-25T12:33:18Z",
    "http://data.gov.uk/data/map-based-search @ 2014-03-25T12:32:37Z",
    "http://data.gov.uk/data/openspending-browse @ 2014-03-25T12:27:53Z",
    "http://data.gov.uk/data/openspending-report/index @ 2014-03-25T12:29:55Z",
    "http://data.gov.uk/data/search @ 2014-03-25T12:28:54Z",
    "http://data.gov.uk/data/site-usage @ 2014-03-25T12:29:44Z",
    "http://data.gov.uk/faq @ 2014-03-25T12:31:17Z",
    "http://data.gov.uk/forum @ 2014-03-25T12:32:47Z",
    "http://data.gov.uk/library @ 2014-03-25T12:28:03Z",
    "http://data.gov.uk/library/?f[0]=im_field_document_type%3A85 @ 2014-03-25T12:28:44Z",
    "http://data.gov.uk/linked-data @ 2014-03-25T12:29:34Z",
    "http://data.gov.uk/location @ 2014-03-25T12:31:37Z",
    "http://data.gov.uk/moderation-policy @ 2014-03-25T12:28:13Z",
    "http://data.gov.uk/odug @ 2014-03-25T12:32:27Z",
    "http://data.gov.uk/organogram/cabinet-office @ 2014-03-25T12:28:34Z",
    "http://data.gov.uk/privacy @ 2014-03-25T12:31:57Z",
    "http://data.gov.uk/publisher @ 2014-03-25T12:31:27Z",
    "http://data.gov.uk/terms-and-conditions @ 2014-03-25T12:32:07Z",
    "http://data.gov.uk/user?destination=home @ 2014-03-25T12:30:36Z",
    "http://en.wikipedia.org/wiki/Main_Page @ 2012-01-18T14:31:32Z",
    "http://example.com @ 2014-01-27T17:12:00Z",
    "http://www.uraharajuku.st/shopdetail/001005000011/022/000/order/ @ 2008-10-294T05:21:46-0700",
    "http://www.uraharajuku.st/shopdetail/001006000003/030/006/price/ @ 2008-10-294T05:21:46-0700",
    "http://www.uraharajuku.st/shopdetail/001017000078/order/ @ 2008-10-294T05:21:46-0700",
    "http://www.uraharajuku.st/shopdetail/001017000088/order/ @ 2008-10-294T05:21:46-0700",
    "http://www.uraharajuku.st/shopdetail/001017000127/order/ @ 2008-10-294T05:21:46-0700",
    "http://www.uraharajuku.st/shopdetail/001030000002/030/006/price/ @ 2008-10-294T05:21:46-0700",
    "http://www.uraharajuku.st/shopdetail/001030000010/order/ @ 2008-10-294T05:21:46-0700",
    "http://www.uraharajuku.st/shopdetail/001030000011/order/ @ 2008-10-294T05:21:46-0700",
    "http://www.uraharajuku.st/shopdetail/001033000003/order/ @ 2008-10-294T05:21:46-0700",
    "https://auer.netzliteratur.net/wendelin/wend.htm @ 2020-06-27T13:51:27Z",
    "https://auer.netzliteratur.net/wendelin/wend3.htm @ 2020-06-27T13:52:07Z",
]
#: ``Deduplicator()`` (``discard_params=True``): the same, except that webdedup merges
#: ``/library`` and ``/library/?f[0]=...``, whose canonical URLs are both ``.../library``
#: (deliberately: that API strips a trailing slash only when the URL ends with it, so with
#: the query dropped it keeps ``/library`` and ``/library/`` apart); the newer one stays.
LIBRARY = "http://data.gov.uk/library @ 2014-03-25T12:28:03Z"
DEFAULT_SURVIVORS = [s for s in DOCS_SURVIVORS if s != LIBRARY]


def open_temp_db(path: Path) -> sqlite3.Connection:
    """``database.create_temp_db``'s connection (declared types parsed, WAL)."""
    conn = sqlite3.connect(path, detect_types=sqlite3.PARSE_DECLTYPES, timeout=30)
    conn.execute("PRAGMA journal_mode = WAL")
    return conn


def check_winners(conn: sqlite3.Connection, before: list[tuple[Any, ...]],
                  crawled: list[dict[str, Any]], discard_params: bool) -> None:
    """What the crawler reads next: each winner's URL in canonical form, ``domain`` its host,
    every other field as the crawler wrote it (its ``content_hash`` too)."""
    old = {row[0]: dict(zip(FIELDS, row[1:], strict=True)) for row in before}
    for rowid, *values in rows(conn):
        now = dict(zip(FIELDS, values, strict=True))
        page = crawled[rowid - 1]
        canonical = canonicalize_url(page["url"], discard_params=discard_params)
        assert now["url"] == canonical and now["domain"] == canonical.split("/")[2]
        assert {k: v for k, v in now.items() if k not in ("url", "domain")} == {
            k: v for k, v in old[rowid].items() if k not in ("url", "domain")}


def import_into_store(tmp_db: sqlite3.Connection, store_path: Path) -> int:
    """``database.import_pages``: the winners into the main store, upserted on ``url``."""
    with closing(sqlite3.connect(store_path)) as store:
        store.execute(STORE_SCHEMA)
        cols = ", ".join(FIELDS)
        store.executemany(
            f"INSERT INTO pages ({cols}) VALUES ({', '.join('?' * len(FIELDS))}) "
            f"ON CONFLICT(url) DO UPDATE SET title = excluded.title",
            tmp_db.execute(f"SELECT {cols} FROM pages").fetchall(),
        )
        store.commit()
        return int(store.execute("SELECT count(*) FROM pages").fetchone()[0])


def test_the_docs_call_leaves_that_apis_winners_ready_for_the_store(crawled, tmp_path):
    """docs/starting/6-crawling-pages.md and 7-build-your-own-search-engine.md, as written."""
    path = tmp_path / "tmp.db"
    populate(path, crawled)
    tmp_db = open_temp_db(path)
    before = rows(tmp_db)

    dedup = Deduplicator(threshold=1.0, distance=50, discard_params=False, fix_urls=False)
    dedup.urls_to_ignore += ["translate.goog", "flickr.com", "facebook.com"]
    dedup(tmp_db)

    survivors = [r[0] for r in tmp_db.execute("SELECT rowid FROM pages ORDER BY rowid")]
    assert source(crawled, survivors) == DOCS_SURVIVORS
    check_winners(tmp_db, before, crawled, discard_params=False)
    # step 3 of the docs: import into the store keyed by url; no winner overwrites another
    assert import_into_store(tmp_db, tmp_path / "my-engine.db") == len(DOCS_SURVIVORS)
    tmp_db.close()
    # every row is restorable, as it was
    assert restore_pruned(path) == len(crawled) - len(DOCS_SURVIVORS)
    with closing(sqlite3.connect(path)) as conn:
        assert rows(conn) == before


def test_the_defaults_called_on_the_database_as_docs_index_does(crawled, tmp_path):
    """docs/index.md: ``Deduplicator()`` (threshold 0.9, discard_params, the 17 patterns;
    fix_urls sends no request here) then ``dedup(tmp_db)``."""
    path = tmp_path / "tmp.db"
    populate(path, crawled)
    tmp_db = open_temp_db(path)
    before = rows(tmp_db)
    dedup = Deduplicator()
    dedup(tmp_db)
    survivors = [r[0] for r in tmp_db.execute("SELECT rowid FROM pages ORDER BY rowid")]
    assert source(crawled, survivors) == DEFAULT_SURVIVORS
    check_winners(tmp_db, before, crawled, discard_params=True)
    tmp_db.execute("VACUUM")  # database.compress_db, next in docs/index.md: rowids renumbered
    tmp_db.close()
    # still every row restorable, as it was (under new rowids where the old are taken)
    assert restore_pruned(path) == len(crawled) - len(DEFAULT_SURVIVORS)
    with closing(sqlite3.connect(path)) as conn:
        assert sorted(map(repr, (r[1:] for r in rows(conn)))) == sorted(
            map(repr, (r[1:] for r in before)))


def test_the_call_on_the_main_store_keyed_by_url(crawled, tmp_path):
    """docs 7, "Fetching a full model": ``dedup(final_db)`` on the store whose ``url`` is the
    primary key (the two data.gov.uk crawls upserted: one row a URL as crawled)."""
    path = tmp_path / "my-engine.db"
    populate(path, crawled, STORE_SCHEMA)
    with closing(sqlite3.connect(path)) as final_db:
        before = rows(final_db)
        dedup = Deduplicator(threshold=1.0, discard_params=False, fix_urls=False)
        dedup.urls_to_ignore += ["translate.goog", "facebook.com", "flickr.com"]
        dedup(final_db)
        urls = [r[0] for r in final_db.execute("SELECT url FROM pages")]
        kept = final_db.execute("SELECT count(*) FROM pages").fetchone()[0]
    # the store kept the last capture of each URL as crawled: the same winners
    assert len(urls) == len(set(urls)) == kept == len(DOCS_SURVIVORS)
    assert restore_pruned(path) == len(before) - kept
    with closing(sqlite3.connect(path)) as conn:
        assert rows(conn) == before


def test_test_crawler_py_as_written_on_page_dicts(crawled):
    """src/tests/test-crawler.py: ``Deduplicator()``, four domains more to ignore, then
    ``output = dedup(output)`` on the parsed page dicts."""
    output = [dict(page) for page in crawled]
    given = [dict(page) for page in crawled]
    dedup = Deduplicator()
    dedup.urls_to_ignore += ["darktable.org", "darktable.fr", "pixls.us", "aurelienpierre.com"]
    output = dedup(output)

    by_key = {(canonicalize_url(p["url"], discard_params=True), p["crawled"]): i
              for i, p in enumerate(crawled, start=1)}
    survivors = [by_key[(p["url"], p["crawled"])] for p in output]
    # That API's list path: the same as its database path (DEFAULT_SURVIVORS with /library),
    # except that it elects the first of identical shop pages (its database path, and
    # webdedup on both, the shortest URL) and drops the unparsed Wikipedia capture.
    # webdedup deliberately differs on three: /library is merged (see DEFAULT_SURVIVORS);
    # the shortest URL of identical shop pages wins on both paths; the unparsed capture is
    # read from its content (issue 29 item 5) and, newer (its date), wins its URL.
    expected = sorted(
        {*DEFAULT_SURVIVORS, "http://en.wikipedia.org/wiki/Main_Page @ 2012-01-19T10:02:03Z"}
        - {"http://en.wikipedia.org/wiki/Main_Page @ 2012-01-18T14:31:32Z"}
    )
    assert source(crawled, survivors) == expected
    assert crawled == given  # the caller's list is left as it was
    for page, rowid in zip(output, survivors, strict=True):
        own = given[rowid - 1]
        assert page["domain"] == page["url"].split("/")[2]
        # its own fields intact; a missing length and datetime filled as that API fills them
        filled = {k for k in ("length", "datetime") if own[k] is None}
        changed = {"url", "domain", *filled}
        assert {k: v for k, v in page.items() if k not in changed} == {
            k: v for k, v in own.items() if k not in changed}
        if "length" in filled:
            assert page["length"] == len(own["parsed"] or own["content"])
    unparsed = next(p for p in output if p["crawled"] == UNPARSED[1])
    assert unparsed["datetime"] == dt.datetime(2012, 1, 19, 10, 2, 3, tzinfo=dt.timezone.utc)


def test_run_on_db_annotates_that_apis_table_without_touching_its_columns(crawled, tmp_path):
    """Issue 30 item 2: the table with that API's content_hash, domain, length and parsed is
    accepted; run_on_db keeps webdedup's annotate-don't-delete default, never writes into
    the crawler's content_hash, and reads the text from parsed (else content)."""
    path = tmp_path / "tmp.db"
    populate(path, crawled)
    with closing(open_temp_db(path)) as tmp_db:
        before = rows(tmp_db)
        result = Deduplicator(threshold=1.0, discard_params=False).run_on_db(tmp_db)
        assert result.pages == len(crawled)
        after = tmp_db.execute(
            f"SELECT rowid, {', '.join(FIELDS)} FROM pages ORDER BY rowid").fetchall()
        assert after == before  # every row, every field of the crawler's as it was
        canonical = [r[0] for r in tmp_db.execute(
            "SELECT rowid FROM pages WHERE is_canonical = 1 ORDER BY rowid")]
        assert source(crawled, canonical) == DOCS_SURVIVORS
        texts = dict(tmp_db.execute("SELECT id, content_hash FROM _webdedup_prepared"))
    for rowid, page in enumerate(crawled, start=1):
        assert texts[rowid] == content_hash(page["parsed"] or page["content"])
    # explain (and export, review) show webdedup's hash, not the crawler's column
    a, b = (p for p in crawled if p["url"].endswith(("001017000078/order/",
                                                     "001005000005/019/000/order/")))
    res = CliRunner().invoke(cli, ["explain", str(path), a["url"], b["url"], "--json"])
    assert res.exit_code == 0, res.output
    shown = json.loads(res.output)
    assert [p["content_hash"] for p in shown["pages"]] == [content_hash(a["parsed"])] * 2
    assert content_hash(a["parsed"]) != a["content_hash"]  # the crawler's: SHA-1 of parsed
    assert shown["link"]["path"][0]["via"] == "exact"


def test_the_defaults_are_that_apis_and_the_cli_keeps_webdedups():
    """Issue 30 item 3: Deduplicator() means what it means there; the CLI keeps its own."""
    from webdedup import Config
    from webdedup.algorithms.urls import IgnoreRules
    from webdedup.api import URLS_TO_IGNORE
    from webdedup.cli import build_config

    dedup = Deduplicator()
    assert (dedup.threshold, dedup.distance, dedup.discard_params, dedup.n_min) == (
        0.9, 50, True, 0)
    assert dedup.urls_to_ignore == list(URLS_TO_IGNORE) and len(URLS_TO_IGNORE) == 17
    dedup.urls_to_ignore += ["facebook.com"]
    assert Deduplicator().urls_to_ignore == list(URLS_TO_IGNORE)  # its own list
    config = dedup.build_config()
    rules = IgnoreRules.from_patterns(config.urls_to_ignore, config.ignore_match)
    # matched as substrings, as there
    assert rules.match("https://a.example/register.php") == "/register"
    assert rules.match("https://a.example/blog/tag/x") == "/tag/"
    assert rules.match("https://www.facebook.com/sharer?u=x") == "facebook.com"
    assert rules.match("https://a.example/shopdetail/1/order/") is None
    # the CLI and Config keep webdedup's defaults: no pattern, path-segment rules
    cli = build_config(None, None, ())
    assert cli == Config() and (cli.discard_params, cli.urls_to_ignore) == (False, ())
    segments = IgnoreRules.from_patterns(["/register", "/tag/"])
    assert segments.match("https://a.example/register.php") is None
    assert segments.match("https://a.example/blog/tag/x") is None
