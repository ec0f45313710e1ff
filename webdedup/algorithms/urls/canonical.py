"""URL canonicalization: the canonical key of a page's URL.

Everything in this module is a pure function of its arguments: no I/O, no network.  Two
functions memoize their answers in module-level caches that never change a result: the
pattern of characters to re-encode per safe set (:func:`_changes`, a handful) and the last
4,096 hosts normalized (:func:`normalize_host`: a crawl has far fewer hosts than pages).
Only the standard library is used.

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

import functools
import hashlib
import ipaddress
import re
import string
import unicodedata
from urllib.parse import unquote, urlsplit

from .parts import SCHEMES, clean
from .wayback import MAX_UNWRAP, unwrap_archive_url, unwrap_once

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
_IDN_DOTS = str.maketrans("\u3002\uff0e\uff61", "...")


# --------------------------------------------------------------------------- helpers


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
def normalize_host(host: str) -> str | None:
    """Canonical form of a host (no port, no userinfo), or ``None`` when invalid.

    >>> normalize_host("WWW.B\\u00fccher.Example.")
    'xn--bcher-kva.example'
    >>> normalize_host("[2001:DB8::0:1]")
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
    text = clean(url)
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    if parts.scheme not in SCHEMES or not parts.netloc:
        return None
    authority = _split_authority(parts.netloc)
    if authority is None:
        return None
    host = normalize_host(authority[0])
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


#: A URL whose canonical form needs no rule but the host's (4) and the query's (7): a
#: lower-case ``http``/``https`` scheme, a host of lower-case letters, digits, dots, hyphens
#: and underscores (no user, no port), a path of characters kept as they are (no ``%``, no
#: ``;`` session parameter), an ASCII query, and no ``#!`` fragment; nothing to clean, no
#: character outside printable ASCII. :func:`_plain` takes those (most of a crawl's URLs)
#: without ``urlsplit`` and the Wayback and clean-up passes, and leaves every other URL to
#: the rules in full (``tests/algorithms/test_urls.py`` checks both give the same key).
_PLAIN = re.compile(
    r"(?:https?)://([a-z0-9._-]+)(/[A-Za-z0-9._~!$&'()*+,=:@/-]*)?"
    r"(?:\?([!-\"$-~]*))?(?:#(?:[\"-~][!-~]*)?)?"
)


def _plain(url: str) -> str | None:
    """The canonical form of ``url`` when it is a plain URL (:data:`_PLAIN`) whose host is no
    Wayback Machine's and whose path has no dot segment, else ``None`` (then the rules apply
    in full: that ``None`` does not mean the URL has no canonical form).

    >>> _plain("http://www.example.com/a/b/?utm_source=x&b=2&a=1#top")
    'https://example.com/a/b?a=1&b=2'
    >>> _plain("http://example.com/a/../b") is None, _plain("HTTP://example.com/") is None
    (True, True)
    """
    match = _PLAIN.fullmatch(url)
    if match is None:
        return None
    raw_host, path, query = match.groups()
    if "archive.org" in raw_host or (path is not None and "/." in path):
        return None  # a capture to unwrap, or a path with a dot segment maybe
    host = normalize_host(raw_host)
    if host is None:
        return None
    path = (path or "").rstrip("/") or "/"
    query = _normalize_query(query) if query else ""
    return "https://" + host + path + ("?" + query if query else "")


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
    plain = _plain(url)
    if plain is not None:
        return _drop_query(plain) if discard_params else plain
    return _by_the_rules(url, discard_params)


def _by_the_rules(url: str, discard_params: bool = False) -> str | None:
    """:func:`canonicalize_url` with every rule applied in turn (no :func:`_plain` path)."""
    current = url
    for _ in range(MAX_UNWRAP):
        canonical = _canonicalize_once(unwrap_archive_url(current))
        if canonical is None:
            return None
        if unwrap_once(canonical) is None:
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
    return clean(url)[:8].lower() == "https://"


def url_hash(url: str | None) -> str:
    """A short hash of the raw URL, stored per page id to detect renumbered rowids."""
    return hashlib.sha1((url or "").encode("utf-8", "surrogatepass")).hexdigest()[:16]
