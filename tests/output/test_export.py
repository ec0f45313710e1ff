"""webdedup export: the JSON report (against its schema), the CSV table, filters, the HTML page.

The databases are real SQLite files built from real page texts and run through
``Deduplicator().run_on_db``; the near-duplicate group of the fixture is found by phase 4.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result
from conftest import ROOT, crawl_with_duplicates, dump, make_page, real_texts, write_pages

from webdedup import Deduplicator
from webdedup.cli import cli
from webdedup.output import CSV_COLUMNS, ExportFilters, export, neutralize, word_diff

SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))

SCRIPT_TITLE = "<script>alert(1)</script>"
FORMULA_TITLES = (
    '=HYPERLINK("http://evil.example/","click")',
    "+1 555 0100",
    "-2 degrees tonight",
    "@SUM(A1:A9)",
    "\tTabbed title",
    "\rCarriage title",
)
AWKWARD_TITLE = 'Quote "inside", a comma; a\nnewline and ünïcödé — 漢字'
FORMULA_TEXT_PREFIX = "=cmd|' /C calc'!A0 "
NEAR_URL = "https://syndication.example.com/story-1"
IGNORED_URL = "https://site3.example.org/tag/news"
VARIANT_1 = "http://www.site1.example.org/articles/1?utm_campaign=z"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def near_copy(text: str) -> str:
    """The text with a few words changed, as a syndicated copy would be."""
    words = text.split()
    for k in range(7, len(words), 150):
        words[k] = "changed"
    return " ".join(words) + " Read more on our partner site."


def fixture_pages() -> list[dict[str, Any]]:
    pages = crawl_with_duplicates(24)
    originals = [p for p in pages if p.get("title", "").startswith("Article ")]
    for page, title in zip(originals[2:], FORMULA_TITLES, strict=False):
        page["title"] = title
    originals[9]["title"] = AWKWARD_TITLE
    originals[10]["content"] = FORMULA_TEXT_PREFIX + originals[10]["content"]
    mirror = next(p for p in pages if p["url"] == "https://mirror.example.net/copy/0")
    mirror["title"] = SCRIPT_TITLE
    pages.append(make_page(NEAR_URL, near_copy(originals[1]["content"]), title="Syndicated 1"))
    pages.append(make_page(VARIANT_1, originals[1]["content"], title="Article 1 (tracking link)"))
    pages.append(make_page(IGNORED_URL, real_texts()[30]["text"], title="Tag page"))
    return pages


def page_id(path: Path, url: str) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT id FROM pages WHERE url = ?", (url,)).fetchone()[0])


def make_near(path: Path, canonical: int, member: int, score: float = 0.9) -> None:
    """Check that the real phase 4 joined ``member`` to ``canonical``'s group as near."""
    with sqlite3.connect(path) as conn:
        kind, group, canon, got = conn.execute(
            "SELECT dup_kind, dup_group, canonical_id, dup_score FROM pages WHERE id = ?",
            (member,),
        ).fetchone()
        (canon_group,) = conn.execute(
            "SELECT dup_group FROM pages WHERE id = ?", (canonical,)
        ).fetchone()
        edges = conn.execute(
            "SELECT count(*) FROM _webdedup_edges WHERE ? IN (a, b)", (member,)
        ).fetchone()[0]
    assert (kind, group, canon) == ("near", canon_group, canonical)
    assert got >= score and edges >= 1


@pytest.fixture
def crawl(tmp_path: Path) -> Path:
    """An annotated crawl: URL variants, exact mirrors, one near copy, one ignored page."""
    path = write_pages(tmp_path / "crawl.sqlite", fixture_pages())
    Deduplicator(urls_to_ignore=["tag"]).run_on_db(path)
    original = page_id(path, "https://site1.example.org/articles/1")
    make_near(path, original, page_id(path, NEAR_URL))
    return path


def db_rows(path: Path) -> dict[int, dict[str, Any]]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        return {
            r["id"]: dict(r)
            for r in conn.execute(
                "SELECT p.*, pr.text_len FROM pages AS p "
                "LEFT JOIN _webdedup_prepared AS pr ON pr.id = p.id"
            )
        }
    finally:
        conn.close()


def read_report(path: Path, *args: str) -> dict[str, Any]:
    out = path.parent / "report.json"
    res = invoke("export", str(path), "--json", str(out), *args)
    assert res.exit_code == 0, res.output
    report = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    return report


