"""Wayback Machine captures: the URL a ``web.archive.org/web/<timestamp>/<url>`` URL captured
(pure: no I/O, no network).

Example:
    >>> unwrap_archive_url("https://web.archive.org/web/2020id_/example.com/?a=1")
    'http://example.com/?a=1'
"""

from __future__ import annotations

import string
from urllib.parse import unquote

from .parts import SCHEMES, clean

_WAYBACK_HOSTS = frozenset({"web.archive.org", "www.web.archive.org", "wayback.archive.org"})
#: Captures of captures unwrapped at most (a canonical URL that still is one is refused).
MAX_UNWRAP = 8
_MAX_TIMESTAMP_DIGITS = 14


def _is_wayback_timestamp(segment: str) -> bool:
    """Whether a path segment is a capture timestamp, e.g. ``20200101000000`` or ``2020id_``.

    Only digits (optionally with a playback modifier such as ``id_``, ``im_``) name a
    capture; ``*`` and ``2020*`` are listing (calendar/search) pages, not captures, and keep
    their own URL.

    >>> [_is_wayback_timestamp(s) for s in ("2020", "2020id_", "2020*", "*", "x", "id_")]
    [True, True, False, False, False, False]
    """
    digits = len(segment) - len(segment.lstrip(string.digits))
    if not 1 <= digits <= _MAX_TIMESTAMP_DIGITS:
        return False
    modifier = segment[digits:]
    if not modifier:
        return True
    letters = modifier[:-1]
    return (
        modifier.endswith("_")
        and 1 <= len(letters) <= 3
        and all(ch in string.ascii_lowercase for ch in letters)
    )


def _looks_like_scheme(text: str) -> bool:
    """Whether ``text`` starts with ``scheme:`` (and not with ``host:port``).

    >>> _looks_like_scheme("mailto:a@b.c"), _looks_like_scheme("example.com:8080/x")
    (True, False)
    """
    scheme, sep, rest = text.partition(":")
    if not sep or not scheme or scheme[0] not in string.ascii_letters:
        return False
    if not all(ch in string.ascii_letters + string.digits + "+.-" for ch in scheme):
        return False
    if not rest:
        return False  # "example.com:" is a host with an empty port
    port = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    return not (port.isascii() and port.isdigit())


def _fix_inner_url(inner: str) -> str:
    """Turn the captured part of a Wayback URL into an absolute URL.

    >>> _fix_inner_url("http:/example.com/a"), _fix_inner_url("example.com/a")
    ('http://example.com/a', 'http://example.com/a')
    """
    lowered = inner.lower()
    if lowered.startswith(("http%3a", "https%3a")):
        inner = unquote(inner)
        lowered = inner.lower()
    for scheme in SCHEMES:
        if lowered.startswith(scheme + ":"):
            return scheme + "://" + inner[len(scheme) + 1 :].lstrip("/")
    if inner.startswith("//"):
        return "http:" + inner
    if _looks_like_scheme(inner):
        return inner
    return "http://" + inner


def unwrap_once(url: str) -> str | None:
    """The captured URL of a Wayback URL, or ``None`` when ``url`` is not one.

    >>> unwrap_once("https://web.archive.org/web/2020id_/example.com/?a=1")
    'http://example.com/?a=1'
    """
    text = clean(url)
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in SCHEMES:
        return None
    authority, slash, path = rest.partition("/")
    if not slash:
        return None
    host = authority.rpartition("@")[2].partition(":")[0].lower()
    if host.endswith("."):
        host = host[:-1]
    if host not in _WAYBACK_HOSTS:
        return None
    first, slash, remainder = path.partition("/")
    if first != "web" or not slash:
        return None
    timestamp, slash, inner = remainder.partition("/")
    if not slash or not inner or not _is_wayback_timestamp(timestamp):
        return None
    return _fix_inner_url(inner)


def unwrap_archive_url(url: str) -> str:
    """Return the URL captured by a Wayback Machine URL, else ``url`` unchanged.

    Recognizes ``http(s)://[www.]web.archive.org/web/<timestamp>[modifier_]/<url>``
    (modifiers such as ``id_``, ``im_``, ``js_``, and ``*`` listings); nested captures
    are unwrapped too.  A captured URL without a scheme gets ``http://``.  The result is
    not canonicalized.

    >>> unwrap_archive_url("https://web.archive.org/web/20200101000000/https://a.com/x?y=1")
    'https://a.com/x?y=1'
    >>> unwrap_archive_url("https://a.com/web/2020/b.com")
    'https://a.com/web/2020/b.com'
    """
    current = url
    for _ in range(MAX_UNWRAP):
        inner = unwrap_once(current)
        if inner is None:
            return current
        current = inner
    return current
