"""URL canonicalization and ``urls_to_ignore`` rules.

Everything in this module is a pure function of its arguments: no I/O, no network,
no caches, no module-level mutable state.  Only the standard library is used.

The canonical key of a page is built by :func:`canonicalize_url`.  Its rules, in order:

1. surrounding whitespace is stripped, tabs and line breaks inside are removed;
2. a Wayback Machine capture (``web.archive.org/web/<timestamp>[modifier_]/<url>``) is
   unwrapped to the captured URL;
3. only absolute ``http``/``https`` URLs with a valid host are accepted (else ``None``);
   both schemes give the same key, which always starts with ``https://``;
4. host: userinfo dropped, percent-decoded, lower-cased, IDN to punycode (a UTS #46
   non-transitional approximation, see :func:`_idn_to_ascii`), one trailing dot removed,
   IPv4 kept in dotted form, IPv6 compressed and lower-cased in brackets, leading ``www.`` removed
   while what remains still contains a dot;
5. port: 80 and 443 are dropped (http and https are unified), other ports kept;
6. path: percent-encoding normalized (hex upper-cased, unreserved characters decoded,
   reserved ones such as ``%2F`` kept encoded, unsafe and non-ASCII characters encoded
   as UTF-8), then dot segments removed, then trailing slashes removed (the empty path
   becomes ``/``); case is preserved; session parameters of a path segment
   (``;jsessionid=...``, ``;phpsessid=...``) dropped;
7. query: ``+`` means a space and is written ``%20``; tracking parameters dropped
   (:data:`TRACKING_PARAMS`, :data:`TRACKING_PARAM_PREFIXES`) and session identifiers
   (:func:`_is_session_param`, as the Internet Archive's and Heritrix's canonicalizers
   drop them); empty ``&&`` pieces dropped; the rest stably sorted by key; an empty query is
   dropped;
8. fragment: dropped, except a non-empty ``#!`` hashbang (AJAX-crawlable URLs).

Example:
    >>> canonicalize_url("HTTP://www.Example.COM:80/a/./b/?utm_source=x&b=2&a=1#top")
    'https://example.com/a/b?a=1&b=2'
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import ipaddress
import re
import string
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

__all__ = [
    "IGNORE_MATCHES",
    "SESSION_PARAMS",
    "TRACKING_PARAMS",
    "TRACKING_PARAM_PREFIXES",
    "IgnoreRules",
    "canonicalize_url",
    "is_https",
    "unwrap_archive_url",
    "url_host",
]

#: Query parameter names (compared lower-cased, after percent-decoding) that only carry
#: click/campaign/e-mail tracking data and never select content.  The list is
#: deliberately limited to names that are distinctive enough not to be a real content
#: parameter on some other site: short generic names such as ``ref``, ``source``,
#: ``si``, ``cmp`` or Alibaba's ``spm`` are *not* included, because merging two
#: different pages is worse than missing a duplicate.
TRACKING_PARAMS: frozenset[str] = frozenset(
    {
        # Google Ads / Analytics / Merchant Center
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "_ga",
        "_gl",
        "srsltid",
        # Other ad networks and social sites
        "msclkid",  # Microsoft Ads
        "yclid",  # Yandex
        "ysclid",  # Yandex
        "_openstat",  # Yandex
        "fbclid",  # Facebook
        "igshid",  # Instagram
        "ttclid",  # TikTok
        "twclid",  # Twitter/X
        "li_fat_id",  # LinkedIn
        "rdt_cid",  # Reddit
        "epik",  # Pinterest
        "s_kwcid",  # Adobe Advertising
        "irclickid",  # impact.com
        "_branch_match_id",  # Branch deep links
        # E-mail marketing
        "mc_cid",  # Mailchimp
        "mc_eid",  # Mailchimp
        "mkt_tok",  # Marketo
        "_hsenc",  # HubSpot
        "_hsmi",  # HubSpot
        "__hstc",  # HubSpot
        "__hssc",  # HubSpot
        "__hsfp",  # HubSpot
        "hsctatracking",  # HubSpot
        "oly_anon_id",  # Omeda
        "oly_enc_id",  # Omeda
        "vero_id",  # Vero
        "vero_conv",  # Vero
        "_kx",  # Klaviyo
        "ml_subscriber",  # MailerLite
        "ml_subscriber_hash",  # MailerLite
        "wickedid",  # Wicked Reports
        # Matomo / Piwik campaign parameters
        "pk_campaign",
        "pk_kwd",
        "pk_keyword",
        "pk_source",
        "pk_medium",
        "pk_content",
        "pk_cid",
        # AT Internet / Piano and comScore, common on news-site RSS links
        "xtor",
        "at_medium",
        "at_campaign",
        "ns_mchannel",
        "ns_source",
        "ns_campaign",
        "ns_linkname",
        "ns_fee",
    }
)

#: Query parameter name prefixes (compared lower-cased) of tracking parameters:
#: Google Analytics ``utm_*``, Matomo ``mtm_*`` and HubSpot Ads ``hsa_*``.
TRACKING_PARAM_PREFIXES: tuple[str, ...] = ("utm_", "mtm_", "hsa_")

_SCHEMES = ("http", "https")
_DEFAULT_PORTS = (80, 443)
_HEX_DIGITS = frozenset(string.hexdigits)
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_SUB_DELIMS = "!$&'()*+,;="
# Characters allowed literally in each component (everything else is percent-encoded).
_PATH_SAFE = _UNRESERVED | frozenset(_SUB_DELIMS + ":@/")
# '&' and '+' never reach the query normalizer ('&' splits pairs, '+' becomes %20).
_QUERY_SAFE = _UNRESERVED | frozenset("!$'()*,;=:@/?")
_FRAGMENT_SAFE = _UNRESERVED | frozenset(_SUB_DELIMS + ":@/?")
_HOST_LABEL_CHARS = frozenset(string.ascii_lowercase + string.digits + "-_")
_MAX_HOST_LENGTH = 253
_MAX_LABEL_LENGTH = 63
#: Labels of :data:`_HOST_LABEL_CHARS`, 1 to :data:`_MAX_LABEL_LENGTH` of them, between dots.
_DNS_LABEL = f"[{re.escape(''.join(sorted(_HOST_LABEL_CHARS)))}]{{1,{_MAX_LABEL_LENGTH}}}"
_DNS_HOST = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
_MAX_PORT = 65535
_REMOVED_CHARS = str.maketrans("", "", "\t\n\r")
_IDN_DOTS = str.maketrans("\u3002\uff0e\uff61", "...")

_WAYBACK_HOSTS = frozenset({"web.archive.org", "www.web.archive.org", "wayback.archive.org"})
_MAX_UNWRAP = 8
_MAX_TIMESTAMP_DIGITS = 14
_GLOB_CHARS = frozenset("*?[")
#: How ``urls_to_ignore`` patterns match a URL: webdedup's path-segment rules, or as
#: substrings of the URL (the ``Deduplicator`` webdedup follows; :class:`IgnoreRules`).
IGNORE_MATCHES = ("segments", "substring")


# --------------------------------------------------------------------------- helpers


def _clean(url: str) -> str:
    """Strip surrounding whitespace and drop tabs/line breaks (as browsers do).

    >>> _clean("  http://a.com/x\\ny ")
    'http://a.com/xy'
    """
    url = url.strip()
    if "\t" in url or "\n" in url or "\r" in url:  # str.translate is per character: rare
        url = url.translate(_REMOVED_CHARS)
    return url


@functools.cache
def _changes(safe: frozenset[str]) -> re.Pattern[str]:
    """A character that :func:`_normalize_percent` may change: ``%`` or one outside ``safe``."""
    return re.compile("[^" + re.escape("".join(sorted(safe - {"%"}))) + "]|%")


def _normalize_percent(text: str, safe: frozenset[str]) -> str:
    """Normalize percent-encoding of one URL component.

    Valid ``%XX`` escapes of unreserved characters are decoded, other escapes get
    upper-case hex, a ``%`` that does not start a valid escape becomes ``%25``, and every
    character outside ``safe`` is encoded as UTF-8.  The result is a fixed point.

    >>> _normalize_percent("/caf\\u00e9 %7e%2f%", _PATH_SAFE)
    '/caf%C3%A9%20~%2F%25'
    """
    if _changes(safe).search(text) is None:  # most components: no escape, nothing to encode
        return text
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "%":
            if i + 2 < n and text[i + 1] in _HEX_DIGITS and text[i + 2] in _HEX_DIGITS:
                pair = text[i + 1 : i + 3]
                decoded = chr(int(pair, 16))
                out.append(decoded if decoded in _UNRESERVED else "%" + pair.upper())
                i += 3
                continue
            out.append("%25")
        elif ch in safe:
            out.append(ch)
        else:
            out.append("".join(f"%{byte:02X}" for byte in ch.encode("utf-8")))
        i += 1
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    """Remove ``.`` and ``..`` segments from an absolute path (RFC 3986, 5.2.4).

    >>> _remove_dot_segments("/a/b/../c/./d")
    '/a/c/d'
    """
    output: list[str] = []
    segments = path.split("/")[1:]
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "..":
            if output:
                output.pop()
            if last:
                output.append("")
        elif segment == ".":
            if last:
                output.append("")
        else:
            output.append(segment)
    return "/" + "/".join(output)


def _normalize_path(path: str) -> str:
    """Canonical form of a URL path (see the module docstring).

    >>> _normalize_path("/a/%7euser/../b c/")
    '/a/b%20c'
    """
    if not path.startswith("/"):
        path = "/" + path
    path = _remove_dot_segments(_normalize_percent(path, _PATH_SAFE))
    path = path.rstrip("/")
    return path or "/"


def _is_tracking_param(key: str) -> bool:
    """Whether a (normalized) query key is a tracking parameter.

    >>> _is_tracking_param("utm_Source"), _is_tracking_param("page")
    (True, False)
    """
    name = unquote(key).lower()
    return name in TRACKING_PARAMS or name.startswith(TRACKING_PARAM_PREFIXES)


#: Query parameter names (lower-cased) that only ever carry a session identifier: Java
#: servlets, PHP, ColdFusion. ``aspsessionid`` is a prefix (``ASPSESSIONIDQQGGQGPC``).
SESSION_PARAMS: frozenset[str] = frozenset({"jsessionid", "phpsessid", "cfid", "cftoken"})
_SESSION_PREFIX = "aspsessionid"
#: ``sid`` is also a content parameter (a story id): dropped only when its value looks like
#: a session: 16 or more hex digits, or 20 or more letters and digits mixed.
_SID_HEX = re.compile(r"[0-9a-fA-F]{16,}")
_SID_ALNUM = re.compile(r"(?=[0-9a-zA-Z]*[0-9])(?=[0-9a-zA-Z]*[a-zA-Z])[0-9a-zA-Z]{20,}")
#: A session parameter of a path segment: ``/a;jsessionid=0A1B`` (up to the next ``/``).
_PATH_SESSION = re.compile(r";(?:jsessionid|phpsessid)=[^/;]*", re.IGNORECASE)


def _is_session_param(key: str, value: str) -> bool:
    """Whether a (normalized) query parameter is a session identifier.

    >>> _is_session_param("PHPSESSID", "x"), _is_session_param("ASPSESSIONIDQQGGQGPC", "x")
    (True, True)
    >>> _is_session_param("sid", "9f86d081884c7d659a2feaa0c55ad015"), _is_session_param("sid", "42")
    (True, False)
    """
    name = unquote(key).lower()
    if name in SESSION_PARAMS or name.startswith(_SESSION_PREFIX):
        return True
    if name == "sid":
        value = unquote(value)
        return bool(_SID_HEX.fullmatch(value) or _SID_ALNUM.fullmatch(value))
    return False


def _strip_path_sessions(path: str) -> str:
    """``path`` without ``;jsessionid=``/``;phpsessid=`` segment parameters.

    >>> _strip_path_sessions("/shop/item;jsessionid=0A1B2C3D/detail;JSESSIONID=FF")
    '/shop/item/detail'
    """
    return _PATH_SESSION.sub("", path) if ";" in path else path


def _normalize_query(query: str) -> str:
    """Canonical query string: tracking parameters dropped, stably sorted by key.

    >>> _normalize_query("b=2&utm_medium=x&a=1+2&&b=1")
    'a=1%202&b=2&b=1'
    """
    pairs: list[tuple[str, str]] = []
    for piece in query.split("&"):
        if not piece:
            continue
        key, sep, value = piece.partition("=")
        key = _normalize_percent(key.replace("+", "%20"), _QUERY_SAFE)
        if _is_tracking_param(key):
            continue
        value = _normalize_percent(value.replace("+", "%20"), _QUERY_SAFE)
        if _is_session_param(key, value):
            continue
        pairs.append((key, key + sep + value))
    pairs.sort(key=lambda pair: pair[0])
    return "&".join(text for _, text in pairs)


def _valid_dns_host(host: str) -> bool:
    """Whether ``host`` is a lower-case ASCII host name made of valid labels.

    >>> _valid_dns_host("xn--bcher-kva.example"), _valid_dns_host("a..b")
    (True, False)
    """
    return len(host) <= _MAX_HOST_LENGTH and _DNS_HOST.fullmatch(host) is not None


def _idn_to_ascii(host: str) -> str | None:
    """Convert an internationalized host name to punycode, or ``None`` when invalid.

    An approximation of UTS #46 non-transitional processing: each label is lower-cased
    and NFKC-normalized, the ideographic full stops also separate labels, only letters,
    digits, combining marks, ``-`` and ``_`` are allowed, and a label with non-ASCII
    characters becomes ``xn--`` + punycode.  Unlike the standard library ``idna`` codec
    (IDNA 2003), ``ß`` and ``ς`` are not folded, so ``faß.de`` and ``fass.de`` stay
    different hosts, as in current browsers.

    >>> _idn_to_ascii("B\u00fccher.example"), _idn_to_ascii("fa\u00df.de")
    ('xn--bcher-kva.example', 'xn--fa-hia.de')
    """
    labels: list[str] = []
    for label in host.translate(_IDN_DOTS).split("."):
        # Character by character: no context-dependent final sigma, as in UTS #46.
        label = "".join(ch.lower() for ch in label)
        label = "".join(ch.lower() for ch in unicodedata.normalize("NFKC", label))
        if label.isascii():
            if not all(ch in _HOST_LABEL_CHARS for ch in label):
                return None
            labels.append(label)
            continue
        for ch in label:
            if ch.isascii():
                allowed = ch in _HOST_LABEL_CHARS
            else:
                allowed = ch.isalnum() or unicodedata.category(ch).startswith("M")
            if not allowed:
                return None
        labels.append("xn--" + label.encode("punycode").decode("ascii"))
    return ".".join(labels)


@functools.lru_cache(maxsize=4096)  # a crawl has far fewer hosts than pages
def _normalize_host(host: str) -> str | None:
    """Canonical form of a host (no port, no userinfo), or ``None`` when invalid.

    >>> _normalize_host("WWW.B\\u00fccher.Example.")
    'xn--bcher-kva.example'
    >>> _normalize_host("[2001:DB8::0:1]")
    '[2001:db8::1]'
    """
    if host.startswith("["):
        if not host.endswith("]"):
            return None
        literal = host[1:-1]
        if not literal or not all(ch in _HEX_DIGITS or ch in ":." for ch in literal):
            return None  # also rejects zone identifiers and IPvFuture literals
        try:
            return "[" + ipaddress.IPv6Address(literal).compressed + "]"
        except ValueError:
            return None
    if "%" in host:
        try:
            host = unquote(host, errors="strict")
        except UnicodeDecodeError:
            return None
    if host.isascii():
        host = host.lower()
    else:
        idn = _idn_to_ascii(host)
        if idn is None:
            return None
        host = idn
    if host.endswith("."):
        host = host[:-1]
    if not _valid_dns_host(host):
        return None
    last_label = host.rpartition(".")[2]
    if last_label.isdigit():
        try:
            return str(ipaddress.IPv4Address(host))
        except ValueError:
            return None
    while host.startswith("www.") and "." in host[4:]:
        host = host[4:]
    return host


def _normalize_port(port: str) -> str | None:
    """Canonical port text: ``""`` for none/default, ``None`` when invalid.

    >>> _normalize_port("0080"), _normalize_port("8080"), _normalize_port("0")
    ('', '8080', None)
    """
    if not port:
        return ""
    if not (port.isascii() and port.isdigit()):
        return None
    digits = port.lstrip("0") or "0"
    if len(digits) > len(str(_MAX_PORT)):
        return None
    number = int(digits)
    if not 0 < number <= _MAX_PORT:
        return None
    if number in _DEFAULT_PORTS:
        return ""
    return str(number)


def _split_authority(netloc: str) -> tuple[str, str] | None:
    """Split an authority into ``(host, port)`` with userinfo dropped.

    >>> _split_authority("user:pw@[::1]:8080")
    ('[::1]', '8080')
    """
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            return None
        host, rest = hostport[: end + 1], hostport[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        return host, rest[1:]
    host, _, port = hostport.partition(":")
    return host, port


def _canonicalize_once(url: str) -> str | None:
    """Canonicalize without Wayback unwrapping and keeping the query.

    >>> _canonicalize_once("http://Example.com")
    'https://example.com/'
    """
    try:
        url.encode("utf-8")
    except UnicodeEncodeError:
        return None  # lone surrogates cannot be percent-encoded as UTF-8
    text = _clean(url)
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    if parts.scheme not in _SCHEMES or not parts.netloc:
        return None
    authority = _split_authority(parts.netloc)
    if authority is None:
        return None
    host = _normalize_host(authority[0])
    port = _normalize_port(authority[1])
    if host is None or port is None:
        return None
    result = ["https://", host]
    if port:
        result.append(":" + port)
    result.append(_normalize_path(_strip_path_sessions(parts.path)))
    query = _normalize_query(parts.query)
    if query:
        result.append("?" + query)
    if parts.fragment.startswith("!") and len(parts.fragment) > 1:
        result.append("#" + _normalize_percent(parts.fragment, _FRAGMENT_SAFE))
    return "".join(result)


def _canonical_host(canonical: str) -> str:
    """Host (without port) of an already canonical URL.

    >>> _canonical_host("https://[::1]:8080/x")
    '[::1]'
    """
    authority = canonical[len("https://") :].split("/", 1)[0]
    if authority.startswith("["):
        return authority[: authority.find("]") + 1]
    return authority.partition(":")[0]


def _drop_query(canonical: str) -> str:
    """Remove the query of a canonical URL, keeping a ``#!`` fragment.

    >>> _drop_query("https://a.com/x?b=1#!/y")
    'https://a.com/x#!/y'
    """
    base, hash_sign, fragment = canonical.partition("#")
    return base.partition("?")[0] + hash_sign + fragment


# ----------------------------------------------------------------------------- wayback


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
    for scheme in _SCHEMES:
        if lowered.startswith(scheme + ":"):
            return scheme + "://" + inner[len(scheme) + 1 :].lstrip("/")
    if inner.startswith("//"):
        return "http:" + inner
    if _looks_like_scheme(inner):
        return inner
    return "http://" + inner


def _unwrap_once(url: str) -> str | None:
    """The captured URL of a Wayback URL, or ``None`` when ``url`` is not one.

    >>> _unwrap_once("https://web.archive.org/web/2020id_/example.com/?a=1")
    'http://example.com/?a=1'
    """
    text = _clean(url)
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in _SCHEMES:
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
    for _ in range(_MAX_UNWRAP):
        inner = _unwrap_once(current)
        if inner is None:
            return current
        current = inner
    return current


# ------------------------------------------------------------------------------ public


def canonicalize_url(url: str, *, discard_params: bool = False) -> str | None:
    """Return the canonical key of a web page URL, or ``None``.

    ``None`` means the string is not an absolute http(s) URL that can be made canonical
    safely (relative URL, other scheme, missing/invalid host, invalid port...).  Never
    raises for a ``str``; idempotent.  ``discard_params=True`` drops the whole query
    (a ``#!`` fragment is kept).  See the module docstring for the rules.

    >>> canonicalize_url("http://www.B\\u00fccher.example/a%7e/?fbclid=1&q=a+b#frag")
    'https://xn--bcher-kva.example/a~?q=a%20b'
    >>> canonicalize_url("https://example.com/a?x=1", discard_params=True)
    'https://example.com/a'
    >>> canonicalize_url("/about") is None
    True
    """
    if not isinstance(url, str):
        return None
    current = url
    for _ in range(_MAX_UNWRAP):
        canonical = _canonicalize_once(unwrap_archive_url(current))
        if canonical is None:
            return None
        if _unwrap_once(canonical) is None:
            return _drop_query(canonical) if discard_params else canonical
        current = canonical
    return None


def url_host(canonical_url: str) -> str:
    """Host of a canonical URL, without port (``www.`` already stripped).

    IPv6 hosts keep their brackets.  A non-canonical URL is canonicalized first;
    ``ValueError`` is raised when that is impossible.

    >>> url_host("https://example.com:8080/a")
    'example.com'
    >>> url_host("http://www.example.com/")
    'example.com'
    """
    canonical = canonicalize_url(canonical_url)
    if canonical is None:
        raise ValueError(f"not a canonicalizable http(s) URL: {canonical_url!r}")
    return _canonical_host(canonical)


def canonical_host(canonical_url: str) -> str:
    """Host of a URL that is already canonical (the output of :func:`canonicalize_url`).

    Cheaper than :func:`url_host`, which canonicalizes its input first.

    >>> canonical_host("https://example.com:8080/a")
    'example.com'
    """
    return _canonical_host(canonical_url)


def is_https(url: str) -> bool:
    """Whether the scheme of the original ``url`` is https (case-insensitive).

    >>> is_https(" HTTPS://a.com"), is_https("http://a.com"), is_https("garbage")
    (True, False, False)
    """
    if not isinstance(url, str):
        return False
    return _clean(url)[:8].lower() == "https://"


# ------------------------------------------------------------------------ ignore rules


@dataclass(frozen=True)
class _Rule:
    """One compiled ignore pattern."""

    pattern: str
    host: str | None
    anchored: bool
    segments: tuple[str, ...]

    def matches(self, host: str | None, segments: list[str], absolute: bool) -> bool:
        """Whether the rule matches a URL given its host and decoded path segments.

        >>> _Rule("tag", None, False, ("tag",)).matches("a.com", ["x", "tag"], True)
        True
        """
        if self.host is not None:
            if host is None or not (host == self.host or host.endswith("." + self.host)):
                return False
        elif self.anchored and not absolute:
            return False
        count = len(self.segments)
        if self.anchored:
            starts = range(1)
        else:
            starts = range(len(segments) - count + 1)
        for start in starts:
            window = segments[start : start + count]
            if len(window) == count and all(
                fnmatch.fnmatchcase(segment, pattern)
                for segment, pattern in zip(window, self.segments, strict=True)
            ):
                return True
        return False


def _compile_pattern(pattern: str) -> _Rule:
    """Compile one ignore pattern, raising ``ValueError`` when it is empty or invalid.

    >>> _compile_pattern("www.example.com/private")
    _Rule(pattern='www.example.com/private', host='example.com', anchored=True, \
segments=('private',))
    """
    if not isinstance(pattern, str):
        raise ValueError(f"ignore pattern must be a string, got {pattern!r}")
    text = pattern.strip()
    if not text:
        raise ValueError("empty ignore pattern: remove it from urls_to_ignore")
    body = text
    scheme, sep, rest = body.partition("://")
    has_scheme = bool(sep) and scheme.lower() in _SCHEMES
    if has_scheme:
        body = rest
    host: str | None = None
    anchored = body.startswith("/")
    if anchored:
        body = body[1:]
    else:
        first, _, remainder = body.partition("/")
        is_host = "." in first and first not in (".", "..") and not _GLOB_CHARS & set(first)
        if has_scheme or is_host:
            normalized = _normalize_host(first)
            if normalized is None:
                raise ValueError(
                    f"invalid host {first!r} in ignore pattern {pattern!r}: a pattern whose "
                    "first part contains a dot is a host rule like 'example.com/private'; "
                    "use a glob such as 'index[.]html' to match a file name instead"
                )
            host = normalized
            anchored = True
            body = remainder
    body = body.rstrip("/")
    segments = tuple(unquote(segment) for segment in body.split("/")) if body else ()
    if host is None and not segments:
        raise ValueError(
            f"ignore pattern {pattern!r} has no path segment and would match every URL"
        )
    for segment in segments:
        if segment in ("", ".", ".."):
            raise ValueError(
                f"invalid ignore pattern {pattern!r}: empty, '.' or '..' path segment "
                "(write segments separated by single slashes, e.g. 'blog/page')"
            )
    return _Rule(text, host, anchored, segments)


def _path_segments(path: str) -> list[str]:
    """Percent-decoded segments of a path, without the empty leading/trailing ones.

    >>> _path_segments("/a/caf%C3%A9/")
    ['a', 'café']
    """
    segments = path.strip("/").split("/")
    if segments == [""]:
        return []
    return [unquote(segment, errors="replace") for segment in segments]


@dataclass(frozen=True)
class IgnoreRules:
    """``urls_to_ignore`` rules: path-segment patterns, not raw substrings.

    * A pattern is split on ``/`` into segments; each segment is an ``fnmatch`` glob
      (``*``, ``?``, ``[...]``) matched case-sensitively against one whole,
      percent-decoded path segment, and the pattern segments must match consecutive
      path segments.  ``tag`` matches ``https://x.com/tag/python`` and
      ``https://x.com/blog/tag`` but neither ``https://x.com/vintage/`` nor
      ``https://x.com/tags``; ``blog/page`` matches ``/blog/page/2``; ``*.pdf`` matches
      ``/files/report.pdf``; ``page-*`` matches ``/news/page-3``.
    * A pattern starting with ``/`` is anchored at the start of the path: ``/search``
      matches ``/search?q=1`` and ``/search/x`` but not ``/a/search``.
    * A pattern whose first part contains a dot and no glob character is a host rule:
      ``example.com/private`` matches ``/private...`` (anchored) on ``example.com``,
      ``www.example.com`` and every subdomain such as ``blog.example.com``, but not on
      ``notexample.com``; ``example.com`` alone ignores the whole host.  A leading
      ``http://``/``https://`` is accepted and ignored.  To match a dotted file name
      anywhere, put a glob in it: ``index[.]html`` or ``*.html``.
    * The query string is never considered; a trailing ``/`` in a pattern is ignored.
    * URLs are matched in canonical form (so Wayback URLs match on the captured URL);
      a URL that cannot be canonicalized is matched on the raw string's path only
      (host rules never match it, anchored rules only if the path starts with ``/``).

    >>> rules = IgnoreRules.from_patterns(["tag", "/search", "example.com/private"])
    >>> rules.match("https://x.com/blog/tag"), rules.match("https://x.com/tags")
    ('tag', None)
    >>> rules.match("http://www.example.com/private/1"), rules.match("/search?q=a")
    ('example.com/private', '/search')
    """

    patterns: tuple[str, ...]
    #: ``"segments"`` (the rules above) or ``"substring"`` (:data:`IGNORE_MATCHES`)
    how: str = "segments"
    _rules: tuple[_Rule, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Validate and compile the patterns (``ValueError`` on a bad pattern)."""
        if isinstance(self.patterns, str):
            raise TypeError("IgnoreRules.patterns must be a tuple of strings, not a string")
        if self.how not in IGNORE_MATCHES:
            raise ValueError(
                f"ignore_match must be one of {', '.join(IGNORE_MATCHES)}, got {self.how!r}"
            )
        if self.how == "substring":
            for pattern in self.patterns:
                if not isinstance(pattern, str) or not pattern.strip():
                    raise ValueError(
                        f"ignore pattern must be a non-empty string, got {pattern!r}: an "
                        "empty substring would match every URL"
                    )
            object.__setattr__(self, "patterns", tuple(self.patterns))
            object.__setattr__(self, "_rules", ())
            return
        rules = tuple(_compile_pattern(pattern) for pattern in self.patterns)
        object.__setattr__(self, "patterns", tuple(rule.pattern for rule in rules))
        object.__setattr__(self, "_rules", rules)

    @classmethod
    def from_patterns(cls, patterns: Iterable[str], how: str = "segments") -> IgnoreRules:
        """Build rules from ``urls_to_ignore`` patterns (surrounding whitespace stripped,
        except from substrings, which are matched as given).

        >>> IgnoreRules.from_patterns([" tag ", "*.pdf"]).patterns
        ('tag', '*.pdf')
        """
        if isinstance(patterns, str):
            raise TypeError(
                f"urls_to_ignore must be a list of patterns, not the string {patterns!r}"
            )
        return cls(tuple(patterns), how)

    def match(self, url: str) -> str | None:
        """Return the first pattern that matches ``url``, else ``None``.

        With ``how="substring"`` a pattern matches when it occurs anywhere in the URL as
        given or in its canonical form, as the ``Deduplicator`` webdedup follows matches its
        ``urls_to_ignore`` (``/register`` matches ``/register.php``, ``/tag/`` matches
        ``/blog/tag/x``, ``tag`` matches ``/vintage``).

        >>> IgnoreRules.from_patterns(["*.pdf"]).match("https://a.com/files/x.pdf")
        '*.pdf'
        >>> IgnoreRules.from_patterns(["/register"], "substring").match("http://a.com/register.php")
        '/register'
        """
        if self.how == "substring":
            return self._match_substring(url)
        if not self._rules:
            return None
        canonical = canonicalize_url(url) if isinstance(url, str) else None
        host: str | None
        if canonical is not None:
            host = _canonical_host(canonical)
            path = canonical[len("https://") :].partition("/")[2]
            path = "/" + path.partition("?")[0].partition("#")[0]
        else:
            host = None
            text = _clean(url) if isinstance(url, str) else ""
            try:
                path = urlsplit(text).path
            except ValueError:
                path = text.partition("#")[0].partition("?")[0]
        segments = _path_segments(path)
        absolute = path.startswith("/")
        for rule in self._rules:
            if rule.matches(host, segments, absolute):
                return rule.pattern
        return None

    def _match_substring(self, url: str) -> str | None:
        if not self.patterns or not isinstance(url, str):
            return None
        canonical = canonicalize_url(url) or ""
        for pattern in self.patterns:
            if pattern in url or pattern in canonical:
                return pattern
        return None


def url_hash(url: str | None) -> str:
    """A short hash of the raw URL, stored per page id to detect renumbered rowids."""
    return hashlib.sha1((url or "").encode("utf-8", "surrogatepass")).hexdigest()[:16]