def test_schema_is_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_json_report_validates_and_matches_the_database(crawl):
    report = read_report(crawl)
    rows = db_rows(crawl)
    docs = {d["id"]: d for d in report["documents"]}
    assert set(docs) == set(rows)
    assert [d["id"] for d in report["documents"]] == sorted(docs)  # id order
    for pid, doc in docs.items():
        row = rows[pid]
        assert doc["url"] == row["url"] and doc["title"] == row["title"]
        assert doc["len_clean"] == row["text_len"]
        for key in ("canonical_url", "content_hash", "exact_group_size", "dup_group",
                    "dup_group_size", "canonical_id", "dup_kind", "dup_score"):
            assert doc[key] == row[key], (pid, key)
        assert doc["is_canonical"] == (None if row["is_canonical"] is None
                                       else bool(row["is_canonical"]))
    assert docs[page_id(crawl, IGNORED_URL)]["dup_kind"] == "ignored"

    meta = report["meta"]
    assert meta["counts"]["pages"] == len(rows)
    assert meta["counts"]["url_duplicates"] == sum(r["dup_kind"] == "url" for r in rows.values())
    assert meta["parameters"]["threshold"] == 0.9
    assert meta["parameters"]["urls_to_ignore"] == ["tag"]
    assert meta["run"]["method"] == "minhash"

    near = page_id(crawl, NEAR_URL)
    original = page_id(crawl, "https://site1.example.org/articles/1")
    pair = next(p for p in report["near_duplicate_pairs"] if {p["i"], p["j"]} == {near, original})
    assert {pair["url_i"], pair["url_j"]} == {NEAR_URL, "https://site1.example.org/articles/1"}
    assert {pair["title_i"], pair["title_j"]} == {"Syndicated 1", "Article 1"}
    group = next(g for g in report["near_duplicate_groups"] if near in g["members"])
    assert group["canonical"] == original and group["members"][0] == original
    assert group["size"] == len(group["members"]) and "Article 1" in group["sample_titles"]

    # article 0 has URL variants (a utm link, a #comments re-crawl) and an exact mirror: one
    # group of kind exact (its loosest link) holding its url duplicates too
    article0 = page_id(crawl, "https://site0.example.org/articles/0")
    mirror = page_id(crawl, "https://mirror.example.net/copy/0")
    exact = next(g for g in report["exact_duplicate_groups"] if mirror in g["members"])
    assert article0 in exact["members"] and exact["kind"] == "exact"
    assert exact["size"] == len(exact["members"]) >= 4  # original, utm, #comments, mirror
    assert exact["hash"] == rows[exact["canonical"]]["content_hash"] == rows[mirror]["content_hash"]
    assert {rows[m]["dup_kind"] for m in exact["members"][1:]} == {"url", "exact"}
    # article 3 has only a utm variant: a group of kind url
    article3 = page_id(crawl, "https://site3.example.org/articles/3")
    url_group = next(g for g in report["url_duplicate_groups"] if article3 in g["members"])
    assert url_group["canonical_url"] == rows[article3]["canonical_url"]
    assert len(url_group["members"]) == url_group["size"] == 2
    # the three lists hold every group once
    listed = [g["id"] for key in ("near_duplicate_groups", "exact_duplicate_groups",
                                  "url_duplicate_groups") for g in report[key]]
    sizes = {}
    for r in rows.values():
        if r["dup_group"] is not None:
            sizes[r["dup_group"]] = sizes.get(r["dup_group"], 0) + 1
    assert sorted(listed) == sorted(g for g, n in sizes.items() if n >= 2)
    assert meta["counts"]["groups"] == len(listed)


def test_export_needs_an_output_and_an_annotated_database(tmp_path):
    path = write_pages(tmp_path / "raw.sqlite", crawl_with_duplicates(5))
    res = invoke("export", str(path))
    assert res.exit_code == 2 and "at least one of --json, --csv, --html" in res.output
    res = invoke("export", str(path), "--json", str(tmp_path / "r.json"))
    assert res.exit_code == 3
    assert "webdedup db" in res.output and not (tmp_path / "r.json").exists()
    res = invoke("export", str(tmp_path / "missing.sqlite"), "--csv", str(tmp_path / "p.csv"))
    assert res.exit_code == 3 and "no such file" in res.output


