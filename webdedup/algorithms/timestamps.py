"""Parse the many date formats crawlers write into UTC epoch seconds (for elections).

Example::

    >>> parse_timestamp("2024-01-02T00:00:00Z")
    1704153600.0
    >>> parse_timestamp("20080430204825") == parse_timestamp("2008-04-30 20:48:25")
    True
    >>> parse_timestamp("not a date") is None
    True
"""

from __future__ import annotations

import email.utils
import math
import re
from datetime import datetime, timezone

_DIGITS14 = re.compile(r"^\d{8}(\d{2}(\d{2}(\d{2})?)?)?$")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def _to_epoch(dt: datetime) -> float:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def parse_timestamp(value: object) -> float | None:
    """UTC epoch seconds for ISO 8601, RFC 2822, WARC ``YYYYMMDDhhmmss`` or epoch numbers.

    Naive times are taken as UTC. Anything unparseable gives ``None`` (never an exception).
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        f = float(value)
        if not math.isfinite(f):
            return None
        return f / 1000.0 if f > 1e11 else f  # milliseconds since the epoch
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    s = value.strip()
    if not s:
        return None
    if len(s) > 10 and s[4] == "-" and s[:4].isdigit():  # ISO 8601 (what most crawlers write)
        iso = s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s
        try:
            return _to_epoch(datetime.fromisoformat(iso))
        except (ValueError, OverflowError, OSError):
            pass  # the other formats below, as for any other string
    try:
        if _DIGITS14.match(s):
            fmt = "%Y%m%d%H%M%S"[: {8: 6, 10: 8, 12: 10, 14: 12}[len(s)]]
            try:
                return _to_epoch(datetime.strptime(s, fmt))
            except ValueError:
                pass  # e.g. a 10-digit epoch: read as a number below
        if _NUMBER.fullmatch(s):
            return parse_timestamp(float(s))
        iso = s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s
        try:
            return _to_epoch(datetime.fromisoformat(iso))
        except ValueError:
            pass
        try:
            return _to_epoch(email.utils.parsedate_to_datetime(s))
        except (TypeError, ValueError, IndexError):
            return None
    except (ValueError, OverflowError, OSError, KeyError):
        return None
