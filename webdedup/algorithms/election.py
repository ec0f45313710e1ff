"""The election order: which page of a group becomes its canonical.

The order is a list of keys from a fixed vocabulary. Each key has an SQL ``ORDER BY`` fragment
(over the columns of ``_webdedup_prepared``), which the elections use, and an equivalent
Python key, which ``explain`` uses to say on which key one page beats another. ``lower_id``
is always the last tie-break, so every election has exactly one winner.

Example::

    >>> order_by_sql(("internal", "longer_text"))
    'is_external ASC, text_len DESC, id ASC'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol


class Electable(Protocol):
    """The prepared attributes an election looks at (columns of ``_webdedup_prepared``)."""

    id: int
    is_external: int
    dt: float | None
    crawled_ts: float | None
    text_len: int
    is_https: int
    url_len: int


@dataclass(frozen=True)
class ElectionKey:
    name: str
    description: str
    sql: str
    key: Callable[[Any], tuple[Any, ...]]


def _newest(value: float | None) -> tuple[bool, float]:
    # SQL: "x IS NULL, x DESC" puts NULLs last and larger values first.
    return (value is None, -(value or 0.0))


def _oldest(value: float | None) -> tuple[bool, float]:
    return (value is None, value or 0.0)


ELECTION_KEYS: dict[str, ElectionKey] = {
    k.name: k
    for k in (
        ElectionKey(
            "internal",
            "pages not in category 'external' first",
            "is_external ASC",
            lambda r: (r.is_external,),
        ),
        ElectionKey(
            "newer_datetime",
            "newer page date first (missing dates last)",
            "dt IS NULL, dt DESC",
            lambda r: _newest(r.dt),
        ),
        ElectionKey(
            "older_datetime",
            "older page date first (missing dates last)",
            "dt IS NULL, dt ASC",
            lambda r: _oldest(r.dt),
        ),
        ElectionKey(
            "newer_crawled",
            "more recently crawled first (missing last)",
            "crawled_ts IS NULL, crawled_ts DESC",
            lambda r: _newest(r.crawled_ts),
        ),
        ElectionKey(
            "older_crawled",
            "first crawled first (missing last)",
            "crawled_ts IS NULL, crawled_ts ASC",
            lambda r: _oldest(r.crawled_ts),
        ),
        ElectionKey(
            "longer_text",
            "longer normalized text first",
            "text_len DESC",
            lambda r: (-r.text_len,),
        ),
        ElectionKey(
            "https", "https URLs before http ones", "is_https DESC", lambda r: (-r.is_https,)
        ),
        ElectionKey(
            "shorter_url", "shorter original URL first", "url_len ASC", lambda r: (r.url_len,)
        ),
        ElectionKey("lower_id", "lower page id first", "id ASC", lambda r: (r.id,)),
    )
}

DEFAULT_ELECTION: tuple[str, ...] = (
    "internal",
    "newer_datetime",
    "newer_crawled",
    "longer_text",
    "https",
    "shorter_url",
    "lower_id",
)


def validate_election(keys: Iterable[str]) -> tuple[str, ...]:
    """Check the names, drop repeats, and make sure ``lower_id`` ends the order.

    Raises ``ConfigError`` (a ``ValueError``) naming the valid keys for an unknown one.
    """
    from ..errors import ConfigError

    if isinstance(keys, str):
        keys = [k.strip() for k in keys.split(",") if k.strip()]
    out: list[str] = []
    for name in keys:
        if name not in ELECTION_KEYS:
            raise ConfigError(
                f"unknown election key {name!r}; choose from: {', '.join(ELECTION_KEYS)}"
            )
        if name not in out:
            out.append(name)
    if "lower_id" in out:
        out.remove("lower_id")
    out.append("lower_id")
    return tuple(out)


def order_by_sql(keys: Iterable[str]) -> str:
    """The ``ORDER BY`` body for ``keys`` (already validated names only: no user text)."""
    return ", ".join(ELECTION_KEYS[k].sql for k in validate_election(keys))


def explain(keys: Iterable[str], row: Electable) -> dict[str, Any]:
    """The values a row is elected on, by key name (for ``explain`` and reports)."""
    attrs = {
        "internal": "is_external",
        "newer_datetime": "dt",
        "older_datetime": "dt",
        "newer_crawled": "crawled_ts",
        "older_crawled": "crawled_ts",
        "longer_text": "text_len",
        "https": "is_https",
        "shorter_url": "url_len",
        "lower_id": "id",
    }
    return {k: getattr(row, attrs[k]) for k in validate_election(keys)}
