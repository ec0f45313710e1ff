"""One set of counts: db --json, stats, the JSON report, the CSV and the HTML page agree.

On the bundled demo crawl (fixtures/sample-crawl.jsonl.gz: the pages of
fixtures/sample-crawl.warc.gz after ingest), every output is read and its numbers are compared
with the vocabulary of webdedup.store.counts, recomputed here from the CSV rows alone.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result
from conftest import FIXTURES, ROOT

from webdedup.cli import cli

SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
KINDS = ("url", "exact", "near")


def invoke(*args: str) -> Result:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res


def counts_from_csv(path: Path) -> dict[str, int]:
    """The vocabulary, recomputed from the page rows: groups are dup_groups of 2+ pages, a
    group's kind its loosest member kind (near, else exact, else url)."""
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["dup_group"]:
            members[row["dup_group"]].append(row)
    groups = {g: m for g, m in members.items() if len(m) >= 2}
    kinds = Counter(r["dup_kind"] for r in rows)
    out = {
        "pages": len(rows),
        "ignored": kinds["ignored"],
        "unique": sum(len(m) == 1 for m in members.values()),
        "not_annotated": sum(not r["dup_group"] and not r["dup_kind"] for r in rows),
        "groups": len(groups),
        "duplicates": sum(kinds[k] for k in KINDS),
        "thin": kinds["thin"],  # each the canonical of its own group (unique or not)
    }
    group_kinds = Counter(
        next(k for k in reversed(KINDS) if any(r["dup_kind"] == k for r in m))
        for m in groups.values()
    )
    for kind in KINDS:
        out[f"{kind}_groups"] = group_kinds[kind]
        out[f"{kind}_duplicates"] = kinds[kind]
    for m in groups.values():  # one canonical a group, the others its duplicates
        assert sum(r["is_canonical"] == "1" for r in m) == 1
        assert all(r["dup_kind"] in KINDS for r in m if r["is_canonical"] != "1")
    return out


