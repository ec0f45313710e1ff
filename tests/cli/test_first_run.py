"""The first run on a machine says it compiles the kernels, and the next one does not; nor
does the first nightly run compile what only nightly runs call (it did: 1.5-1.7 CPU-s).

numba compiles webdedup's kernels on first use and caches them on disk; without a word, a
new user's first run sat silent for its first 20 seconds (in every worker at once). Here the
cache is an empty folder of the test's (``NUMBA_CACHE_DIR``), so the first run compiles.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

from conftest import FIXTURES

from webdedup.ingest import ingest

NOTICE = "compiling webdedup's kernels once"


def test_the_first_run_says_it_compiles_and_later_runs_load(tmp_path):
    db = tmp_path / "crawl.sqlite"
    ingest(db, [FIXTURES / "sample-crawl.jsonl.gz"], workers=1)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    runs = []
    for extra in ([], ["--full"]):
        res = subprocess.run(
            [sys.executable, "-m", "webdedup.cli", "db", str(db), *extra],
            capture_output=True, text=True, env=env, timeout=600,
        )
        assert res.returncode == 0, res.stderr
        runs.append(res.stderr)
    assert NOTICE in runs[0]
    assert NOTICE not in runs[1]
    assert any((tmp_path / "numba-cache").rglob("*.nbi"))

    # a nightly run (one new page): the kernels it alone calls were compiled by the first
    cache = tmp_path / "numba-cache"
    assert any("band_collisions" in p.name for p in cache.rglob("*.nbi"))
    before = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}
    conn = sqlite3.connect(db)
    cols = [r[1] for r in conn.execute("PRAGMA table_info(pages)") if r[1] != "id"]
    picked = ", ".join("url || '?again'" if c == "url" else f'"{c}"' for c in cols)
    listed = ", ".join(f'"{c}"' for c in cols)
    conn.execute(f"INSERT INTO pages ({listed}) SELECT {picked} FROM pages ORDER BY id LIMIT 1")
    conn.commit()
    conn.close()
    res = subprocess.run([sys.executable, "-m", "webdedup.cli", "db", str(db), "--json", "-q"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr
    assert '"mode": "incremental"' in res.stdout
    conn = sqlite3.connect(db)
    (sketched,) = conn.execute("SELECT count(*) FROM _webdedup_sketches WHERE id = "
                               "(SELECT max(id) FROM pages)").fetchone()
    conn.close()
    assert sketched == 1  # the new page has band keys: the run met them with the stored ones
    after = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}
    assert after == before  # nothing compiled, nothing cached anew

    # a machine with every kernel of phase 1 cached but not the nightly runs' (an older
    # version's cache): the next run compiles it, with the word
    for path in cache.rglob("*band_collisions*"):
        path.unlink()
    res = subprocess.run([sys.executable, "-m", "webdedup.cli", "db", str(db), "--full"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr
    assert NOTICE in res.stderr
    assert any("band_collisions" in p.name for p in cache.rglob("*.nbi"))
