"""Issue 16 part 5: the whole public surface of the ``Deduplicator`` webdedup follows, called
the way crawler code written for that API calls it (page dicts with ``parsed`` text, ``date``
strings, a ``category``; an open ``sqlite3`` connection)."""

from __future__ import annotations

import datetime as dt
import hashlib
import sqlite3
from contextlib import closing

import pytest
from conftest import SHARED_DATA, real_texts

from webdedup import Deduplicator
from webdedup.algorithms.text import content_hash
from webdedup.errors import ConfigError
from webdedup.ingest import ingest


def post(url: str, parsed: str, date: str = "2024-01-01", **extra: str) -> dict[str, str]:
    """A ``web_page`` dict as that API's crawlers build them."""
    return {"url": url, "title": url.rsplit("/", 1)[-1], "content": "", "parsed": parsed,
            "date": date, "category": "", **extra}


@pytest.fixture
def posts() -> list[dict[str, str]]:
    a, b, c, d = (t["text"] for t in real_texts()[:4])
    edited = c.replace(".", ";", 3)  # a near copy: three punctuation edits
    return [
        post("https://news.example.org/story-a", a, "2024-01-01"),
        post("http://www.news.example.org/story-a/?utm_source=rss", a, "2024-02-01"),
        post("https://mirror.example.net/copy-of-a", a, "2023-12-01"),
        post("https://news.example.org/story-b", b),
        post("https://news.example.org/tag/politics", d),  # an archive page to ignore
        post("https://news.example.org/empty", ""),  # no text: dropped
        post("https://news.example.org/story-c", c, "2024-03-01"),
        post("https://news.example.org/story-c-amp", edited, "2024-01-15"),
    ]


def urls(pages: list[dict[str, object]]) -> list[object]:
    return sorted(p["url"] for p in pages)  # type: ignore[type-var]


def test_the_constructor_takes_fix_urls_by_keyword_and_in_that_apis_position():
    d = Deduplicator(threshold=0.9, distance=50, discard_params=True, n_min=0, fix_urls=False)
    assert d.fix_urls is False and d.method == "minhash"
    positional = Deduplicator(0.8, 30, True, 2, False)  # (threshold, distance, ..., fix_urls)
    assert (positional.threshold, positional.distance, positional.n_min) == (0.8, 30, 2)
    assert positional.fix_urls is False and positional.method == "minhash"
    assert Deduplicator().fix_urls is True


def test_prepare_posts_parallel_canonicalizes_in_place_without_any_request():
    elem = post("http://www.example.com/a/b/?utm_source=x&id=3#top", "some text",
                "2024-03-03T00:00:00Z")
    elem.pop("datetime", None)
    out = Deduplicator.prepare_posts_parallel(elem, False, ["/tag/"], True)
    assert out is elem
    assert elem["url"] == "https://example.com/a/b?id=3" and elem["domain"] == "example.com"
    assert elem["length"] == len("some text")
    assert elem["datetime"] == dt.datetime(2024, 3, 3, tzinfo=dt.timezone.utc)
    assert Deduplicator.prepare_posts_parallel(post("https://x.org/tag/py", "t"), False,
                                               ["/tag/"], False) is None
    assert Deduplicator.prepare_posts_parallel(post("mailto:a@b.c", "t"), False, [], True) is None
    wb = post("http://web.archive.org/web/2020/http://example.com/x", "t")
    assert Deduplicator.prepare_posts_parallel(wb, True, [], True) is not None
    assert wb["url"] == "https://example.com/x" and wb["wayback"].startswith("http://web.arch")
    with pytest.raises(ConfigError):  # webdedup's own rules, when asked for, are checked
        Deduplicator.prepare_posts_parallel(post("https://x.org/", "t"), False, ["a//b"], True,
                                            ignore_match="segments")