def test_export_only_reads_the_database(crawl, tmp_path):
    before = dump(crawl)
    res = invoke("export", str(crawl), "--json", str(tmp_path / "r.json"), "--csv",
                 str(tmp_path / "p.csv"), "--html", str(tmp_path / "r.html"))
    assert res.exit_code == 0, res.output
    assert "JSON report" in res.output and "CSV" in res.output and "HTML review" in res.output
    assert dump(crawl) == before


def test_json_to_stdout(crawl):
    res = invoke("export", str(crawl), "--json", "-", "--quiet")
    assert res.exit_code == 0
    report = json.loads(res.stdout)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)


def expected_cell(value: Any) -> str:
    return "" if value is None else str(value)


def test_csv_reads_back_with_csv_module_and_pandas(crawl, tmp_path):
    out = tmp_path / "pages.csv"
    res = invoke("export", str(crawl), "--csv", str(out), "--with-text")
    assert res.exit_code == 0, res.output
    raw = out.read_bytes()
    assert raw.startswith(b"id,url,title,") and b"\r\n" in raw
    raw.decode("utf-8")  # UTF-8, no BOM
    with out.open(newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh))
    header, body = table[0], table[1:]
    assert header == [*CSV_COLUMNS, "text"]
    rows = db_rows(crawl)
    with closing(sqlite3.connect(crawl)) as conn:  # lang is webdedup's state, not a column
        langs = dict(conn.execute("SELECT id, lang FROM _webdedup_prepared"))
    assert len(body) == len(rows)
    neutralized = set()
    for cells in body:
        row = rows[int(cells[0])] | {"lang": langs[int(cells[0])]}
        for name, cell in zip(header, cells, strict=True):
            value = row["content"] if name == "text" else row[name]
            if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
                assert cell == "'" + value
                neutralized.add(value)
            else:
                assert cell == expected_cell(value), (name, cell, value)
    assert set(FORMULA_TITLES) <= neutralized
    assert any(v.startswith(FORMULA_TEXT_PREFIX) for v in neutralized)

    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(out, dtype=str, keep_default_na=False, encoding="utf-8")
    assert list(frame.columns) == header
    assert frame.values.tolist() == body


def test_csv_neutralizes_formula_cells():
    assert neutralize("=1+1") == "'=1+1"
    assert neutralize("@x") == "'@x" and neutralize("\tx") == "'\tx" and neutralize("\rx") == "'\rx"
    assert neutralize("a=b") == "a=b" and neutralize(-1) == -1 and neutralize(None) is None


def test_filters_kind_and_min_group_size(crawl):
    rows = db_rows(crawl)
    report = read_report(crawl, "--kind", "near")
    kept = report["documents"]
    near_groups = {r["dup_group"] for r in rows.values() if r["dup_kind"] == "near"}
    assert kept and all(d["dup_group"] in near_groups for d in kept)
    assert all(d["dup_kind"] == "near" or d["is_canonical"] for d in kept)
    assert report["exact_duplicate_groups"] == [] and report["url_duplicate_groups"] == []
    assert report["near_duplicate_groups"] and report["meta"]["filters"]["kinds"] == ["near"]

    report = read_report(crawl, "--kind", "url", "--kind", "exact")
    assert report["near_duplicate_pairs"] == [] and report["near_duplicate_groups"] == []
    assert {d["dup_kind"] for d in report["documents"]} <= {"url", "exact", None}
    assert report["url_duplicate_groups"] and report["exact_duplicate_groups"]

    report = read_report(crawl, "--min-group-size", "3")
    assert report["documents"]
    assert all(d["dup_group_size"] >= 3 for d in report["documents"])
    expected = sum(1 for r in rows.values() if (r["dup_group_size"] or 0) >= 3)
    assert len(report["documents"]) == expected
    for key in ("near_duplicate_groups", "exact_duplicate_groups", "url_duplicate_groups"):
        assert all(g["size"] >= 3 for g in report[key])

    res = invoke("export", str(crawl), "--csv", "-", "--min-group-size", "3", "--quiet")
    lines = list(csv.reader(io.StringIO(res.stdout)))
    assert len(lines) - 1 == expected

    with pytest.raises(ValueError):
        ExportFilters(kinds=("fuzzy",))
    res = invoke("export", str(crawl), "--json", "-", "--kind", "fuzzy")
    assert res.exit_code == 2


