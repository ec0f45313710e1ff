"""``webdedup export --datasette``: metadata a real Datasette server accepts and applies.

The test starts ``datasette`` (the ``[review]`` extra) on 127.0.0.1 with the metadata written
for a crawl with URL, exact and near duplicates, reads its JSON API and stops it.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import crawl_with_duplicates, write_pages

from webdedup import Deduplicator
from webdedup.cli import cli

DATASETTE = Path(sys.executable).parent / "datasette"
pytest.importorskip("datasette", reason="datasette is in the [review] extra (scripts/setup-env)")
yaml = pytest.importorskip("yaml", reason="PyYAML comes with datasette")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str, deadline: float) -> dict:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return json.loads(r.read().decode("utf-8"))
        except (ConnectionError, urllib.error.URLError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_datasette_serves_with_the_metadata(tmp_path):
    db = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(20))
    Deduplicator().run_on_db(db)
    meta = tmp_path / "metadata.yml"
    res = CliRunner().invoke(cli, ["export", str(db), "--datasette", str(meta)])
    assert res.exit_code == 0, res.output
    # the JSON form says the same
    as_json = tmp_path / "metadata.json"
    assert CliRunner().invoke(cli, ["export", str(db), "--datasette", str(as_json)]).exit_code == 0
    assert yaml.safe_load(meta.read_text("utf-8")) == json.loads(as_json.read_text("utf-8"))
    port = free_port()
    proc = subprocess.Popen(
        [str(DATASETTE), "serve", str(db), "--metadata", str(meta), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        served = fetch(f"{base}/-/metadata.json", time.monotonic() + 30)
        tables = served["databases"]["crawl"]["tables"]
        assert tables["pages"]["facets"] == ["dup_kind", "dup_group_size"]
        assert "duplicate group" in tables["pages"]["columns"]["dup_group"]
        listing = fetch(f"{base}/crawl.json", time.monotonic() + 10)
        hidden = {t["name"] for t in listing["tables"] if t["hidden"]}
        shown = {t["name"] for t in listing["tables"] if not t["hidden"]}
        assert {"_webdedup_meta", "_webdedup_runs", "_webdedup_edges"} <= hidden
        assert "_webdedup_verdicts" in hidden and shown == {"pages"}
        page = fetch(f"{base}/crawl/pages.json?_extra=facet_results", time.monotonic() + 10)
        facets = page.get("facet_results", {})
        facets = facets.get("results", facets)  # 1.0 nests them
        kinds = {r["value"] for r in facets["dup_kind"]["results"]}
        assert {"url", "exact"} <= kinds
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_the_metadata_hides_every_webdedup_table_ingest_s_included(tmp_path):
    """A database built by ``webdedup ingest`` has its two tables (``_webdedup_ingested``,
    ``_webdedup_ingest_files``): hidden too, with every other ``_webdedup_*`` table."""
    from conftest import FIXTURES

    from webdedup.ingest import ingest
    from webdedup.output.datasette import datasette_metadata

    db = tmp_path / "crawl.sqlite"
    ingest(db, [FIXTURES / "sample-crawl.jsonl.gz"], workers=1)
    Deduplicator().run_on_db(db)
    tables = datasette_metadata(db)["databases"]["crawl"]["tables"]
    import sqlite3

    with sqlite3.connect(db) as conn:
        ours = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE '\\_webdedup\\_%' "
            "ESCAPE '\\'")}
    conn.close()
    assert {"_webdedup_ingested", "_webdedup_ingest_files"} <= ours
    assert {t for t, v in tables.items() if v.get("hidden")} >= ours
