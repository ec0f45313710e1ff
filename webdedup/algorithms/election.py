"""The election order: which page of a group becomes its canonical.

The order is a list of keys from a fixed vocabulary. Each key is data (:class:`ElectionKey`:
a column of ``_webdedup_prepared``, its direction, whether it may be NULL), and every
ordering is built from it: the SQL ``ORDER BY`` fragment the elections use, the Python sort
key that ``run_on_list``'s clustering and ``explain`` use, and the Daft window of
``webdedup daft`` (:mod:`webdedup.distributed`). ``lower_id`` is always the last tie-break,
so every election has exactly one winner.

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
    """One rule of the election order, as data: a column of ``_webdedup_prepared``, its
    direction and whether it may be NULL (a missing value then comes last, whatever the
    direction). The SQL ``ORDER BY`` fragment (:attr:`sql`), the Python sort key
    (:meth:`key`) and the Daft ordering (``distributed``) are all built from these fields.

    Example::

        >>> k = ElectionKey("newer_crawled", "newest first", "crawled_ts", descending=True,
        ...                 nullable=True)
        >>> k.sql
        'crawled_ts IS NULL, crawled_ts DESC'
        >>> class Page:
        ...     crawled_ts = None
        >>> k.key(Page())
        (True, -0.0)
    """

    name: str
    description: str
    column: str
    descending: bool = False
    #: the column may be NULL; NULLs then come last in both directions
    nullable: bool = False

    @property
    def sql(self) -> str:
        """This key's ``ORDER BY`` fragment (``x IS NULL, x DESC`` puts NULLs last)."""
        order = f"{self.column} {'DESC' if self.descending else 'ASC'}"
        return f"{self.column} IS NULL, {order}" if self.nullable else order

    def key(self, row: Any) -> tuple[Any, ...]:
        """The Python sort key of ``row`` (ascending order, as :attr:`sql` sorts)."""
        value = getattr(row, self.column)
        if self.nullable:
            value, missing = (value or 0.0), value is None
            return (missing, -value if self.descending else value)
        return (-value if self.descending else value,)


ELECTION_KEYS: dict[str, ElectionKey] = {
    k.name: k
    for k in (
        ElectionKey("internal", "pages not in category 'external' first", "is_external"),
        ElectionKey(
            "newer_datetime", "newer page date first (missing dates last)", "dt",
            descending=True, nullable=True,
        ),
        ElectionKey(
            "older_datetime", "older page date first (missing dates last)", "dt", nullable=True
        ),
        ElectionKey(
            "newer_crawled", "more recently crawled first (missing last)", "crawled_ts",
            descending=True, nullable=True,
        ),
        ElectionKey(
            "older_crawled", "first crawled first (missing last)", "crawled_ts", nullable=True
        ),
        ElectionKey("longer_text", "longer normalized text first", "text_len", descending=True),
        ElectionKey("https", "https URLs before http ones", "is_https", descending=True),
        ElectionKey("shorter_url", "shorter original URL first", "url_len"),
        ElectionKey("lower_id", "lower page id first", "id"),
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


def sort_key(keys: Iterable[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The Python sort key of the order ``keys``: ``sorted(rows, key=sort_key(keys))`` puts
    the rows in the order ``ORDER BY order_by_sql(keys)`` does."""
    order = [ELECTION_KEYS[k] for k in validate_election(keys)]
    return lambda row: tuple(part for k in order for part in k.key(row))


def explain(keys: Iterable[str], row: Electable) -> dict[str, Any]:
    """The values a row is elected on, by key name (for ``explain`` and reports)."""
    return {k: getattr(row, ELECTION_KEYS[k].column) for k in validate_election(keys)}