def test_html_review_is_escaped_self_contained_and_ordered(crawl, tmp_path):
    out = tmp_path / "review.html"
    summary = export(crawl, html_path=out)
    page = out.read_text(encoding="utf-8")
    assert summary.review_groups and summary.review_groups > 0
    assert SCRIPT_TITLE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    # one script only, the page's own filters, allowed by its hash and nothing else
    from webdedup.output.html_review import SCRIPT, SCRIPT_HASH

    assert page.lower().count("<script") == 1 and f"<script>{SCRIPT}</script>" in page
    assert f"script-src 'sha256-{SCRIPT_HASH}'" in page
    assert "<nav class=\"toc\">" in page and page.count("<svg") == 2  # contents, pictures
    for needle in ("src=", "<link", "@import", "url("):
        assert needle not in page.lower()
    sizes = [int(s) for s in _group_sizes(page)]
    assert sizes == sorted(sizes, reverse=True) and len(sizes) == summary.review_groups
    assert "<ins>" in page and "<del>" in page  # the near copy's changed words
    assert re.search(r"edge 0\.\d{3} \(minhash\)", page)


def _group_sizes(page: str) -> list[str]:
    return re.findall(r"<h2>Group \d+ · (\d+) pages", page)


def test_word_diff_marks_and_escapes():
    left, right, ratio = word_diff("a <b> c d".split(), "a <b> x d e".split())
    assert left == "a &lt;b&gt; <del>c</del> d"
    assert right == "a &lt;b&gt; <ins>x</ins> d <ins>e</ins>"
    assert 0 < ratio < 1


@pytest.mark.slow
def test_bench_export_small_run_stays_small(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "benchmarks.speed.bench_export", "--pages", "20000",
         "--workdir", str(tmp_path), "--json-out"],
        capture_output=True, text=True, timeout=120, check=True, cwd=ROOT,
    )
    figures = json.loads(res.stdout.strip().splitlines()[-1])
    assert figures["pages"] == 20000 and figures["peak_rss_mb"] < 500


def test_the_export_benchmarks_database_has_its_groups(tmp_path):
    """bench_export builds its annotated database by hand: with the groups state a run
    leaves (by group and by kind too, schema 14), or it times an export without groups."""
    from benchmarks.speed.bench_export import build
    from webdedup.store.counts import count

    build(tmp_path / "bench.sqlite", 2000)
    conn = sqlite3.connect(tmp_path / "bench.sqlite")
    try:
        counted = count(conn, "pages")
    finally:
        conn.close()
    assert counted.groups > 100 and counted.duplicates > counted.groups


def test_mapped_columns_no_title_and_pages_added_after_the_run(tmp_path):
    texts = real_texts()
    conn = sqlite3.connect(tmp_path / "c.sqlite")
    conn.execute("CREATE TABLE crawl (link TEXT, body TEXT)")
    conn.executemany(
        "INSERT INTO crawl VALUES (?, ?)",
        [(f"https://a.example/{i}", t["text"]) for i, t in enumerate(texts[:5])]
        + [("https://a.example/0?utm_source=x", texts[0]["text"])],
    )
    conn.commit()
    path = tmp_path / "c.sqlite"
    res = invoke("db", str(path), "--table", "crawl", "--column", "url=link",
                 "--column", "content=body", "--quiet")
    assert res.exit_code == 0, res.output
    conn.execute("INSERT INTO crawl (link, body) VALUES ('https://late.example/', 'late page')")
    conn.commit()
    conn.close()
    report = read_report(path)
    assert report["meta"]["table"] == "crawl" and len(report["documents"]) == 7
    assert all(d["title"] is None for d in report["documents"])
    late = report["documents"][-1]
    assert late["url"] == "https://late.example/" and late["dup_group"] is None
    assert [g["size"] for g in report["url_duplicate_groups"]] == [2]
    out = tmp_path / "c.csv"
    assert invoke("export", str(path), "--csv", str(out), "--with-text").exit_code == 0
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0]["title"] == "" and rows[0]["text"] == texts[0]["text"]


