#!/usr/bin/env python3
"""Time the review queue's SQL at a million pages (docs/review.md quotes these figures).

    python -m benchmarks.speed.bench_review_queue [--members 1000000] [--verdicts 1000] \
        [--hosts 10000]

Synthetic state, not a run: ``--members`` duplicate-group members in groups of two (a third
of them exact, the rest near with scores from 0.9 to 1.0) in webdedup's groups state
(``_webdedup_groups``, ``_webdedup_group_members``, ``_webdedup_group_kinds``) with the
review app's list of groups (``sql/review/groups_build.sql``), from which it builds the queue
once a run (``sql/review/queue_build.sql``), and as many rows of ``_webdedup_prepared`` (and
``_webdedup_hosts``) spread over ``--hosts`` hosts. Prints the
time to build the queue, to count what is left and to find the next undecided pair once
``--verdicts`` pairs are decided, and to find one host's distinct texts when its chrome is
first dimmed (``sql/review/host_texts.sql``).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from webdedup.review import queue
from webdedup.store import migrate, run_script, sql, transaction
from webdedup.store.counts import groups_subquery


def fill(conn: sqlite3.Connection, members: int, hosts: int) -> None:
    rnd = random.Random(1)
    with transaction(conn):
        conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT)")
        migrate(conn)
        cols = [r[1] for r in conn.execute("PRAGMA table_info(_webdedup_prepared)")]

        def prepared():
            for i in range(members):
                row = dict.fromkeys(cols, 0)
                row.update(id=i + 1, host=f"h{i % hosts}.example", content_hash=f"{i // 2:040x}",
                           url_key=f"k{i}", ignored=None)
                yield tuple(row[c] for c in cols)

        conn.executemany(f"INSERT INTO _webdedup_prepared ({', '.join(cols)}) "
                         f"VALUES ({', '.join('?' * len(cols))})", prepared())
        conn.execute("INSERT INTO _webdedup_hosts (host, id) SELECT host, id "
                     "FROM _webdedup_prepared ORDER BY host, id")
        rows = []
        for g in range(members // 2):
            kind = "near" if g % 3 else "exact"
            score = rnd.uniform(0.9, 1.0) if kind == "near" else 1.0
            rows.append((2 * g + 1, 2 * g + 1, None, 1, 1.0))
            rows.append((2 * g + 2, 2 * g + 1, kind, 0, round(score, 6)))
        conn.executemany("INSERT INTO _webdedup_groups (id, dup_group, dup_kind, is_canonical, "
                         "dup_score) VALUES (?, ?, ?, ?, ?)", rows)
        conn.execute("INSERT INTO _webdedup_group_members (dup_group, is_canonical, id) "
                     "SELECT dup_group, is_canonical, id FROM _webdedup_groups ORDER BY 1, 2, 3")
        conn.execute("INSERT INTO _webdedup_group_kinds (dup_kind, dup_group, id) "
                     "SELECT dup_kind, dup_group, id FROM _webdedup_groups "
                     "WHERE dup_kind IS NOT NULL ORDER BY 1, 2, 3")
    run_script(conn, "review/groups_build", groups=groups_subquery())


def timed(label: str, work):
    start = time.perf_counter()
    result = work()
    print(f"{label}: {time.perf_counter() - start:.3f} s")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=1_000_000)
    parser.add_argument("--verdicts", type=int, default=1000)
    parser.add_argument("--hosts", type=int, default=10_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="webdedup-queue-") as tmp:
        conn = sqlite3.connect(Path(tmp) / "bench.sqlite", isolation_level=None)
        fill(conn, args.members, args.hosts)
        timed(f"build the queue of {args.members:,} members", lambda: queue.build_queue(conn, 0.9))
        first = conn.execute("SELECT id, canonical FROM temp.review_queue ORDER BY pos LIMIT ?",
                             (args.verdicts,)).fetchall()
        with transaction(conn):
            conn.executemany("INSERT INTO _webdedup_verdicts (kind, page_a, page_b, created_at) "
                             "VALUES ('duplicate', ?, ?, '2026-01-01T00:00:00+00:00')", first)
        print(timed(f"count what is left ({args.verdicts:,} verdicts)",
                    lambda: queue.progress(conn)).line())
        timed("find the next undecided pair", lambda: queue.next_pos(conn, 0))
        texts = sql("review/host_texts", host_pages="main._webdedup_hosts")
        found = timed(f"one host's distinct texts ({args.members // args.hosts:,} pages a host)",
                      lambda: conn.execute(texts, {"host": "h0.example", "limit": 400}).fetchall())
        print(f"  ({len(found)} texts)")
        conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
