"""Adversarial: random bytes, BLOBs, NULs, invalid UTF-8, huge and empty values in every input
column, through db + export (json/csv/html) + explain + stats: no traceback, exit 0."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

from hostile import FIELDS, assert_clean, build_crawl, cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# a value as a crawler may store it: SQLite's storage classes, with hostile contents
cells = st.one_of(
    st.none(),
    st.binary(max_size=64),  # a BLOB
    st.binary(max_size=64).map(lambda b: ("text", b)),  # bytes stored as TEXT (invalid UTF-8)
    st.text(max_size=64),
    st.sampled_from(["", " ", "\x00", "a\x00b", "\x1b[31m", "\ufeff", "=cmd|' /C calc'!A0",
                     "<script>x</script>", "x" * 300_000]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True),
)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(1, 20), st.sampled_from(FIELDS), cells), min_size=1,
                max_size=12))
def test_hostile_cells(changes):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        db = build_crawl(d / "c.sqlite", n_originals=5)
        conn = sqlite3.connect(db)
        for rowid, column, value in changes:
            if isinstance(value, tuple):
                conn.execute(f'UPDATE pages SET "{column}" = CAST(? AS TEXT) WHERE id = ?',
                             (value[1], rowid))
            else:
                conn.execute(f'UPDATE pages SET "{column}" = ? WHERE id = ?', (value, rowid))
        conn.commit()
        conn.close()
        codes = frozenset({0})
        assert_clean(cli("db", db, "--workers", "1", "-q"), db, codes=codes)
        res = cli("export", db, "--json", d / "r.json", "--csv", d / "r.csv", "--html",
                  d / "r.html", "-q")
        assert_clean(res, db, codes=codes)
        docs = json.loads((d / "r.json").read_text(encoding="utf-8"))["documents"]
        assert not any(isinstance(v, list) for doc in docs for v in doc.values())
        (d / "r.csv").read_text(encoding="utf-8")  # valid UTF-8
        for a, b in ((1, 2), (3, 4)):
            assert_clean(cli("explain", db, str(a), str(b)), db, codes=codes)
            res = cli("explain", db, str(a), str(b), "--json")
            assert_clean(res, db, codes=codes)
            json.loads(res.output)
        assert_clean(cli("stats", db), db, codes=codes)
        assert_clean(cli("db", db, "--workers", "1", "-q"), db, codes=codes)  # incremental
