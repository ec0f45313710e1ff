"""URLs: canonicalization (:mod:`.canonical`), Wayback Machine captures (:mod:`.wayback`) and
``urls_to_ignore`` rules (:mod:`.ignore`); pure functions, no I/O, no network.

Example:
    >>> canonicalize_url("HTTP://www.Example.COM:80/a/./b/?utm_source=x&b=2&a=1#top")
    'https://example.com/a/b?a=1&b=2'
"""

from .canonical import (
    SESSION_PARAMS,
    TRACKING_PARAM_PREFIXES,
    TRACKING_PARAMS,
    canonical_host,
    canonicalize_url,
    is_https,
    url_hash,
    url_host,
)
from .ignore import IGNORE_MATCHES, IgnoreRules
from .wayback import unwrap_archive_url

__all__ = [
    "IGNORE_MATCHES",
    "SESSION_PARAMS",
    "TRACKING_PARAMS",
    "TRACKING_PARAM_PREFIXES",
    "IgnoreRules",
    "canonical_host",
    "canonicalize_url",
    "is_https",
    "unwrap_archive_url",
    "url_hash",
    "url_host",
]