def test_every_output_counts_the_demo_crawl_alike(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite"
    invoke("ingest", str(db), str(FIXTURES / "sample-crawl.jsonl.gz"), "-q", "--workers", "1")
    ran = json.loads(invoke("db", str(db), "--json", "-q", "--workers", "1").output)
    counts = ran["counts"]

    # the demo shows every kind of group
    assert counts["url_groups"] > 0 and counts["exact_groups"] > 0 and counts["near_groups"] > 0
    assert counts["groups"] == sum(counts[f"{k}_groups"] for k in KINDS)
    assert counts["duplicates"] == sum(counts[f"{k}_duplicates"] for k in KINDS)
    assert counts["pages"] == (counts["unique"] + counts["groups"] + counts["duplicates"]
                               + counts["ignored"] + counts["not_annotated"])
    assert (ran["groups"], ran["url_duplicates"], ran["near_duplicates"]) == (
        counts["groups"], counts["url_duplicates"], counts["near_duplicates"])
    summary = invoke("db", str(db), "--workers", "1").output
    assert f"{counts['groups']} groups ({counts['url_groups']} URL, " in summary

    stats = json.loads(invoke("stats", str(db), "--json").output)
    assert stats["counts"] == counts
    assert sum(b["groups"] for b in stats["group_sizes"]) == counts["groups"]
    assert sum(b["pages"] for b in stats["group_sizes"]) == counts["groups"] + counts[
        "duplicates"]
    text = invoke("stats", str(db)).output
    assert re.search(rf"^  groups +{counts['groups']} ", text, re.MULTILINE)
    assert re.search(rf"^    near groups +{counts['near_groups']}$", text, re.MULTILINE)

    report_path, csv_path, html_path = (tmp_path / n for n in ("r.json", "p.csv", "r.html"))
    invoke("export", str(db), "--json", str(report_path), "--csv", str(csv_path),
           "--html", str(html_path), "-q")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    meta = report["meta"]["counts"]
    assert {k: meta[k] for k in counts} == counts
    assert meta["duplicate_groups"] == counts["groups"]
    for kind in KINDS:
        listed = report[f"{kind}_duplicate_groups"]
        assert len(listed) == counts[f"{kind}_groups"]
        assert all(g["kind"] == kind and g["size"] == len(g["members"]) for g in listed)
    every = [g for k in KINDS for g in report[f"{k}_duplicate_groups"]]
    assert sum(g["size"] - 1 for g in every) == counts["duplicates"]
    assert len({g["id"] for g in every}) == counts["groups"]

    assert counts_from_csv(csv_path) == counts

    page = html_path.read_text(encoding="utf-8")
    headings = re.findall(r"<h2>Group \d+ · (\d+) pages · (url|exact|near) group", page)
    assert len(headings) == counts["groups"]  # the demo has fewer groups than the page cap
    assert Counter(k for _, k in headings) == Counter({k: counts[f"{k}_groups"] for k in KINDS})
    assert sum(int(n) - 1 for n, _ in headings) == counts["duplicates"]
    # each heading names its own group's kind (not, say, its last member's)
    by_id = dict(re.findall(r"<h2>Group (\d+) · \d+ pages · (url|exact|near) group", page))
    assert by_id == {str(g["id"]): g["kind"] for g in every}
    line = (f"{counts['pages']} pages: {counts['groups']} groups ({counts['url_groups']} URL, "
            f"{counts['exact_groups']} exact, {counts['near_groups']} near) holding "
            f"{counts['duplicates']} duplicates")
    assert line in page


def test_a_group_heading_names_the_groups_kind_not_its_last_members() -> None:
    from webdedup.output.html_review import render_group

    def row(pid: int, kind: str | None) -> dict:
        return {"id": pid, "url": f"https://a.example/{pid}", "title": None, "canonical_url": None,
                "content_hash": None, "is_canonical": int(kind is None), "dup_kind": kind,
                "dup_score": None, "edge_score": None, "edge_method": None, "lang": None,
                "text": "some words", "html": None, "dup_group": 1, "size": 3,
                "group_kind": "near"}

    section = render_group(1, 3, [row(1, None), row(2, "near"), row(3, "url")], "near")
    assert "<h2>Group 1 · 3 pages · near group" in section


def test_after_prune_no_list_of_the_html_page_names_a_group(tmp_path: Path) -> None:
    """The table of contents and the size picture read the one definition of a group too: a
    pruned table (canonicals only) has no group left in any of them."""
    from conftest import crawl_with_duplicates, write_pages

    db = write_pages(tmp_path / "c.sqlite", crawl_with_duplicates(6))
    invoke("db", str(db), "-q")
    page_path = tmp_path / "before.html"
    invoke("export", str(db), "--html", str(page_path), "-q")
    assert '<nav class="toc">' in page_path.read_text(encoding="utf-8")
    invoke("db", str(db), "-q", "--prune")
    invoke("export", str(db), "--html", str(page_path), "-q")
    page = page_path.read_text(encoding="utf-8")
    assert '<nav class="toc">' not in page and '<section class="group"' not in page


@pytest.mark.parametrize("table", ["integer key", "rowid", "expression key"])
def test_stats_and_the_report_count_the_pages_a_crawler_changed_since_the_run(
    tmp_path: Path, table: str
) -> None:
    """``stats`` and ``export`` count the pages from the last run's state and the queue
    (no pass over the texts) where the rowids stay put and every added or deleted row is
    queued, ``count(*)`` elsewhere: the same number either way, after inserts, deletes and
    upserts that REPLACE a row, with no run between."""
    import sqlite3

    from conftest import crawl_with_duplicates, write_pages

    db = write_pages(tmp_path / "c.sqlite", crawl_with_duplicates(8),
                     integer_pk=table != "rowid")
    with sqlite3.connect(db) as conn:
        index = "lower(url)" if table == "expression key" else "url"
        conn.execute(f"CREATE UNIQUE INDEX pages_url ON pages ({index})")
    invoke("db", str(db), "-q")
    with sqlite3.connect(db) as conn:
        urls = [r[0] for r in conn.execute("SELECT url FROM pages ORDER BY rowid LIMIT 3")]
        conn.execute("INSERT INTO pages (url, content) VALUES ('https://new.example/1', 'x y')")
        conn.execute("INSERT OR REPLACE INTO pages (url, content) VALUES (?, 'new text')",
                     (urls[0],))  # deletes the row of that URL, adds one
        conn.execute("DELETE FROM pages WHERE url = ?", (urls[1],))
        conn.execute("UPDATE pages SET content = 'changed' WHERE url = ?", (urls[2],))
        (pages,) = conn.execute("SELECT count(*) FROM pages").fetchone()
    stats = json.loads(invoke("stats", str(db), "--json").output)
    assert stats["counts"]["pages"] == pages
    report_path = tmp_path / "r.json"
    invoke("export", str(db), "--json", str(report_path), "-q")
    assert json.loads(report_path.read_text(encoding="utf-8"))["meta"]["counts"]["pages"] == pages


def test_stats_counts_with_count_star_under_triggers_that_miss_an_id_update(tmp_path: Path) -> None:
    """Triggers installed before the INTEGER PRIMARY KEY was tracked queue nothing for an
    ``UPDATE OR REPLACE`` of it (it deletes the row that held the id): with such triggers
    the pages are counted with ``count(*)``, not from the state."""
    import sqlite3

    from conftest import crawl_with_duplicates, write_pages

    db = write_pages(tmp_path / "c.sqlite", crawl_with_duplicates(8))
    invoke("db", str(db), "-q")
    with sqlite3.connect(db) as conn:  # the update trigger and its record as they were
        (ddl,) = conn.execute(
            "SELECT sql FROM sqlite_schema WHERE name = '_webdedup_pages_update'"
        ).fetchone()
        conn.execute("DROP TRIGGER _webdedup_pages_update")
        conn.execute(ddl.replace(', "id"', "").replace('"id", ', ""))
        (raw,) = conn.execute("SELECT value FROM _webdedup_meta WHERE key = 'triggers'").fetchone()
        recorded = json.loads(raw)
        recorded["columns"] = [c for c in recorded["columns"] if c != "id"]
        conn.execute("UPDATE _webdedup_meta SET value = ? WHERE key = 'triggers'",
                     (json.dumps(recorded),))
        ids = [r[0] for r in conn.execute("SELECT id FROM pages ORDER BY id")]
        conn.execute("UPDATE OR REPLACE pages SET id = ? WHERE id = ?", (ids[0], ids[1]))
        (pages,) = conn.execute("SELECT count(*) FROM pages").fetchone()
    assert pages == len(ids) - 1
    assert json.loads(invoke("stats", str(db), "--json").output)["counts"]["pages"] == pages

