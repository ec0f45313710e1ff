"""Adversarial: every file of ../shared/data/warc/malformed, and the real WARCs of
../shared/data/warc cut at random (seeded) offsets: no traceback, exit 0 or 7, and a warning
naming the file whenever something was lost."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from conftest import SHARED_DATA
from hostile import assert_clean, cli

WARCS = SHARED_DATA / "warc"
MALFORMED = sorted((WARCS / "malformed").iterdir())
REAL = sorted(p for p in WARCS.iterdir() if p.is_file())


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.name)
def test_malformed_files(tmp_path, path):
    res = cli("ingest", tmp_path / "m.sqlite", path, "--workers", "1", "-q")
    assert_clean(res, codes=frozenset({0, 7}))
    if res.exit_code == 7:
        assert f"warning: {path}" in res.output


def _cuts(seed: int = 11, per_file: int = 1) -> list[tuple[Path, int]]:
    rng = random.Random(seed)
    out = []
    for path in REAL:
        size = path.stat().st_size
        out += [(path, rng.randrange(1, size)) for _ in range(per_file)]
    return out


def _pages(db: Path) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT count(*) FROM pages").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize(("path", "offset"), _cuts(), ids=lambda v: getattr(v, "name", str(v)))
def test_truncated_real_warcs(tmp_path, path, offset):
    whole = tmp_path / "whole.sqlite"
    assert_clean(cli("ingest", whole, path, "--workers", "1", "-q"), codes=frozenset({0}))
    cut = tmp_path / ("cut-" + path.name)
    cut.write_bytes(path.read_bytes()[:offset])
    db = tmp_path / "cut.sqlite"
    res = cli("ingest", db, cut, "--workers", "1", "-q")
    assert_clean(res, codes=frozenset({0, 7}))
    if _pages(db) < _pages(whole):  # pages lost: the user is told, naming the file
        assert res.exit_code == 7 and f"warning: {cut}" in res.output, res.output
