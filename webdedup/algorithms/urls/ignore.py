"""``urls_to_ignore``: which URLs a run leaves out, as path-segment rules (or substrings).

Pure: no I/O, no network.  See :class:`IgnoreRules` for the rules.

Example:
    >>> IgnoreRules.from_patterns(["/search"]).match("https://a.com/search/x?q=1")
    '/search'
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from .canonical import canonical_host, canonicalize_url, normalize_host
from .parts import SCHEMES, clean

_GLOB_CHARS = frozenset("*?[")
#: How ``urls_to_ignore`` patterns match a URL: webdedup's path-segment rules, or as
#: substrings of the URL (the ``Deduplicator`` webdedup follows; :class:`IgnoreRules`).
IGNORE_MATCHES = ("segments", "substring")


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
    has_scheme = bool(sep) and scheme.lower() in SCHEMES
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
            normalized = normalize_host(first)
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
            host = canonical_host(canonical)
            path = canonical[len("https://") :].partition("/")[2]
            path = "/" + path.partition("?")[0].partition("#")[0]
        else:
            host = None
            text = clean(url) if isinstance(url, str) else ""
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