def test_the_get_functions_chain_as_that_apis_run_on_list_does(posts):
    d = Deduplicator(threshold=0.9, distance=50, discard_params=False, n_min=0, fix_urls=False)
    d.urls_to_ignore.append("/tag/")
    unique_urls = d.get_unique_urls(posts)
    # one page per canonical URL: story-a's newer re-crawl wins; the tag page is gone, the
    # page without text stays (no page with text has its URL: issue 29 item 5)
    assert urls(unique_urls) == [
        "https://mirror.example.net/copy-of-a",
        "https://news.example.org/empty",
        "https://news.example.org/story-a",
        "https://news.example.org/story-b",
        "https://news.example.org/story-c",
        "https://news.example.org/story-c-amp",
    ]
    story_a = next(p for p in unique_urls if p["url"].endswith("story-a"))
    assert story_a["date"] == "2024-02-01" and story_a["domain"] == "news.example.org"
    unique_content = d.get_unique_content(unique_urls)
    assert len(unique_content) == 5  # the mirror has story-a's text: one of them goes
    close = d.get_close_content(unique_content, threshold=0.9, distance=50)
    assert urls(close) == [
        "https://news.example.org/empty",
        "https://news.example.org/story-a",
        "https://news.example.org/story-b",
        "https://news.example.org/story-c",  # the newer of the two near copies
    ]
    # the survivors-only mode of run_on_list gives one page per group too
    levenshtein = Deduplicator(threshold=0.9, distance=50, method="levenshtein",
                               urls_to_ignore=["/tag/"])
    assert urls(levenshtein.run_on_list(posts, survivors_only=True)) == urls(close)
    # the default still returns every page, annotated
    every = levenshtein.run_on_list([{**p, "content": p["parsed"]} for p in posts])
    assert len(every) == len(posts) and {r["dup_kind"] for r in every} >= {"url", "ignored"}


def test_run_on_db_takes_an_open_connection_and_chunksize(tmp_path):
    db = tmp_path / "crawl.sqlite"
    ingest(db, [SHARED_DATA / "warc" / "aut-2008-crawl.warc.gz"], workers=1)
    with closing(sqlite3.connect(db)) as conn:
        result = Deduplicator(threshold=0.9, fix_urls=False).run_on_db(conn, chunksize=16)
        assert result.pages > 50
        canonical = conn.execute("SELECT count(*) FROM pages WHERE is_canonical = 1").fetchone()
        assert 0 < canonical[0] < result.pages
        with pytest.raises(ConfigError, match="chunk_size"):
            Deduplicator().run_on_db(conn, chunksize=0)


def test_add_content_hash_column_on_that_apis_table_layout(tmp_path):
    """Issue 30: the helper fills ``content_hash`` as that API defines it (SHA-1 of ``parsed``
    as stored, rows without it left alone), and a later run never overwrites it."""
    texts = [t["text"] for t in real_texts()[:5]]
    db = tmp_path / "crawl.sqlite"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE pages (url TEXT, title TEXT, content TEXT, parsed TEXT, "
                     "date TEXT, datetime TEXT, category TEXT)")
        conn.executemany(
            "INSERT INTO pages (url, content, parsed) VALUES (?, ?, ?)",
            [(f"https://s.example/{i}", f"<p>{t}</p>", t) for i, t in enumerate(texts)]
            + [("https://s.example/none", "<p>x</p>", None)],
        )
        conn.commit()
        assert Deduplicator.add_content_hash_column(conn) == 5
        got = [r[0] for r in conn.execute("SELECT content_hash FROM pages ORDER BY rowid")]
        assert got == [hashlib.sha1(t.encode()).hexdigest() for t in texts] + [None]
        indexes = [r[1] for r in conn.execute("PRAGMA index_list(pages)")]
        assert "idx_pages_content_hash" in indexes
    # a run keeps webdedup's own hash in its state, not in the crawler's column
    Deduplicator().run_on_db(db)
    with closing(sqlite3.connect(db)) as conn:
        after = [r[0] for r in conn.execute("SELECT content_hash FROM pages ORDER BY rowid")]
        state = [r[0] for r in conn.execute(
            "SELECT content_hash FROM _webdedup_prepared ORDER BY id")]
    assert after == got
    assert state == [content_hash(t) for t in texts] + [content_hash("<p>x</p>")]


