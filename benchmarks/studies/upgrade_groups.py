#!/usr/bin/env python3
"""How long the upgrade to schema 14 holds the write lock (issue #33, item 1: the write lock
held at most about ``--write-lock`` at a time).

    python -m benchmarks.studies.upgrade_groups DB --work DIR [--rounds 2]

Copies an annotated database (schema 14 or later, e.g. one ``lock_holds`` left) into ``DIR``,
sets the copy back to what schema 13 left (no ``_webdedup_group_members`` and
``_webdedup_group_kinds``, the two indexes on ``_webdedup_groups``), and times ``migrate`` in
a write transaction, as the first write transaction of the next run makes it: the migration
fills the two tables from the groups rows and drops the indexes (the later migrations run too:
schema 15 adds two empty tables). ``--rounds`` times it that many times, setting the copy back
before each. Prints the seconds of each round and the groups rows.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import time
from pathlib import Path

from webdedup.store import migrate


def back_to_13(conn: sqlite3.Connection) -> None:
    """What schema 13 left: the groups rows with their two indexes, no tables by group, kind."""
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DROP TABLE IF EXISTS _webdedup_group_members")
    conn.execute("DROP TABLE IF EXISTS _webdedup_group_kinds")
    conn.execute("CREATE INDEX _webdedup_groups_kind ON _webdedup_groups(dup_kind, dup_group)")
    conn.execute("CREATE INDEX _webdedup_groups_group ON _webdedup_groups(dup_group, "
                 "is_canonical)")
    conn.execute("UPDATE _webdedup_meta SET value = '13' WHERE key = 'schema_version'")
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="an annotated database (copied, never written)")
    parser.add_argument("--work", type=Path, required=True, help="where the copy goes")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    copy = args.work / "upgrade.sqlite"
    shutil.copyfile(args.db, copy)  # (before any connection of this process opens it)
    conn = sqlite3.connect(copy, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        (rows,) = conn.execute("SELECT count(*) FROM _webdedup_groups").fetchone()
        for i in range(args.rounds):
            back_to_13(conn)
            start = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            version = migrate(conn)
            conn.execute("COMMIT")
            took = time.perf_counter() - start
            print(f"round {i + 1}: schema 13 -> {version} in {took:.2f} s under the write lock "
                  f"({rows:,} groups rows)", flush=True)
    finally:
        conn.close()
        for path in (copy, Path(f"{copy}-wal"), Path(f"{copy}-shm")):
            path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
