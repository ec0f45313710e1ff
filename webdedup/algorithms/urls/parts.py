"""What every URL rule of :mod:`webdedup.algorithms.urls` starts from: the schemes of a web
page and the clean-up of a raw URL string (pure)."""

from __future__ import annotations

#: The schemes of a web page URL (both give the same canonical key).
SCHEMES = ("http", "https")
_REMOVED_CHARS = str.maketrans("", "", "\t\n\r")


def clean(url: str) -> str:
    """Strip surrounding whitespace and drop tabs/line breaks (as browsers do).

    >>> clean("  http://a.com/x\\ny ")
    'http://a.com/xy'
    """
    url = url.strip()
    if "\t" in url or "\n" in url or "\r" in url:  # str.translate is per character: rare
        url = url.translate(_REMOVED_CHARS)
    return url