def test_a_database_annotated_by_an_older_webdedup_asks_for_one_db_run(tmp_path):
    path = write_pages(tmp_path / "old.sqlite", crawl_with_duplicates(5))
    Deduplicator().run_on_db(path)
    conn = sqlite3.connect(path)  # as schema 3 left it
    conn.execute("ALTER TABLE _webdedup_prepared RENAME TO _prepared")
    conn.execute("UPDATE _webdedup_meta SET value = '3' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    res = invoke("export", str(path), "--json", str(tmp_path / "r.json"))
    assert res.exit_code == 3 and "older webdedup (state schema 3)" in res.output
    assert invoke("db", str(path), "-q").exit_code == 0  # upgrades the state: one full run
    assert invoke("export", str(path), "--json", str(tmp_path / "r.json")).exit_code == 0


def test_export_into_a_named_pipe_writes_through_it_and_leaves_it_a_pipe(tmp_path):
    """A path that is not a regular file (/dev/null, a pipe) is written to, never renamed
    over: 'export --json /dev/null' as root had replaced /dev/null with a file."""
    import os
    import stat
    import threading

    path = write_pages(tmp_path / "c.sqlite", crawl_with_duplicates(5))
    Deduplicator().run_on_db(path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    res = invoke("export", str(path), "--json", str(fifo))
    reader.join(timeout=10)
    assert res.exit_code == 0, res.output
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(got[0])["meta"]


def test_the_reports_documents_made_by_sqlite_are_the_python_ones_on_odd_cells(tmp_path):
    """The report's documents are JSON made by SQLite (json_object); they read back as the
    dicts of iter_documents on every odd cell a crawler stores: BLOB and integer URLs,
    invalid UTF-8 and control characters in titles, quotes, non-Latin scripts."""
    from webdedup.output.json_report import iter_documents, iter_documents_json
    from webdedup.output.source import open_source

    texts = real_texts(12)
    db = write_pages(tmp_path / "odd.sqlite", [
        make_page(f"https://odd.example/{i}", t["text"], title=f"Title {i}")
        for i, t in enumerate(texts)
    ] + [make_page("https://odd.example/copy", texts[0]["text"], title="copy")])
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE pages SET url = CAST(url AS BLOB) WHERE id = 2")
        conn.execute("UPDATE pages SET url = 12345 WHERE id = 3")
        conn.execute("UPDATE pages SET title = CAST(X'4162FF6364' AS TEXT) WHERE id = 4")
        conn.execute("UPDATE pages SET title = X'C3A9E29C93FF' WHERE id = 5")
        conn.execute("UPDATE pages SET title = ? WHERE id = 6",
                     ('tab\there "quoted" \\ back\nslash \x01 ctl \u2028 漢字 ünï',))
        conn.execute("UPDATE pages SET title = NULL WHERE id = 7")
    Deduplicator().run_on_db(db)
    with open_source(db) as (conn, layout):
        python = list(iter_documents(conn, layout, ExportFilters()))
        made = [json.loads(doc) for doc in iter_documents_json(conn, layout, ExportFilters())]
    assert made == python and len(made) == len(texts) + 1
    doc = {d["id"]: d for d in made}
    assert doc[4]["title"] == "Ab\ufffdcd" and doc[2]["url"] == "https://odd.example/1"
    assert doc[5]["title"] == "é✓\ufffd" and doc[6]["title"].startswith('tab\there "quoted"')
    assert doc[3]["url"] == "12345" and doc[7]["title"] is None  # (TEXT affinity)
    assert isinstance(doc[1]["is_canonical"], bool) and doc[1]["dup_score"] == 1.0


def test_the_reports_near_pairs_made_by_sqlite_are_the_python_ones_on_odd_cells(tmp_path):
    """The report's near pairs are JSON made by SQLite (``near_pairs_json.sql``); they read
    back as the rows of ``near_pairs.sql`` as a Python dict each (what the report wrote before)
    on the odd cells of both pages of a pair: BLOB, integer and NULL URLs, invalid UTF-8,
    control characters and non-Latin scripts in titles; and with ``--min-group-size``."""
    from webdedup.output.json_report import _rows, iter_near_pairs
    from webdedup.output.source import open_source
    from webdedup.store import split_statements

    texts = real_texts(10)
    pages = []
    for i, t in enumerate(texts):
        words = t["text"].split()
        pages.append(make_page(f"https://odd.example/{i}", t["text"], title=f"Title {i}"))
        edited = " ".join(words[:-3] + ["edited", "ending", "here"])
        pages.append(make_page(f"https://odd.example/{i}/copy", edited, title=f"Copy {i}"))
    db = write_pages(tmp_path / "odd.sqlite", pages)
    Deduplicator().run_on_db(db)
    with sqlite3.connect(db) as conn:
        ids = [i for (i,) in conn.execute(
            "SELECT a FROM _webdedup_edges UNION SELECT b FROM _webdedup_edges ORDER BY 1")]
        assert len(ids) >= 8, ids
        odd = (("url", "CAST(url AS BLOB)"), ("url", "12345"), ("url", "NULL"),
               ("title", "CAST(X'4162FF6364' AS TEXT)"), ("title", "X'C3A9E29C93FF'"),
               ("title", "'tab' || char(9) || '\"q\" \\ ' || char(1) || ' 漢字 ünï'"),
               ("title", "NULL"), ("url", "'https://odd.example/ü?q=\"x\"'"))
        for page, (column, value) in zip(ids, odd, strict=False):
            conn.execute(f"UPDATE pages SET {column} = {value} WHERE id = ?", (page,))
    for filters in (ExportFilters(), ExportFilters(min_group_size=3)):
        with open_source(db) as (conn, layout):
            made = [json.loads(pair) for pair in iter_near_pairs(conn, layout, filters)]
            for statement in split_statements(layout.sql("near_pairs_rows")):
                conn.execute(statement)
            python = list(_rows(conn.execute(
                layout.sql("near_pairs"), {"min_size": filters.params()["min_size"]})))
        assert made == python
        if filters.min_group_size is None:
            assert len(made) >= 4 and {p["url_i"] for p in made} & {12345, None}
            assert any(p["title_i"] == "Ab\ufffdcd" or p["title_j"] == "Ab\ufffdcd"
                       for p in made)


def test_the_report_reads_the_crawlers_table_in_rowid_order(crawl):
    """The groups' members and the near pairs' pages are looked up in the crawler's table in
    id order (``sql/export/kind_rows.sql``, ``near_pairs_rows.sql``): looked up group by group,
    or by the second page of pairs in (a, b) order, each was a read at a random place of a
    table that at ten million pages no longer fits the page cache (4,294 s for the report
    there, 19.7 s at a million). Each plan walks a table in id order (a TEMP table filled in
    that order, or the edges in their key order) and searches the pages by rowid."""
    from webdedup.output.source import open_source
    from webdedup.store import split_statements

    with open_source(crawl) as (conn, layout):
        plans = {}
        for name, params in (("kind_rows", {"kind": "exact", "min_size": None}),
                             ("near_pairs_rows", {})):
            for statement in split_statements(layout.sql(name)):  # as _section runs them
                if "JOIN" in statement:
                    plans[name] = [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + statement,
                                                              params)]
                conn.execute(statement, params)
        plans["near_pairs"] = [r[3] for r in conn.execute(
            "EXPLAIN QUERY PLAN " + layout.sql("near_pairs"), {"min_size": None})]
        pairs = layout.sql("near_pairs").strip().rstrip(";")
        plans["near_pairs_json"] = [r[3] for r in conn.execute(
            "EXPLAIN QUERY PLAN " + layout.sql("near_pairs_json", pairs=pairs),
            {"min_size": None})]
        plans["thin_pages"] = [r[3] for r in conn.execute(
            "EXPLAIN QUERY PLAN " + layout.sql("thin_pages"))]
        # the report's own sections leave no TEMP table behind, even when stopped halfway
        from webdedup.output.json_report import iter_exact_groups, iter_near_pairs

        for section in (iter_near_pairs, iter_exact_groups):
            items = section(conn, layout, ExportFilters())
            assert next(items) is not None
            items.close()
        left = {name for (name,) in conn.execute("SELECT name FROM temp.sqlite_schema")}
    assert plans["kind_rows"][:2] == [
        "SCAN m", "SEARCH p USING INTEGER PRIMARY KEY (rowid=?)"], plans
    assert plans["near_pairs_rows"][:2] == [
        "SCAN e", "SEARCH pa USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN"], plans
    for name in ("near_pairs", "near_pairs_json"):
        assert [p for p in plans[name] if "SUBQUERY" not in p][:2] == [
            "SCAN t", "SEARCH pb USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN"], plans
    # the few thin pages are looked up (a scan of every page's kind took 1.4 s at a million)
    assert plans["thin_pages"] == ["SCAN t", "SEARCH p USING INTEGER PRIMARY KEY (rowid=?)"]
    assert left == set()
