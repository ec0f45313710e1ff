#!/usr/bin/env python3
"""Where the review queue's build spends its time: each statement of
``sql/review/queue_build.sql`` timed on the review app's own connection (its TEMP settings),
after the app read the run's groups; with ``--part``, another part of the review app's index
(``scores``: ``members_build.sql``, what a score filter needs; ``langs``: ``langs_build.sql``,
what a language filter needs; ``places``: ``places_build.sql``, what a small run's host list
needs; ``search``: ``search_build.sql``, what the first search needs).

    python -m benchmarks.studies.queue_statements ANNOTATED.sqlite [--part queue]

With the package of another checkout first on ``PYTHONPATH`` (run from it), that checkout's
statements. Prints each statement that took 10 ms or more, then the total.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from webdedup.review import ReviewApp
from webdedup.store import split_statements, sql


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, help="a database webdedup db annotated")
    parser.add_argument("--part", choices=("queue", "scores", "langs", "places", "search"),
                        default="queue", help="which part of the index (default: the queue)")
    args = parser.parse_args(argv)
    app = ReviewApp(args.db)
    try:
        app.handle("GET", "/", {}, {})  # the groups' part
        conn = app._reader()
        conn.execute("BEGIN")
        total = time.perf_counter()
        name, fills = app.part_script(args.part)
        for statement in split_statements(sql(name, **fills)):
            start = time.perf_counter()
            conn.execute(statement, {"threshold": app._threshold})
            took = time.perf_counter() - start
            if took >= 0.01:
                text = " ".join(line for line in statement.splitlines()
                                if not line.lstrip().startswith("--"))
                print(f"{took:7.2f} s  {text[:100]}")
        print(f"{time.perf_counter() - total:7.2f} s  in all")
        conn.execute("ROLLBACK")
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
