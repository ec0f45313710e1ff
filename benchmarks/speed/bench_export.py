#!/usr/bin/env python3
"""Measure ``webdedup export`` on a large annotated database: wall time and peak memory.

    python -m benchmarks.speed.bench_export [--pages 1000000] [--formats json,csv,html] \
        [--workdir DIR]

Builds an N-page database that looks as ``webdedup db`` leaves one (the ``pages`` table with
its annotation columns, ``_webdedup_prepared``, ``_webdedup_edges``, a run row and the config)
quickly, by direct SQL inserts: in every block of ten pages, one canonical with a URL duplicate, an
exact duplicate and a near-duplicate (with its edge), and six singletons. Then it runs
``webdedup export`` in a subprocess and prints the export's wall time and its peak resident
memory (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``). ``--json-out`` adds a last line
of JSON with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from webdedup import __version__
from webdedup.config import Config
from webdedup.store import migrate, run_script, transaction

BUILD_SQL = """
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :pages),
page AS (
    SELECT i, (i - 1) % 10 AS r, (i - 1) / 10 * 10 + 1 AS b FROM n
)
INSERT INTO pages (id, url, title, content, canonical_url, content_hash, exact_group_size,
                   dup_group, dup_group_size, canonical_id, is_canonical, dup_kind, dup_score)
SELECT i,
       CASE WHEN r = 1 THEN 'http://www.site' || (b % 997) || '.example/p/' || b || '?utm_source=x'
            ELSE 'https://site' || (i % 997) || '.example/p/' || i END,
       'Page ' || i || ' of the benchmark crawl',
       'text of page ' || i,
       'https://site' || (CASE WHEN r = 1 THEN b ELSE i END % 997) || '.example/p/'
           || CASE WHEN r = 1 THEN b ELSE i END,
       printf('%040d', CASE WHEN r <= 2 THEN b ELSE i END),
       CASE WHEN r <= 2 THEN 3 ELSE 1 END,
       CASE WHEN r <= 3 THEN b ELSE i END,
       CASE WHEN r <= 3 THEN 4 ELSE 1 END,
       CASE WHEN r <= 3 THEN b ELSE i END,
       CASE WHEN r = 0 OR r >= 4 THEN 1 ELSE 0 END,
       CASE r WHEN 1 THEN 'url' WHEN 2 THEN 'exact' WHEN 3 THEN 'near' END,
       CASE WHEN r = 3 THEN 0.92 ELSE 1.0 END
FROM page
"""

PREPARED_SQL = """
INSERT INTO _webdedup_prepared (id, url_hash, canonical_url, url_key, host, content_hash, text_len,
                       word_count, is_external, is_https, url_len, dt, crawled_ts, ignored)
SELECT id, substr(printf('%016d', id), 1, 16), canonical_url, canonical_url,
       'site' || (id % 997) || '.example', content_hash, length(content), 4, 0,
       url LIKE 'https:%', length(url), NULL, NULL, NULL
FROM pages
"""

EDGES_SQL = """
INSERT INTO _webdedup_edges (a, b, score, method)
SELECT canonical_id, id, dup_score, 'minhash' FROM pages WHERE dup_kind = 'near'
"""

#: each annotated page's group columns, as phase 5 keeps them beside the pages (schema 13;
#: by group and by kind since 14: ``sql/group_keys_add.sql`` after it)
GROUPS_SQL = """
INSERT INTO _webdedup_groups (id, dup_group, dup_kind, is_canonical, dup_score)
SELECT id, dup_group, dup_kind, is_canonical, dup_score FROM pages
"""

OUTPUT_COLUMNS = (
    "canonical_url TEXT, content_hash TEXT, exact_group_size INTEGER, dup_group INTEGER, "
    "dup_group_size INTEGER, canonical_id INTEGER, is_canonical INTEGER, dup_kind TEXT, "
    "dup_score REAL"
)


def build(path: Path, pages: int) -> float:
    """Create the annotated benchmark database; returns the seconds it took."""
    t0 = time.perf_counter()
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    config = Config()
    with transaction(conn):
        migrate(conn)
        conn.execute(
            "CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, title TEXT, content TEXT, "
            f"{OUTPUT_COLUMNS})"
        )
        conn.execute(BUILD_SQL, {"pages": pages})
        conn.execute(PREPARED_SQL)
        conn.execute(EDGES_SQL)
        conn.execute(GROUPS_SQL)
        run_script(conn, "group_keys_add", ids="SELECT id FROM _webdedup_groups")
        params = config.shaping_parameters() | {"webdedup_version": __version__}
        conn.execute(
            "INSERT INTO _webdedup_runs (started_at, finished_at, mode, method, fingerprint, "
            "params, pages, processed, status) VALUES (datetime('now'), datetime('now'), "
            "'full', ?, ?, ?, ?, ?, 'ok')",
            (config.method, config.fingerprint(), json.dumps(params), pages, pages),
        )
        conn.execute(
            "INSERT OR REPLACE INTO _webdedup_meta (key, value) VALUES ('config', ?)",
            (json.dumps({**params, "columns": params["columns"]}),),
        )
    conn.close()
    return time.perf_counter() - t0


def run_export(db: Path, workdir: Path, formats: list[str]) -> tuple[float, float, int]:
    """Run ``webdedup export`` in a subprocess: (wall seconds, peak RSS MiB, bytes written)."""
    outputs = {"json": "report.json", "csv": "pages.csv", "html": "review.html"}
    cmd = [sys.executable, "-m", "webdedup.cli", "export", str(db), "--quiet"]
    for fmt in formats:
        cmd += [f"--{fmt}", str(workdir / outputs[fmt])]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t0
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    size = sum((workdir / outputs[f]).stat().st_size for f in formats)
    return wall, peak_kib / 1024, size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1_000_000, help="pages in the database")
    parser.add_argument(
        "--formats", default="json", help="comma-separated outputs: json, csv, html [json]"
    )
    parser.add_argument("--workdir", type=Path, default=None, help="where to build (a temp dir)")
    parser.add_argument("--json-out", action="store_true", help="end with a JSON line")
    args = parser.parse_args(argv)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    bad = sorted(set(formats) - {"json", "csv", "html"})
    if bad or not formats:
        parser.error(f"--formats takes json, csv, html; got {args.formats!r}")
    with tempfile.TemporaryDirectory(prefix="bench_export_") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        db = workdir / "bench.sqlite"
        built = build(db, args.pages)
        db_mb = os.path.getsize(db) / 2**20
        print(f"built {args.pages:,} annotated pages in {built:.1f} s ({db_mb:.0f} MiB)")
        wall, peak_mb, size = run_export(db, workdir, formats)
        print(
            f"webdedup export --{' --'.join(formats)}: {args.pages:,} pages in {wall:.1f} s, "
            f"peak RSS {peak_mb:.0f} MiB, {size / 2**20:.0f} MiB written"
        )
        if args.json_out:
            print(json.dumps({
                "pages": args.pages, "formats": formats, "wall_seconds": round(wall, 2),
                "peak_rss_mb": round(peak_mb, 1), "bytes_written": size,
            }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