def test_an_empty_parsed_falls_back_to_content_everywhere(tmp_path):
    """Issue 29 item 5: ``parsed: ""`` is read from ``content`` in run_on_db, run_on_list,
    the get_* functions and prepare_posts_parallel (get_unique_urls returned nothing)."""
    a, b, c = (t["text"] for t in real_texts()[:3])
    posts = [post(f"https://blog.example/{i}", "", content=text)
             for i, text in enumerate((a, b, c))]
    d = Deduplicator(threshold=0.9, discard_params=False)
    assert urls(d.get_unique_urls(posts)) == [p["url"] for p in posts]  # was []
    for found in (d.get_unique_urls(posts), d.get_unique_content(posts),
                  d.get_close_content(posts), d.run_on_list(posts, survivors_only=True),
                  d(posts)):
        assert urls(found) == [p["url"] for p in posts]
        assert [p["length"] for p in found] == [len(t) for t in (a, b, c)]
    assert [r["content_hash"] for r in d.run_on_list(posts)] == [
        content_hash(t) for t in (a, b, c)]
    elem = Deduplicator.prepare_posts_parallel(dict(posts[0]), False, [], False)
    assert elem is not None and elem["length"] == len(a)
    db = tmp_path / "crawl.sqlite"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE pages (url TEXT, content TEXT, parsed TEXT)")
        conn.executemany("INSERT INTO pages VALUES (?, ?, ?)",
                         [(p["url"], p["content"], "") for p in posts])
        conn.commit()
    d.run_on_db(db)
    with closing(sqlite3.connect(db)) as conn:
        got = conn.execute("SELECT content_hash, dup_kind FROM pages ORDER BY rowid").fetchall()
    assert got == [(content_hash(t), None) for t in (a, b, c)]


def test_a_page_without_text_takes_part_in_url_deduplication():
    """Issue 29 item 5: a page with no text is not dropped; it loses its URL to a page with
    text, and of two such pages at one URL the newer stays."""
    text = real_texts()[0]["text"]
    posts = [
        post("https://site.example/a", text, "2024-01-01"),
        post("http://www.site.example/a/", "", "2024-06-01"),  # newer, but no text
        post("https://site.example/stub", "", "2024-01-01"),
        post("https://site.example/stub?utm_source=x", "", "2024-02-01"),
    ]
    d = Deduplicator(discard_params=False)
    survivors = d(posts)
    assert [(p["url"], p["date"]) for p in survivors] == [
        ("https://site.example/a", "2024-01-01"), ("https://site.example/stub", "2024-02-01")]
    assert urls(d.get_unique_urls(posts)) == urls(survivors)


def test_run_on_list_returns_the_given_fields_with_the_annotations():
    """Each returned dict is the given page's fields plus the run's annotations; a page's own
    ``content_hash`` (a crawler's) and ``id`` are kept, as on a table."""
    from webdedup import Config

    text = " ".join(f"word{i}" for i in range(80))
    pages = [
        {"url": "https://a.example/x", "content": text, "title": "T", "mine": {"k": 1}},
        {"url": "https://a.example/x?utm_source=feed", "content": text, "content_hash": "abc",
         "id": 7},
    ]
    rows = Deduplicator(config=Config()).run_on_list(pages)
    assert rows[0]["title"] == "T" and rows[0]["mine"] == {"k": 1}
    assert rows[0]["content"] == text and rows[0]["is_canonical"] == 1
    assert rows[1]["content_hash"] == "abc" and rows[1]["id"] == 7
    assert rows[1]["dup_kind"] == "url" and rows[1]["canonical_id"] == 1
    assert pages[0] == {"url": "https://a.example/x", "content": text, "title": "T",
                        "mine": {"k": 1}}  # the given dicts are left alone
