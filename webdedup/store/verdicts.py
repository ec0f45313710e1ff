"""Reviewer verdicts (``_webdedup_verdicts``): what ``webdedup review`` records, what runs honour.

Three kinds (``sql/migrations/0005_verdicts.sql``, ``0010_verdict_labels.sql``):

- ``duplicate``: page ``page_a`` is a duplicate of page ``page_b`` (the reviewer accepts the
  run's decision; no run changes anything for it, it is a label for ``webdedup calibrate``);
- ``not_duplicate``: page ``page_a`` is not a duplicate of page ``page_b``: a cannot-link
  pair, never in one near-duplicate group again;
- ``canonical``: page ``page_a`` is its group's canonical (``page_b``: the one it replaced),
  as long as it is in the group and not deleted.

A verdict keeps the pair's ``score`` when it was given (the run's verified similarity of the
two pages), so that it stays a labelled pair after the next run has split them.

Writing a verdict (or withdrawing one) queues both pages in ``_webdedup_changes`` (a trigger
of the migration), so the next incremental run re-opens the region around them.

Example::

    >>> from webdedup.store import connect, migrate
    >>> conn = connect(":memory:", must_exist=False)
    >>> _ = migrate(conn)
    >>> add_verdict(conn, "not_duplicate", 7, 3)
    1
    >>> cannot_links(read_verdicts(conn))
    {(3, 7)}
    >>> Verdicts.read(conn).cannot_link
    frozenset({(3, 7)})
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..errors import ConfigError
from .sqlfiles import quote
from .tables import table_columns, table_exists

TABLE = "_webdedup_verdicts"
KINDS = ("not_duplicate", "canonical", "duplicate")
#: The kinds that judge a pair of pages (either way round).
PAIR_KINDS = ("not_duplicate", "duplicate")


@dataclass(frozen=True)
class Verdict:
    """One row of ``_webdedup_verdicts``."""

    id: int
    kind: str
    page_a: int
    page_b: int | None
    created_at: str
    note: str | None = None
    score: float | None = None

    def describe(self) -> str:
        """One human line, e.g. for ``explain``."""
        when = self.created_at.replace("T", " ").replace("+00:00", " UTC")
        if self.kind == "not_duplicate":
            what = f"#{self.page_a} is not a duplicate of #{self.page_b}"
        elif self.kind == "duplicate":
            what = f"#{self.page_a} is a duplicate of #{self.page_b}"
        else:
            what = f"#{self.page_a} is its group's canonical"
            if self.page_b is not None:
                what += f" (instead of #{self.page_b})"
        return f"reviewer verdict {self.id} ({when}): {what}"


def read_verdicts(conn: sqlite3.Connection, pages: Iterable[int] | None = None) -> list[Verdict]:
    """Every verdict, oldest first (those naming one of ``pages`` when given); none when the
    database predates verdicts."""
    if not table_exists(conn, TABLE):
        return []
    score = "score" if "score" in table_columns(conn, TABLE) else "NULL"  # before schema 10
    query = f"SELECT id, kind, page_a, page_b, created_at, note, {score} FROM {TABLE} ORDER BY id"
    rows = [Verdict(*r) for r in conn.execute(query)]
    if pages is None:
        return rows
    wanted = set(pages)
    return [v for v in rows if v.page_a in wanted or v.page_b in wanted]


def add_verdict(
    conn: sqlite3.Connection,
    kind: str,
    page_a: int,
    page_b: int | None = None,
    note: str | None = None,
    score: float | None = None,
) -> int:
    """Record a verdict (call inside a write transaction, after ``migrate``); returns its id.

    The same verdict given again (a form posted twice; for ``not_duplicate`` and
    ``duplicate`` the same pair either way round) is stored once: the id of the one already
    stored is returned. ``score``: the pair's verified similarity, when known.
    """
    if kind not in KINDS:
        raise ConfigError(f"unknown verdict {kind!r}; choose from: {', '.join(KINDS)}")
    if kind in PAIR_KINDS and (page_b is None or page_b == page_a):
        raise ConfigError(f"a {kind!r} verdict names two different pages")
    b = None if page_b is None else int(page_b)
    pairs: list[tuple[int | None, int | None]] = [(int(page_a), b)]
    if kind in PAIR_KINDS:
        pairs.append((b, int(page_a)))
    for a_, b_ in pairs:
        same = conn.execute(
            f"SELECT id FROM {TABLE} WHERE kind = ? AND page_a = ? AND page_b IS ? "
            "ORDER BY id LIMIT 1",
            (kind, a_, b_),
        ).fetchone()
        if same is not None:
            return int(same[0])
    if kind in PAIR_KINDS:  # the reviewer changed their mind: the last word on a pair counts
        other = PAIR_KINDS[1 - PAIR_KINDS.index(kind)]
        conn.execute(
            f"DELETE FROM {TABLE} WHERE kind = ? AND ((page_a = ? AND page_b = ?) "
            "OR (page_a = ? AND page_b = ?))",
            (other, int(page_a), b, b, int(page_a)),
        )
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    cur = conn.execute(
        f"INSERT INTO {TABLE} (kind, page_a, page_b, created_at, note, score) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (kind, int(page_a), b, now, note, score),
    )
    return int(cur.lastrowid or 0)


def missing_pages(
    conn: sqlite3.Connection, table: str, rowid: str, pages: Iterable[int | None]
) -> list[int]:
    """The ids among ``pages`` (None skipped) that no row of ``table`` has (``rowid``: the
    name of its row id), in the order given: a verdict on them would name nothing."""
    query = f"SELECT 1 FROM {quote(table)} WHERE {quote(rowid)} = ?"
    return [
        int(p) for p in pages if p is not None and conn.execute(query, (int(p),)).fetchone() is None
    ]


def pair_score(
    conn: sqlite3.Connection, table: str, rowid: str, a: int, b: int | None
) -> float | None:
    """The run's verified similarity of two pages, when one is the other's canonical and
    joined it as a near-duplicate (its ``dup_score``); else None."""
    if b is None:
        return None
    query = (
        f"SELECT dup_score FROM {quote(table)} WHERE {quote(rowid)} = ? AND canonical_id = ? "
        "AND dup_kind = 'near'"
    )
    for member, canonical in ((a, b), (b, a)):
        row = conn.execute(query, (int(member), int(canonical))).fetchone()
        if row is not None and row[0] is not None:
            return float(row[0])
    return None


def verdict_pages(conn: sqlite3.Connection, verdict_id: int) -> tuple[int, int | None] | None:
    """The two pages a verdict names (None when there is no such verdict)."""
    if not table_exists(conn, TABLE):
        return None
    row = conn.execute(
        f"SELECT page_a, page_b FROM {TABLE} WHERE id = ?", (int(verdict_id),)
    ).fetchone()
    return (int(row[0]), None if row[1] is None else int(row[1])) if row else None


def withdraw_verdict(conn: sqlite3.Connection, verdict_id: int) -> bool:
    """Delete a verdict (inside a write transaction); False when there was none."""
    if not table_exists(conn, TABLE):
        return False
    cur = conn.execute(f"DELETE FROM {TABLE} WHERE id = ?", (int(verdict_id),))
    return cur.rowcount > 0


def cannot_links(verdicts: Iterable[Verdict]) -> set[tuple[int, int]]:
    """The ``not_duplicate`` pairs, each as ``(smaller id, larger id)`` (pure)."""
    out = set()
    for v in verdicts:
        if v.kind == "not_duplicate" and v.page_b is not None and v.page_a != v.page_b:
            out.add((min(v.page_a, v.page_b), max(v.page_a, v.page_b)))
    return out


def pin_ranks(verdicts: Iterable[Verdict]) -> dict[int, int]:
    """``{page id: rank}`` of the pages chosen as canonical, the latest verdict first (rank 0).

    When two chosen pages end up in one group, the later choice wins (pure).

    >>> v = [Verdict(1, "canonical", 5, 2, "t"), Verdict(2, "canonical", 9, 5, "t")]
    >>> pin_ranks(v)
    {9: 0, 5: 1}
    """
    out: dict[int, int] = {}
    for v in sorted(verdicts, key=lambda v: -v.id):
        if v.kind == "canonical" and v.page_a not in out:
            out[v.page_a] = len(out)
    return out


@dataclass(frozen=True)
class Verdicts:
    """What a run honours of the reviewers' verdicts, read once: the pages chosen as
    canonical by rank (:func:`pin_ranks`) and the page pairs that are not duplicates
    (:func:`cannot_links`). The elections put the chosen pages first; phase 4 keeps the
    pairs apart. ``webdedup daft`` reads the same value from its Parquet input.

    >>> chosen, apart = Verdict(1, "canonical", 5, 2, "t"), Verdict(2, "not_duplicate", 9, 4, "t")
    >>> v = Verdicts.of([chosen, apart])
    >>> dict(v.pins), v.cannot_link
    ({5: 0}, frozenset({(4, 9)}))
    """

    #: page chosen as canonical -> rank (0: the latest choice)
    pins: Mapping[int, int] = field(default_factory=dict)
    #: the ``not_duplicate`` pairs, each as (smaller id, larger id)
    cannot_link: frozenset[tuple[int, int]] = frozenset()

    @classmethod
    def of(cls, verdicts: Iterable[Verdict]) -> Verdicts:
        """The value of these verdicts (pure)."""
        verdicts = list(verdicts)
        return cls(pin_ranks(verdicts), frozenset(cannot_links(verdicts)))

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> Verdicts:
        """The verdicts stored in ``conn`` (none when the database predates them)."""
        return cls.of(read_verdicts(conn))

    def as_json(self) -> dict[str, Any]:
        """As ``webdedup daft``'s manifest records them."""
        return {
            "pins": sorted([pid, rank] for pid, rank in self.pins.items()),
            "cannot_link": sorted([a, b] for a, b in self.cannot_link),
        }
