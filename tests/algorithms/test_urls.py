"""Tests for webdedup.urls: canonical URL keys, Wayback unwrapping and ignore rules."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from webdedup.algorithms.urls import (
    TRACKING_PARAM_PREFIXES,
    TRACKING_PARAMS,
    IgnoreRules,
    canonicalize_url,
    is_https,
    unwrap_archive_url,
    url_host,
)

# --------------------------------------------------------------------------- table

CANONICAL_CASES: list[tuple[str, str | None]] = [
    # --- not absolute http(s) URLs
    ("/about", None),
    ("about.html", None),
    ("../index.html", None),
    ("?page=2", None),
    ("#top", None),
    ("//example.com/a", None),  # protocol-relative: no scheme, so relative
    ("mailto:someone@example.com", None),
    ("javascript:void(0)", None),
    ("JavaScript:alert(1)", None),
    ("data:text/html,<h1>hi</h1>", None),
    ("ftp://example.com/file.txt", None),
    ("tel:+15551234567", None),
    ("", None),
    ("   \t\n", None),
    ("http://", None),
    ("http:///path", None),
    ("http:example.com", None),
    ("http://exa mple.com/", None),
    ("http://example.com:99999/", None),
    ("http://example.com:abc/", None),
    ("http://example.com:0/", None),
    ("http://[::1", None),
    ("http://[fe80::1%25eth0]/", None),  # zone identifiers are not web pages
    ("http://999.1.1.1/", None),
    ("http://1.2.3/", None),
    ("http://a..b.com/", None),
    ("http://☃.net/", None),  # symbols are not valid in host names
    # --- scheme and host
    ("http://example.com", "https://example.com/"),
    ("https://example.com/", "https://example.com/"),
    ("HTTP://EXAMPLE.COM/About", "https://example.com/About"),
    ("  https://example.com/a  \n", "https://example.com/a"),
    ("http://WWW.Example.COM./", "https://example.com/"),
    ("http://www.com/", "https://www.com/"),  # trap: nothing would be left but a TLD
    ("http://www2.example.com/", "https://www2.example.com/"),
    ("http://wwwexample.com/", "https://wwwexample.com/"),
    ("http://www.example.co.uk/news", "https://example.co.uk/news"),
    ("http://localhost:8000/x", "https://localhost:8000/x"),
    ("http://%65xample.com/", "https://example.com/"),
    # --- internationalized domain names
    ("http://bücher.example/", "https://xn--bcher-kva.example/"),
    ("http://www.BÜCHER.de/katalog", "https://xn--bcher-kva.de/katalog"),
    ("http://münchen.de/", "https://xn--mnchen-3ya.de/"),
    ("http://例子.测试/", "https://xn--fsqu00a.xn--0zwm56d/"),
    ("http://例子。测试/", "https://xn--fsqu00a.xn--0zwm56d/"),  # ideographic full stop
    (
        "http://пример.рф/статья",
        "https://xn--e1afmkfd.xn--p1ai/%D1%81%D1%82%D0%B0%D1%82%D1%8C%D1%8F",
    ),
    ("http://faß.de/", "https://xn--fa-hia.de/"),  # IDNA 2008: not folded to fass.de
    ("http://ｅｘａｍｐｌｅ．ｃｏｍ/", "https://example.com/"),  # full-width forms
    # --- IP addresses
    ("http://192.168.0.1:8080/admin/", "https://192.168.0.1:8080/admin"),
    ("http://1.2.3.4:80/", "https://1.2.3.4/"),
    ("http://[2001:DB8::0:1]:8080/", "https://[2001:db8::1]:8080/"),
    ("http://[2001:0db8:0000:0000:0000:0000:0000:0001]/x", "https://[2001:db8::1]/x"),
    ("https://[::1]/", "https://[::1]/"),
    # --- userinfo and ports
    ("http://user:secret@example.com/private", "https://example.com/private"),
    ("http://user@www.example.com:80/", "https://example.com/"),
    ("https://example.com:443/a", "https://example.com/a"),
    ("http://example.com:443/a", "https://example.com/a"),
    ("http://example.com:8080/a", "https://example.com:8080/a"),
    ("https://example.com:8443", "https://example.com:8443/"),
    ("http://example.com:/a", "https://example.com/a"),
    ("http://example.com:0080/a", "https://example.com/a"),
    # --- path: percent-encoding
    ("http://example.com/a%7eb/%7Euser", "https://example.com/a~b/~user"),
    ("http://example.com/a%2fb", "https://example.com/a%2Fb"),
    ("http://example.com/%e2%82%ac", "https://example.com/%E2%82%AC"),
    ("http://example.com/a b/c d.html", "https://example.com/a%20b/c%20d.html"),
    ("http://example.com/café", "https://example.com/caf%C3%A9"),
    ("http://example.com/%41%42c", "https://example.com/ABc"),
    ("http://example.com/50%", "https://example.com/50%25"),
    ("http://example.com/a%zz", "https://example.com/a%25zz"),
    ("http://example.com/a%3Fb%23c", "https://example.com/a%3Fb%23c"),
    ('http://example.com/"quoted"<x>', "https://example.com/%22quoted%22%3Cx%3E"),
    ("http://example.com/a;b=c,d", "https://example.com/a;b=c,d"),
    ("http://example.com/a\\b", "https://example.com/a%5Cb"),
    # --- path: dot segments and trailing slashes
    ("http://example.com/a/./b/../c/", "https://example.com/a/c"),
    ("http://example.com/../../x", "https://example.com/x"),
    ("http://example.com/a/%2e%2E/b", "https://example.com/b"),
    ("http://example.com/a/", "https://example.com/a"),
    ("http://example.com/a/b//", "https://example.com/a/b"),
    ("http://example.com/a//b", "https://example.com/a//b"),
    ("http://example.com/Blog/Post.HTML", "https://example.com/Blog/Post.HTML"),
    # --- query
    ("http://example.com/?utm_source=rss&utm_medium=feed", "https://example.com/"),
    ("http://example.com/p?id=3&fbclid=IwAR0abc", "https://example.com/p?id=3"),
    ("http://example.com/p?gclid=x&b=2&a=1", "https://example.com/p?a=1&b=2"),
    ("http://example.com/p?msclkid=1&mc_cid=2&mc_eid=3&_ga=4&k=v", "https://example.com/p?k=v"),
    ("http://example.com/p?UTM_Campaign=x&page=2", "https://example.com/p?page=2"),
    ("http://example.com/p?tag=b&tag=a&x=1", "https://example.com/p?tag=b&tag=a&x=1"),
    ("http://example.com/p?b=1&a=2&b=0", "https://example.com/p?a=2&b=1&b=0"),
    ("http://example.com/p?", "https://example.com/p"),
    ("http://example.com/p?&&a=1&&", "https://example.com/p?a=1"),
    ("http://example.com/search?q=new+york", "https://example.com/search?q=new%20york"),
    ("http://example.com/search?q=new york", "https://example.com/search?q=new%20york"),
    ("http://example.com/search?q=c%2B%2B", "https://example.com/search?q=c%2B%2B"),
    ("http://example.com/p?a=%7e%2f&b=%c3%a9", "https://example.com/p?a=~%2F&b=%C3%A9"),
    ("http://example.com/p?q=ü", "https://example.com/p?q=%C3%BC"),
    ("http://example.com/p?flag", "https://example.com/p?flag"),
    ("http://example.com/p?flag=", "https://example.com/p?flag="),
    ("http://example.com/p?redirect=/a?b=c", "https://example.com/p?redirect=/a?b=c"),
    # --- fragments
    ("http://example.com/page#section-2", "https://example.com/page"),
    ("http://example.com/#!/products/42", "https://example.com/#!/products/42"),
    ("http://example.com/app?x=1#!state", "https://example.com/app?x=1#!state"),
    ("http://example.com/#!", "https://example.com/"),
    ("http://example.com/#!a b#c", "https://example.com/#!a%20b%23c"),
    # --- Wayback Machine
    (
        "https://web.archive.org/web/20200101000000/https://www.example.com/page/",
        "https://example.com/page",
    ),
    (
        "http://web.archive.org/web/2019id_/http://example.com/a?utm_source=x&b=1",
        "https://example.com/a?b=1",
    ),
    (
        "https://web.archive.org/web/20150101im_/example.com/logo.png",
        "https://example.com/logo.png",
    ),
    ("https://www.web.archive.org/web/2015js_/http://example.com/a.js", "https://example.com/a.js"),
    # listing and search pages are no captures: they keep their own URL (issue #11)
    ("https://web.archive.org/web/*/http://example.com/", "https://web.archive.org/web/*/http://example.com"),
    ("https://web.archive.org/web/*/cnn.com", "https://web.archive.org/web/*/cnn.com"),
    ("https://web.archive.org/web/2020*/cnn.com", "https://web.archive.org/web/2020*/cnn.com"),
    (
        "https://web.archive.org/web/20200101000000*/cnn.com",
        "https://web.archive.org/web/20200101000000*/cnn.com",
    ),
    ("https://web.archive.org/web/20200101000000/cnn.com", "https://cnn.com/"),
    ("https://web.archive.org/web/2020im_/cnn.com", "https://cnn.com/"),
    ("https://web.archive.org/web/2020/http:/example.com/x", "https://example.com/x"),
    (
        "https://web.archive.org/web/2020/https://web.archive.org/web/2019/http://example.com/x",
        "https://example.com/x",
    ),
    ("https://web.archive.org/web/2020/mailto:a@example.com", None),
    ("https://web.archive.org/", "https://web.archive.org/"),
    ("https://web.archive.org/web/", "https://web.archive.org/web"),
    (
        "https://example.com/web/2020/http://other.com/",
        "https://example.com/web/2020/http://other.com",
    ),
    # --- real URL shapes from news sites
    (
        "https://www.nytimes.com/2023/01/05/us/politics/house-speaker-vote.html?smid=tw-share",
        "https://nytimes.com/2023/01/05/us/politics/house-speaker-vote.html?smid=tw-share",
    ),
    (
        "https://www.bbc.co.uk/news/world-europe-64175000?at_medium=RSS&at_campaign=KARANGA",
        "https://bbc.co.uk/news/world-europe-64175000",
    ),
    (
        "https://www.theguardian.com/world/2023/jan/05/some-story"
        "?utm_term=Autofeed&CMP=twt_gu&utm_medium&utm_source=Twitter#Echobox=1672930000",
        "https://theguardian.com/world/2023/jan/05/some-story?CMP=twt_gu",
    ),
    (
        "https://www.lemonde.fr/international/article/2023/01/05/titre_6156789_3210.html"
        "?xtor=RSS-3208",
        "https://lemonde.fr/international/article/2023/01/05/titre_6156789_3210.html",
    ),
    (
        "https://www.spiegel.de/politik/deutschland/artikel-a-1234.html#ref=rss",
        "https://spiegel.de/politik/deutschland/artikel-a-1234.html",
    ),
    (
        "http://edition.cnn.com/2023/01/05/politics/story/index.html",
        "https://edition.cnn.com/2023/01/05/politics/story/index.html",
    ),
    (
        "https://www.reuters.com/world/europe/story-2023-01-05/?taid=63b6&utm_campaign=trueAnthem",
        "https://reuters.com/world/europe/story-2023-01-05?taid=63b6",
    ),
    (
        "https://news.yahoo.com/some-story-120000123.html?guccounter=1&fbclid=IwAR2x",
        "https://news.yahoo.com/some-story-120000123.html?guccounter=1",
    ),
    (
        "https://www.zeit.de/politik/2023-01/thema?wt_zmc=sm.ext&utm_content=zeitde_redpost",
        "https://zeit.de/politik/2023-01/thema?wt_zmc=sm.ext",
    ),
]


@pytest.mark.parametrize(("url", "expected"), CANONICAL_CASES)
def test_canonicalize_table(url: str, expected: str | None) -> None:
    assert canonicalize_url(url) == expected


def test_table_is_large_enough() -> None:
    assert len(CANONICAL_CASES) >= 60


@pytest.mark.parametrize(("url", "expected"), CANONICAL_CASES)
def test_table_outputs_are_fixed_points(url: str, expected: str | None) -> None:
    if expected is not None:
        assert canonicalize_url(expected) == expected
        assert canonicalize_url(expected, discard_params=True) == canonicalize_url(
            url, discard_params=True
        )


DISCARD_CASES: list[tuple[str, str | None]] = [
    ("http://example.com/p?id=3&utm_source=x", "https://example.com/p"),
    ("http://example.com/p?", "https://example.com/p"),
    ("http://example.com/app?x=1#!state", "https://example.com/app#!state"),
    ("http://example.com/app?x=1#section", "https://example.com/app"),
    ("https://web.archive.org/web/2020/http://example.com/a?b=1", "https://example.com/a"),
    ("http://www.example.com/search/?q=shoes&page=2", "https://example.com/search"),
    ("mailto:x@example.com", None),
    ("/relative?x=1", None),
]


@pytest.mark.parametrize(("url", "expected"), DISCARD_CASES)
def test_discard_params(url: str, expected: str | None) -> None:
    assert canonicalize_url(url, discard_params=True) == expected


MUST_DIFFER: list[tuple[str, str]] = [
    ("http://example.com/a", "http://example.com/b"),
    ("http://example.com/Page", "http://example.com/page"),
    ("http://example.com/a%2Fb", "http://example.com/a/b"),
    ("http://example.com/a%3Fb", "http://example.com/a?b"),
    ("http://example.com/a%26b", "http://example.com/a&b"),
    ("http://example.com/a;b", "http://example.com/a%3Bb"),
    ("http://example.com/a/b", "http://example.com/a//b"),
    ("http://example.com/caf%E9", "http://example.com/caf%C3%A9"),
    ("http://example.com/p?id=1", "http://example.com/p?id=2"),
    ("http://example.com/p?a=1&b=2", "http://example.com/p?a=2&b=1"),
    ("http://example.com/p?a=1&a=2", "http://example.com/p?a=2&a=1"),
    ("http://example.com/p?q=c%2B%2B", "http://example.com/p?q=c++"),
    ("http://example.com/p?q=a%26b", "http://example.com/p?q=a&b"),
    ("http://example.com/p?ref=home", "http://example.com/p"),
    ("http://example.com/p?spm=a2g0o", "http://example.com/p"),
    ("http://example.com/p?flag", "http://example.com/p"),
    ("http://example.com/p?flag", "http://example.com/p?flag="),
    ("http://example.com/#!/a", "http://example.com/#!/b"),
    ("http://example.com/#!/a", "http://example.com/"),
    ("http://example.com:8080/", "http://example.com:8081/"),
    ("http://example.com:8080/", "http://example.com/"),
    ("http://example.com/", "http://example.org/"),
    ("http://blog.example.com/", "http://example.com/"),
    ("http://www2.example.com/", "http://example.com/"),
    ("http://www.com/", "http://com/"),
    ("http://faß.de/", "http://fass.de/"),
    ("http://σίσυφος.gr/", "http://σίσυφοσ.gr/"),
    ("http://[2001:db8::1]/", "http://[2001:db8::2]/"),
    ("http://1.2.3.4/", "http://1.2.3.5/"),
    ("http://example.com/index.html", "http://example.com/"),
]


@pytest.mark.parametrize(("first", "second"), MUST_DIFFER)
def test_must_differ(first: str, second: str) -> None:
    a, b = canonicalize_url(first), canonicalize_url(second)
    assert a is not None and b is not None
    assert a != b


MUST_BE_EQUAL: list[tuple[str, str]] = [
    ("http://example.com/a b", "http://example.com/a%20b"),
    ("http://example.com/café", "http://example.com/caf%C3%A9"),
    ("http://example.com/café", "http://example.com/caf%c3%a9"),
    ("http://example.com/%7Euser", "http://example.com/~user"),
    ("http://example.com/%7euser", "http://example.com/~user"),
    ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
    ("http://example.com/p?q=a+b", "http://example.com/p?q=a%20b"),
    ("http://example.com/p?q=a b", "http://example.com/p?q=a+b"),
    ("http://example.com", "https://www.example.com/"),
    ("http://example.com/a/", "http://example.com/a"),
    ("http://example.com:80/", "https://example.com:443/"),
    ("https://example.com/p?b=2&a=1", "https://example.com/p?a=1&b=2"),
    ("http://bücher.example/", "http://xn--bcher-kva.example/"),
    ("http://BÜCHER.example/", "http://bücher.example/"),
    ("http://[2001:db8::1]/", "http://[2001:DB8:0:0:0:0:0:1]:443/"),
    ("https://web.archive.org/web/2020/http://example.com/x", "http://example.com/x"),
    ("http://example.com/x#a", "http://example.com/x#b"),
    ("http://user@example.com/", "http://example.com/"),
    ("http://example.com./", "http://example.com/"),
    ("http://example.com/a/./b/../c", "http://example.com/a/c"),
    ("http://example.com/p?id=1&utm_source=x", "http://example.com/p?id=1"),
    ("http://example.com/p?id=1&", "http://example.com/p?id=1"),
    ("http://ｅｘａｍｐｌｅ．ｃｏｍ/", "http://example.com/"),
    ("http://example.com/p?", "http://example.com/p"),
    ("http://example.com/%41", "http://example.com/A"),
]


@pytest.mark.parametrize(("first", "second"), MUST_BE_EQUAL)
def test_must_be_equal(first: str, second: str) -> None:
    a = canonicalize_url(first)
    assert a is not None
    assert a == canonicalize_url(second)


# Session identifiers, dropped as the Internet Archive's and Heritrix's canonicalizers drop them.
SESSION_CASES: list[tuple[str, str]] = [
    ("https://example.com/a;jsessionid=ABC", "https://example.com/a"),
    ("https://example.com/a;JSESSIONID=0A1B2C3D4E5F?id=3", "https://example.com/a?id=3"),
    ("https://example.com/a/b;jsessionid=ABC/c", "https://example.com/a/b/c"),
    ("https://example.com/a;phpsessid=abc123", "https://example.com/a"),
    ("https://example.com/a?jsessionid=ABC&id=3", "https://example.com/a?id=3"),
    ("https://example.com/a?PHPSESSID=9f86d081884c7d65&p=2", "https://example.com/a?p=2"),
    (
        "https://example.com/a.asp?ASPSESSIONIDQQGGQGPC=LKJHGFDSAQWE&x=1",
        "https://example.com/a.asp?x=1",
    ),
    (
        "https://example.com/a.cfm?CFID=12345&CFTOKEN=67890123&id=7",
        "https://example.com/a.cfm?id=7",
    ),
    ("https://example.com/a?sid=9f86d081884c7d659a2feaa0c55ad015", "https://example.com/a"),
    ("https://example.com/a?sid=k3j4h5g6f7d8s9a0p1o2i3u4&id=3", "https://example.com/a?id=3"),
    ("https://example.com/a?sid=42", "https://example.com/a?sid=42"),
    ("https://example.com/a?sid=sports", "https://example.com/a?sid=sports"),
    (
        "https://example.com/a?sid=abcdefghijklmnopqrstuvwxyz",
        "https://example.com/a?sid=abcdefghijklmnopqrstuvwxyz",
    ),
    ("https://example.com/a;version=2", "https://example.com/a;version=2"),
    ("https://example.com/a?session=ABC", "https://example.com/a?session=ABC"),
]


@pytest.mark.parametrize(("url", "expected"), SESSION_CASES)
def test_session_identifiers(url: str, expected: str) -> None:
    assert canonicalize_url(url) == expected
    assert canonicalize_url(expected) == expected


def test_session_identifiers_make_one_page() -> None:
    assert canonicalize_url("https://example.com/a;jsessionid=ABC") == canonicalize_url(
        "https://example.com/a"
    )
    assert canonicalize_url("http://example.com/a?sid=1") != canonicalize_url(
        "http://example.com/a?sid=2"
    )


def test_non_string_input_returns_none() -> None:
    assert canonicalize_url(None) is None  # type: ignore[arg-type]
    assert canonicalize_url(b"http://example.com/") is None  # type: ignore[arg-type]


def test_lone_surrogate_returns_none() -> None:
    assert canonicalize_url("http://example.com/\ud800") is None


def test_very_long_port_does_not_raise() -> None:
    assert canonicalize_url("http://example.com:" + "9" * 5000 + "/") is None
    assert canonicalize_url("http://example.com:" + "0" * 5000 + "81/") == "https://example.com:81/"


def test_tracking_constants() -> None:
    assert isinstance(TRACKING_PARAMS, frozenset)
    assert all(name == name.lower() for name in TRACKING_PARAMS)
    assert {"fbclid", "gclid", "dclid", "msclkid", "mc_cid", "_ga", "igshid"} <= TRACKING_PARAMS
    assert isinstance(TRACKING_PARAM_PREFIXES, tuple)
    assert "utm_" in TRACKING_PARAM_PREFIXES
    # deliberately not tracking: too generic, may select content
    assert not {"ref", "source", "spm", "id", "page", "q"} & TRACKING_PARAMS


# -------------------------------------------------------------------- other helpers


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://web.archive.org/web/20200101000000/https://a.com/x?y=1", "https://a.com/x?y=1"),
        ("http://web.archive.org/web/2020id_/a.com/x", "http://a.com/x"),
        ("HTTPS://WEB.ARCHIVE.ORG/web/2020/http://a.com/", "http://a.com/"),
        ("https://www.web.archive.org/web/2020/http://a.com/", "http://a.com/"),
        # a listing/search page, not a capture: unchanged
        ("https://web.archive.org/web/2020*/a.com/*", "https://web.archive.org/web/2020*/a.com/*"),
        ("https://web.archive.org/web/*/cnn.com", "https://web.archive.org/web/*/cnn.com"),
        ("https://web.archive.org/web/2020/https:/a.com/x", "https://a.com/x"),
        ("https://web.archive.org/web/2020/https%3A%2F%2Fa.com%2Fx", "https://a.com/x"),
        ("https://web.archive.org/web/2020/a.com:8080/x", "http://a.com:8080/x"),
        ("https://web.archive.org/web/2020/ftp://a.com/x", "ftp://a.com/x"),
        ("https://web.archive.org/web/2020/", "https://web.archive.org/web/2020/"),
        (
            "https://web.archive.org/web/notastamp/a.com",
            "https://web.archive.org/web/notastamp/a.com",
        ),
        ("https://web.archive.org/save/http://a.com", "https://web.archive.org/save/http://a.com"),
        ("https://archive.example/web/2020/a.com", "https://archive.example/web/2020/a.com"),
        ("web.archive.org/web/2020/a.com", "web.archive.org/web/2020/a.com"),
        ("not a url", "not a url"),
        ("", ""),
    ],
)
def test_unwrap_archive_url(url: str, expected: str) -> None:
    assert unwrap_archive_url(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com/a", "example.com"),
        ("https://example.com:8080/a", "example.com"),
        ("https://blog.example.com/", "blog.example.com"),
        ("https://[2001:db8::1]:8080/", "[2001:db8::1]"),
        ("https://1.2.3.4/", "1.2.3.4"),
        ("http://www.Example.com/", "example.com"),  # tolerates non-canonical input
        ("https://web.archive.org/web/2020/http://www.a.com/", "a.com"),
    ],
)
def test_url_host(url: str, expected: str) -> None:
    assert url_host(url) == expected


def test_url_host_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="not a canonicalizable"):
        url_host("/relative")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com/", True),
        ("HTTPS://example.com/", True),
        ("  https://example.com/", True),
        ("http://example.com/", False),
        ("https://web.archive.org/web/2020/http://example.com/", True),
        ("http://web.archive.org/web/2020/https://example.com/", False),
        ("ftp://example.com/", False),
        ("https:", False),
        ("/https://", False),
        ("", False),
        ("garbage", False),
    ],
)
def test_is_https(url: str, expected: bool) -> None:
    assert is_https(url) is expected


def test_is_https_on_non_string() -> None:
    assert is_https(None) is False  # type: ignore[arg-type]


# -------------------------------------------------------------------- properties

_SCHEMES = st.sampled_from(
    ["http", "https", "HTTP", "hTtPs", "ftp", "mailto", "javascript", "data", "", "http s"]
)
_SEPARATORS = st.sampled_from(["://", ":", ":/", ":///", "//", "", ":\\\\"])
_HOSTS = st.one_of(
    st.sampled_from(
        [
            "example.com",
            "WWW.Example.COM.",
            "www.com",
            "www.www.example.com",
            "www2.example.com",
            "bücher.example",
            "BÜCHER.example",
            "例子.测试",
            "例子。测试。",
            "пример.рф",
            "faß.de",
            "ΣΊΣΥΦΟΣ.gr",
            "ｅｘａｍｐｌｅ．ｃｏｍ",
            "xn--bcher-kva.example",
            "1.2.3.4",
            "999.1.1.1",
            "[2001:DB8::0:1]",
            "[::ffff:1.2.3.4]",
            "[::1",
            "[fe80::1%25eth0]",
            "web.archive.org",
            "www.web.archive.org",
            "%65xample.com",
            "%ff.com",
            "a..b",
            "localhost",
            "",
            "-.-",
            "_x_.example",
        ]
    ),
    st.text(max_size=12),
)
_USERINFO = st.sampled_from(["", "user@", "user:pw@", "@", "a@b@", "%40@"])
_PORTS = st.one_of(
    st.just(""),
    st.sampled_from([":", ":80", ":443", ":8080", ":0", ":65536", ":0080", ":x", ":١٢"]),
    st.integers(min_value=0, max_value=70000).map(lambda port: f":{port}"),
)
_SEGMENTS = st.one_of(
    st.sampled_from(
        [
            "",
            ".",
            "..",
            "%2e",
            "%2E%2e",
            "a",
            "A",
            "%2F",
            "%2f",
            "%7e",
            "~",
            "%7E",
            "a b",
            "café",
            "caf%C3%A9",
            "%",
            "%2",
            "%zz",
            "%41",
            "%%41B",
            "web",
            "2020id_",
            "2020",
            "*",
            "http:",
            "https:",
            "example.com",
            "web.archive.org",
            "路径",
            "\\",
            "#",
            "#!",
            "?",
            "%23",
            "+",
        ]
    ),
    st.text(max_size=6),
)
_PATHS = st.lists(_SEGMENTS, max_size=6).map(lambda segments: "/".join(segments))
_QUERY_PARTS = st.one_of(
    st.sampled_from(
        [
            "a=1",
            "b=2",
            "a=2",
            "utm_source=x",
            "UTM_MEDIUM=y",
            "fbclid=abc",
            "q=a+b",
            "q=a%20b",
            "q=a b",
            "q=%7e%2f",
            "flag",
            "flag=",
            "=v",
            "",
            "%",
            "x=%zz",
            "ü=é",
            "a=b=c",
            "#",
            "?",
        ]
    ),
    st.text(max_size=6),
)
_QUERIES = st.one_of(
    st.just(""),
    st.lists(_QUERY_PARTS, max_size=5).map(lambda parts: "?" + "&".join(parts)),
)
_FRAGMENTS = st.one_of(
    st.just(""),
    st.sampled_from(["#", "#top", "#!", "#!/a/b", "#!a b", "#!x#y", "#!%2f", "#!é"]),
    st.text(max_size=6).map(lambda text: "#" + text),
)
_WHITESPACE = st.sampled_from(["", " ", "\n", "\t ", "\u3000"])


@st.composite
def url_like(draw: st.DrawFn) -> str:
    """URL-ish strings mixing valid parts, traps, unicode and percent sequences."""
    url = (
        draw(_WHITESPACE)
        + draw(_SCHEMES)
        + draw(_SEPARATORS)
        + draw(_USERINFO)
        + draw(_HOSTS)
        + draw(_PORTS)
        + "/"
        + draw(_PATHS)
        + draw(_QUERIES)
        + draw(_FRAGMENTS)
        + draw(_WHITESPACE)
    )
    if draw(st.booleans()):
        stamp = draw(st.sampled_from(["2020", "20200101000000id_", "*", "2020*", "1im_", "x"]))
        wrapper = draw(st.sampled_from(["https://web.archive.org", "http://www.web.archive.org"]))
        url = f"{wrapper}/web/{stamp}/{url.strip()}"
    return url


_ANY_URL = st.one_of(st.text(), url_like())


def _check_output(result: str | None) -> None:
    if result is None:
        return
    assert result.startswith("https://")
    assert not any(ch.isspace() for ch in result)
    assert result.isascii()
    if "#" in result:
        assert result.count("#") == 1
        assert "#!" in result
    assert canonicalize_url(result) is not None


@settings(max_examples=600)
@given(_ANY_URL)
@example("http://example.com/%%41B")
@example("https://web.archive.org/web/%32020/http://example.com/")
@example("http://a.com/web/2020/x")
def test_never_raises_and_is_idempotent(url: str) -> None:
    canonical = canonicalize_url(url)
    _check_output(canonical)
    if canonical is not None:
        assert canonicalize_url(canonical) == canonical
    discarded = canonicalize_url(url, discard_params=True)
    _check_output(discarded)
    assert (discarded is None) == (canonical is None)
    if discarded is not None:
        assert "?" not in discarded.partition("#")[0]
        assert canonicalize_url(discarded, discard_params=True) == discarded
        assert canonicalize_url(canonical, discard_params=True) == discarded  # type: ignore[arg-type]


@settings(max_examples=300)
@given(_ANY_URL)
def test_helpers_never_raise(url: str) -> None:
    assert isinstance(unwrap_archive_url(url), str)
    assert isinstance(is_https(url), bool)
    canonical = canonicalize_url(url)
    if canonical is not None:
        host = url_host(canonical)
        assert host and host in canonical
        assert not host.startswith("www.") or "." not in host[4:]
    rules = IgnoreRules.from_patterns(["tag", "/search", "example.com/private", "*.pdf"])
    result = rules.match(url)
    assert result is None or result in rules.patterns


@given(st.sampled_from(["http", "https"]), st.sampled_from(["", "www."]), st.text(max_size=20))
def test_http_and_https_are_unified(scheme: str, www: str, path: str) -> None:
    url = f"{scheme}://{www}example.com/{path}"
    assert canonicalize_url(url) == canonicalize_url(f"https://example.com/{path}")


# ------------------------------------------------------------------- IgnoreRules


def _rules(*patterns: str) -> IgnoreRules:
    return IgnoreRules.from_patterns(patterns)


@pytest.mark.parametrize(
    ("pattern", "url", "matches"),
    [
        # a bare word is one whole path segment, anywhere in the path
        ("tag", "https://x.com/tag/python", True),
        ("tag", "https://x.com/blog/tag", True),
        ("tag", "https://x.com/blog/tag/", True),
        ("tag", "https://x.com/vintage/", False),
        ("tag", "https://x.com/tags", False),
        ("tag", "https://x.com/TAG/python", False),  # path matching is case-sensitive
        ("tag", "https://tag.x.com/python", False),  # the host is not a path segment
        ("tag", "https://x.com/a?tag=1", False),  # neither is the query
        # consecutive segments
        ("blog/page", "https://x.com/blog/page/2", True),
        ("blog/page", "https://x.com/en/blog/page", True),
        ("blog/page", "https://x.com/blog/x/page", False),
        ("blog/page", "https://x.com/page/blog", False),
        ("blog/page/", "https://x.com/blog/page/2", True),
        # globs on one segment
        ("*.pdf", "https://x.com/files/report.pdf", True),
        ("*.pdf", "https://x.com/files/report.pdf.html", False),
        ("*.pdf", "https://x.com/files/report.PDF", False),
        ("page-*", "https://x.com/news/page-3", True),
        ("page-*", "https://x.com/news/pages-3", False),
        ("page-?", "https://x.com/news/page-3", True),
        ("page-[0-9]", "https://x.com/news/page-7/", True),
        ("index[.]html", "https://x.com/a/index.html", True),
        # percent-decoded segments
        ("café", "https://x.com/caf%C3%A9/menu", True),
        ("a b", "https://x.com/a%20b", True),
        # anchored at the start of the path
        ("/search", "https://x.com/search?q=1", True),
        ("/search", "https://x.com/search/x", True),
        ("/search", "https://x.com/a/search", False),
        ("/search", "https://x.com/searching", False),
        ("/blog/page", "https://x.com/blog/page/2", True),
        ("/blog/page", "https://x.com/en/blog/page/2", False),
        # host rules
        ("example.com/private", "http://example.com/private", True),
        ("example.com/private", "https://www.example.com/private/x", True),
        ("example.com/private", "https://blog.example.com/private", True),
        ("example.com/private", "https://example.com/public/private", False),
        ("example.com/private", "https://notexample.com/private", False),
        ("example.com/private", "https://example.org/private", False),
        ("example.com/private", "https://x.com/example.com/private", False),
        ("www.example.com/private", "https://example.com/private", True),
        ("Example.COM/private", "https://example.com/private", True),
        ("https://example.com/private", "https://example.com/private", True),
        ("example.com", "https://example.com/", True),
        ("example.com", "https://www.example.com/any/path?x=1", True),
        ("example.com", "https://sub.example.com/a", True),
        ("example.com", "https://example.com.evil.net/a", False),
        ("example.com", "https://example.org/", False),
        ("bücher.example/x", "https://xn--bcher-kva.example/x/1", True),
        ("index.html", "https://x.com/index.html", False),  # a host rule, see docstring
        # URLs are matched in canonical form
        ("/a/c", "https://x.com/a/b/../c/", True),
        (
            "example.com/private",
            "https://web.archive.org/web/2020/http://example.com/private",
            True,
        ),
        ("/web", "https://web.archive.org/web/2020/http://example.com/private", False),
        # non-canonicalizable URLs: matched on the raw path, host rules never match
        ("tag", "/tag/python", True),
        ("/search", "/search?q=1", True),
        ("/search", "search/x", False),
        ("tag", "ftp://example.com/tag/x", True),
        ("example.com", "ftp://example.com/tag/x", False),
        ("tag", "mailto:tag@example.com", False),
    ],
)
def test_ignore_rules_match(pattern: str, url: str, matches: bool) -> None:
    assert _rules(pattern).match(url) == (pattern.strip() if matches else None)


def test_ignore_rules_first_match_wins() -> None:
    rules = _rules("*.pdf", "files", "x.com")
    assert rules.match("https://x.com/files/a.pdf") == "*.pdf"
    assert rules.match("https://x.com/files/a.txt") == "files"
    assert rules.match("https://x.com/other") == "x.com"
    assert rules.match("https://y.com/other") is None


def test_ignore_rules_strip_and_store_patterns() -> None:
    rules = IgnoreRules.from_patterns(iter([" tag ", "/search\n"]))
    assert rules.patterns == ("tag", "/search")
    assert rules.match("https://x.com/tag") == "tag"
    assert rules == IgnoreRules(("tag", "/search"))
    assert "_rules" not in repr(rules)


def test_ignore_rules_empty() -> None:
    rules = IgnoreRules.from_patterns([])
    assert rules.patterns == ()
    assert rules.match("https://x.com/tag") is None


def test_ignore_rules_are_frozen() -> None:
    rules = _rules("tag")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.patterns = ("other",)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("/", "every URL"),
        ("a//b", "empty, '.' or '..'"),
        ("./a", "empty, '.' or '..'"),
        ("a/../b", "empty, '.' or '..'"),
        ("exa mple.com/x", "invalid host"),
        ("example..com", "invalid host"),
    ],
)
def test_ignore_rules_invalid_patterns(pattern: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        IgnoreRules.from_patterns(["ok", pattern])


def test_ignore_rules_reject_a_single_string() -> None:
    with pytest.raises(TypeError, match="list of patterns"):
        IgnoreRules.from_patterns("tag")


def test_ignore_rules_reject_non_string_pattern() -> None:
    with pytest.raises(ValueError, match="must be a string"):
        IgnoreRules.from_patterns([3])  # type: ignore[list-item]


@given(st.text(max_size=30))
def test_ignore_rules_compile_never_crashes_unexpectedly(pattern: str) -> None:
    try:
        rules = IgnoreRules.from_patterns([pattern])
    except ValueError:
        return
    assert rules.patterns == (pattern.strip(),)
    rules.match("https://example.com/a/b")


def _label_by_label(host: str) -> bool:
    """_valid_dns_host by its definition: 1 to 253 characters, labels of 1 to 63 of a-z,
    0-9, '-' and '_' between dots."""
    if not host or len(host) > 253:
        return False
    return all(
        0 < len(label) <= 63 and all(ch in "abcdefghijklmnopqrstuvwxyz0123456789-_" for ch in label)
        for label in host.split(".")
    )


@settings(max_examples=2000, derandomize=True)
@given(
    st.one_of(
        st.text(alphabet="ab-_.Z9\n\u00e9\u0131K\u0661\uff41", max_size=14),
        st.lists(st.sampled_from(["a" * 62, "a" * 63, "a" * 64, "", "b"]), max_size=6).map(
            ".".join
        ),
    )
)
def test_valid_dns_host_is_its_label_by_label_definition(host: str) -> None:
    from webdedup.algorithms.urls.canonical import _valid_dns_host

    assert _valid_dns_host(host) == _label_by_label(host)


# ------------------------------------------------------------ the plain-URL path

@st.composite
def plain_like(draw: st.DrawFn) -> str:
    """URLs near the plain form (lower-case scheme and host, ASCII): most take the plain
    path, some just miss it (a dot segment, a ``%``, a ``;``, a ``#!``, a Wayback host)."""
    host = draw(st.sampled_from([
        "example.com", "www.example.com", "www.com", "a..b", "-x.org", "x_y.de", "1.2.3.4",
        "web.archive.org", "www.web.archive.org", "example.com.", "xn--bcher-kva.example",
        "a" * 64 + ".com", "sub.www.example.co.uk",
    ]))
    segment = st.text(alphabet="abcXYZ019._~!$&'()*+,=:@-%;/", max_size=8)
    path = draw(st.lists(segment, max_size=5).map(lambda s: "/" + "/".join(s)) | st.just(""))
    query = draw(st.just("") | st.lists(_QUERY_PARTS, max_size=4).map(
        lambda parts: "?" + "&".join(parts)))
    fragment = draw(st.sampled_from(["", "#", "#top", "#!", "#!/a", "#a?b#c"]))
    scheme = draw(st.sampled_from(["http", "https"]))
    return f"{scheme}://{host}{path}{query}{fragment}"


@settings(max_examples=1500, deadline=None)
@given(st.one_of(plain_like(), _ANY_URL))
@example("http://example.com/a/..")
@example("http://example.com/.well-known/x")
@example("https://www.web.archive.org/web/2020/http://b.com/")
@example("http://example.com/a?b=1+2&utm_source=x#y")
def test_the_plain_path_gives_the_rules_key(url: str) -> None:
    from webdedup.algorithms.urls.canonical import _by_the_rules, _plain

    plain = _plain(url)
    assert plain is None or plain == _by_the_rules(url)
    for discard in (False, True):
        assert canonicalize_url(url, discard_params=discard) == _by_the_rules(url, discard)


def test_the_plain_path_on_real_urls() -> None:
    # every URL of the real crawls and texts: the same key either way, and most are plain
    from benchmarks.studies.start_costs import real_urls
    from webdedup.algorithms.urls.canonical import _by_the_rules, _plain

    urls = real_urls()
    plain = 0
    for url in urls:
        fast = _plain(url)
        plain += fast is not None
        assert fast is None or fast == _by_the_rules(url), url
    assert len(urls) > 3000 and plain > len(urls) // 2, (len(urls), plain)
