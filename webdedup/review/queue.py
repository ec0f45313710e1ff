"""The reviewer's queue: the pairs (a member and its canonical) that need a person, the most
uncertain first, read from the review app's TEMP index (``sql/review/queue_*.sql``).

The queue is built once a run, beside the index of the groups: first the near-duplicate
members whose group's scores lie closest to the run's threshold, then one pair a group for
the groups without a near member (same URL or same text: only the canonical is to judge).
A pair leaves the queue once a verdict decides it (``duplicate``, ``not_duplicate`` on the
pair, or the member chosen as canonical); finding the next pair and counting what is left
cost as much as the verdicts given, not the size of the queue.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone

from ..store import run_script, sql, table_exists
from ..store.verdicts import TABLE
from ..words import plural

#: What the queue's SQL reads as the verdicts when the database has none yet.
NO_VERDICTS = "(SELECT NULL AS kind, NULL AS page_a, NULL AS page_b, NULL AS created_at WHERE 0)"


@dataclass(frozen=True)
class Item:
    """One pair of the queue."""

    pos: int
    member: int
    canonical: int
    group: int
    kind: str | None
    score: float | None


@dataclass(frozen=True)
class Progress:
    """How much of the queue is left, and how much was decided today (UTC)."""

    pairs: int
    pairs_decided: int
    groups: int
    groups_decided: int
    today: int

    def line(self) -> str:
        """E.g. ``"7 groups left (9 pairs) · 3 decided today"``."""
        left = self.groups - self.groups_decided
        pairs = self.pairs - self.pairs_decided
        return (
            f"{plural(left, 'group')} left ({plural(pairs, 'pair')}) · "
            f"{self.today:,} decided today"
        )


def build_queue(conn: sqlite3.Connection, threshold: float, score: str = "a.dup_score") -> None:
    """The queue of the groups in ``temp.review_groups`` (after ``groups_build.sql``), from
    webdedup's state (``score``: what a member's score is read as, ``a`` its
    ``_webdedup_groups`` row)."""
    run_script(conn, "review/queue_build", {"threshold": float(threshold)}, score=score)


def _verdicts(conn: sqlite3.Connection) -> str:
    return f"main.{TABLE}" if table_exists(conn, TABLE) else NO_VERDICTS


def progress(conn: sqlite3.Connection, now: datetime | None = None) -> Progress:
    """The queue's counts (``now``: the time whose UTC day is "today")."""
    verdicts = _verdicts(conn)
    decided = sql("review/queue_decided", verdicts=verdicts)
    today = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).date().isoformat()
    row = conn.execute(
        sql("review/queue_counts", verdicts=verdicts, decided=decided), {"today": today}
    ).fetchone()
    return Progress(*(int(x or 0) for x in row))


def next_pos(conn: sqlite3.Connection, after: int = 0) -> int | None:
    """The first undecided pair after position ``after``, else the first undecided one at all
    (the queue wraps round); None when every pair is decided."""
    query = sql("review/queue_next", verdicts=_verdicts(conn))
    for start in (after, 0):
        row = conn.execute(query, {"after": start}).fetchone()
        if row is not None:
            return int(row[0])
    return None


def item_at(conn: sqlite3.Connection, pos: int) -> Item | None:
    row = conn.execute(
        "SELECT pos, id, canonical, dup_group, kind, score FROM temp.review_queue WHERE pos = ?",
        (pos,),
    ).fetchone()
    return Item(*row) if row else None


def pos_of(conn: sqlite3.Connection, a: int, b: int | None) -> int | None:
    """The position of the pair a verdict on ``a`` (and ``b``) names, either way round."""
    row = conn.execute(
        "SELECT pos FROM temp.review_queue WHERE (id = :a AND (canonical = :b OR :b IS NULL)) "
        "OR (id = :b AND canonical = :a) ORDER BY pos LIMIT 1",
        {"a": a, "b": b},
    ).fetchone()
    return int(row[0]) if row else None
