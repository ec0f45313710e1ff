"""``webdedup stats``: what the last runs left in a crawl database."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..incremental.plan import pages_now
from ..store import connect, quote, schema_version, sql, table_exists
from ..store.counts import KINDS, Counts, count, groups_subquery
from ..store.schema import GROUP_TABLES, STATE_TABLES
from ..store.state import stored_columns
from ..words import plural

#: The queue of changes the next run takes (counted by every ``stats``).
CHANGES_TABLE = "_webdedup_changes"


@dataclass
class Stats:
    """Counts by kind, group-size histogram, last runs, state size and pending changes.

    ``counts`` are the groups and duplicates of :mod:`webdedup.store.counts` (the numbers
    ``db`` and ``export`` print); ``kinds`` counts pages by their ``dup_kind`` (NULL as
    ``canonical``, unique pages included); ``group_sizes`` holds groups only (2+ pages).
    ``state_rows`` and ``state_bytes``: webdedup's own tables, counted only when asked
    (:func:`collect_stats`'s ``state``; else empty and None).
    """

    pages: int
    kinds: dict[str, int]
    counts: Counts
    group_sizes: list[tuple[str, int, int]]
    runs: list[dict[str, Any]]
    state_rows: dict[str, int]
    state_bytes: int | None
    pending_changes: int
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "kinds": self.kinds,
            "counts": self.counts.as_dict(),
            "group_sizes": [{"size": b, "groups": g, "pages": p} for b, g, p in self.group_sizes],
            "runs": self.runs,
            "state_rows": self.state_rows,
            "state_bytes": self.state_bytes,
            "pending_changes": self.pending_changes,
        }


def _state_bytes(conn: sqlite3.Connection) -> int | None:
    """Bytes of webdedup's tables and indexes (None when SQLite lacks the dbstat table)."""
    names = [r[0] for r in conn.execute(sql("stats/state_objects"))]
    total = 0
    try:
        for name in names:
            row = conn.execute(sql("stats/state_bytes"), {"name": name}).fetchone()
            total += int(row[0] or 0) if row else 0
    except sqlite3.OperationalError:
        return None
    return total


def collect_stats(
    db: str | Path | sqlite3.Connection, runs: int = 5, state: bool = False
) -> Stats:
    """Gather :class:`Stats` (read-only); with ``state``, the rows and bytes of webdedup's
    own tables too: a pass over each of them, which took 13 of the 19 s at ten million
    pages (docs/benchmarks.md), so only when asked.

    Example::

        >>> collect_stats("crawl.sqlite").counts.line()  # doctest: +SKIP
        '104 pages: 37 groups (35 URL, 2 exact, 0 near) holding 42 duplicates ...'
    """
    conn = connect(db, write=False)
    try:
        if schema_version(conn) == 0 or not table_exists(conn, "_webdedup_runs"):
            raise InputError("no webdedup run on this database yet: run 'webdedup db DB' first")
        if not all(table_exists(conn, t) for t in GROUP_TABLES):
            raise InputError(
                f"this database was annotated by an older webdedup (state schema "
                f"{schema_version(conn)}): run 'webdedup db DB' once to upgrade it"
            )
        table = stored_columns(conn).get("table", "pages")
        pages = quote(table)
        kinds = {k: n for k, n in conn.execute(sql("stats/kinds", pages=pages)) if n > 0}
        found = count(conn, table, pages=pages_now(conn, table))
        sizes = [
            tuple(r)
            for r in conn.execute(sql("stats/group_sizes", groups=groups_subquery()))
        ]
        cols = (
            "id",
            "started_at",
            "mode",
            "method",
            "pages",
            "processed",
            "wall_seconds",
            "status",
        )
        last = [
            dict(zip(cols, r, strict=True))
            for r in conn.execute(sql("stats/runs"), {"limit": runs})
        ]
        rows = {
            name: conn.execute(f"SELECT count(*) FROM {quote(name)}").fetchone()[0]
            for name in (STATE_TABLES if state else (CHANGES_TABLE,))
            if name != "_webdedup_meta"
            if table_exists(conn, name)
        }
        return Stats(
            pages=sum(kinds.values()),
            kinds=kinds,
            counts=found,
            group_sizes=sizes,
            runs=last,
            state_rows=rows if state else {},
            state_bytes=_state_bytes(conn) if state else None,
            pending_changes=rows.get(CHANGES_TABLE, 0),
        )
    finally:
        if not isinstance(db, sqlite3.Connection):
            conn.close()


def format_stats(s: Stats) -> str:
    """The human-readable report of ``webdedup stats``."""
    c = s.counts
    lines = [plural(c.pages, "page")]
    lines.append(f"  {'groups':<18} {c.groups:>10,}  (2+ pages: a canonical and its duplicates)")
    lines += [f"    {k + ' groups':<16} {getattr(c, k + '_groups'):>10,}" for k in KINDS]
    lines.append(f"  {'duplicates':<18} {c.duplicates:>10,}  (pages in a group, not canonical)")
    lines += [f"    {k + ' duplicates':<16} {getattr(c, k + '_duplicates'):>10,}" for k in KINDS]
    lines.append(f"  {'unique':<18} {c.unique:>10,}  (pages alone in their group)")
    lines.append(f"  {'ignored':<18} {c.ignored:>10,}  (urls_to_ignore, n_min)")
    lines.append(
        f"  {'thin':<18} {c.thin:>10,}  (no content of their own: never near, never pruned; "
        "among unique and canonical)"
    )
    if c.not_annotated:
        lines.append(f"  {'not annotated':<18} {c.not_annotated:>10,}  (added since the last run)")
    lines.append("a group's kind is its loosest link: near, else exact, else url")
    lines.append("group sizes:")
    lines.append(f"  {'size':<8} {'groups':>10} {'pages':>10}")
    lines += [f"  {b:<8} {g:>10,} {p:>10,}" for b, g, p in s.group_sizes]
    lines.append("last runs:")
    lines.append(f"  {'run':<5} {'started':<25}  {'mode':<11} {'method':<11} "
                 f"{'pages processed':>24}  {'seconds':>8}  status")
    for r in s.runs:
        done = f"{r['processed']:,} of {r['pages']:,}"
        lines.append(
            f"  #{r['id']:<4} {r['started_at']:<25}  {r['mode']:<11} {r['method']:<11} "
            f"{done:>24}  {r['wall_seconds']:>8.2f}  {r['status']}"
        )
    if s.state_rows:
        size = f", {s.state_bytes / 1e6:.1f} MB" if s.state_bytes is not None else ""
        lines.append(
            f"state: {plural(sum(s.state_rows.values()), 'row')} in webdedup's tables{size}"
        )
        width = max((len(k) for k in s.state_rows), default=0)
        lines += [f"  {k:<{width}} {v:>10,}" for k, v in s.state_rows.items()]
    else:
        lines.append("state: --state counts the rows and bytes of webdedup's tables")
    lines.append(f"changes waiting for the next run: {s.pending_changes:,}")
    return "\n".join(lines)
