"""webdedup ingest on real crawl files from /work/shared/data (offline)."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from webdedup import Columns, Deduplicator
from webdedup.cli import cli
from webdedup.errors import IngestProblems
from webdedup.ingest import IngestWarning, ingest

DATA = Path("/work/shared/data")
WARC = DATA / "warc"
MALFORMED = WARC / "malformed"
# Files that are broken (each must give a warning naming the file and an offset).
BROKEN = [
    "bad.arc",
    "badexample.arc.gz",
    "clipped.warc.gz",
    "example-bad-non-chunked.warc.gz",
    "example-trunc.warc",
    "example-wrong-chunks.warc.gz",
]
# Unusual but valid files: read without a warning, their HTML responses become pages.
VALID_UNUSUAL = {
    "example.arc.gz": 1,
    "transfer_compression_gzip.warc.gz": 1,
    "example-resource.warc.gz": 0,
    "example-space-in-target-uri.warc.gz": 0,
    "example-digest.warc": 0,  # payload-digest mismatch on request records only
}

pytestmark = pytest.mark.skipif(not DATA.exists(), reason="needs /work/shared/data")


def rows(db: Path, query: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(query).fetchall()


def run_cli(*args: str):
    return CliRunner().invoke(cli, ["ingest", *args], catch_exceptions=False)


def test_warc_counts_and_columns(tmp_path: Path) -> None:
    db = tmp_path / "crawl.sqlite"
    report = ingest(db, [WARC / "aut-2008-crawl.warc.gz"], workers=2)
    assert report.ok
    assert report.pages == 94
    assert dict(report.skipped) == {
        "other_record": 561, "not_html": 120, "error": 40, "redirect": 7,
    }
    cols = [r[1] for r in rows(db, "PRAGMA table_info(pages)")]
    assert cols[0] == "id" and "html" not in cols
    for name in ("url", "title", "content", "datetime", "crawled", "content_type", "status",
                 "warc_record_id", "source_file", "extraction"):
        assert name in cols
    assert rows(db, "SELECT count(*) FROM pages WHERE status <> 200") == [(0,)]
    empty = rows(db, "SELECT count(*) FROM pages WHERE extraction = 'empty'")[0][0]
    assert empty == report.empty_extractions
    assert rows(db, "SELECT count(*) FROM pages WHERE extraction = 'empty' AND content <> ''")\
        == [(0,)]


def test_revisits_resolve_within_and_across_files(tmp_path: Path) -> None:
    db = tmp_path / "iana.sqlite"
    report = ingest(db, [WARC / "iana-revisits.warc.gz", WARC / "iana-dupes.warc.gz"],
                    workers=1)
    assert report.revisits == 2 and report.skipped["revisit_unresolved"] == 0
    got = rows(db, "SELECT url, content, datetime FROM pages WHERE url = 'http://www.iana.org/' "
                   "ORDER BY datetime")
    assert len(got) == 2 and got[0][1] == got[1][1] and got[0][1]
    assert got[0][2] < got[1][2]


def test_nightly_recrawl_joins_first_captures(tmp_path: Path) -> None:
    db = tmp_path / "gov.sqlite"
    first = ingest(db, [WARC / "datagovuk-crawl1.warc.gz"], workers=2)
    assert first.pages == 32
    Deduplicator().run_on_db(db)
    second = ingest(db, [WARC / "datagovuk-crawl2.warc.gz"], workers=2)
    assert second.revisits == 26 and second.pages == 32
    nightly = Deduplicator().run_on_db(db)
    # the second db run is incremental: the 32 new pages, and the first captures they join
    assert nightly.mode == "incremental" and nightly.processed == 64
    pairs = rows(
        db,
        "SELECT a.url, a.dup_group = b.dup_group FROM pages a JOIN pages b "
        "ON a.url = b.url AND a.id < b.id WHERE b.source_file LIKE '%crawl2%'",
    )
    assert len(pairs) >= 30
    assert all(same for _, same in pairs)
    # revisits are exact duplicates of the capture they refer to
    exact = rows(db, "SELECT count(*) FROM pages WHERE source_file LIKE '%crawl2%' "
                     "AND extraction IS NOT NULL AND dup_kind IN ('exact', 'url') "
                     "OR (source_file LIKE '%crawl2%' AND is_canonical = 1)")
    assert exact[0][0] == 32


def test_twice_ingest_adds_nothing(tmp_path: Path) -> None:
    db = tmp_path / "twice.sqlite"
    files = [WARC / "iana-dupes.warc.gz", MALFORMED / "example.arc.gz"]
    with _nowarn():
        a = ingest(db, files, workers=1)
    b = ingest(db, files, workers=1)
    assert a.pages == 3 and b.pages == 0 and b.files_already_ingested == 2
    assert rows(db, "SELECT count(*) FROM pages") == [(3,)]
    # a copy of the same records under another name: keyed by WARC-Record-ID
    copy = tmp_path / "copy.warc.gz"
    copy.write_bytes((WARC / "iana-dupes.warc.gz").read_bytes() + b"")
    c = ingest(db, [copy], workers=1)
    assert c.files_already_ingested == 1 and c.pages == 0


class _nowarn:
    def __enter__(self):
        import warnings

        self.cm = warnings.catch_warnings()
        self.cm.__enter__()
        warnings.simplefilter("error", IngestWarning)

    def __exit__(self, *exc):
        return self.cm.__exit__(*exc)


@pytest.mark.parametrize("name", BROKEN)
def test_malformed_file_warns_with_file_and_offset(tmp_path: Path, name: str) -> None:
    db = tmp_path / "bad.sqlite"
    good = WARC / "iana-dupes.warc.gz"
    result = run_cli(str(db), str(MALFORMED / name), str(good), "--workers", "1", "-q")
    assert result.exit_code == 7
    warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("warning:")]
    assert warnings, result.stderr
    assert all(name in ln and "at offset" in ln for ln in warnings)
    # the other file's records went in
    assert rows(db, "SELECT count(*) FROM pages WHERE source_file LIKE '%iana-dupes%'")[0][0] >= 2


def test_malformed_good_records_go_in(tmp_path: Path) -> None:
    db = tmp_path / "bad.sqlite"
    with pytest.warns(IngestWarning, match="example-bad-non-chunked.warc.gz at offset 0"):
        report = ingest(db, [MALFORMED / "example-bad-non-chunked.warc.gz"], workers=1)
    assert report.pages >= 1
    with pytest.warns(IngestWarning, match=r"example-trunc.warc at offset 1197"):
        ingest(db, [MALFORMED / "example-trunc.warc"], workers=1)


@pytest.mark.parametrize("name,pages", sorted(VALID_UNUSUAL.items()))
def test_unusual_valid_files(tmp_path: Path, name: str, pages: int) -> None:
    with _nowarn():
        report = ingest(tmp_path / "u.sqlite", [MALFORMED / name], workers=1)
    assert report.ok and report.pages == pages


def test_strict_stops_at_first_problem(tmp_path: Path) -> None:
    db = tmp_path / "strict.sqlite"
    good = WARC / "iana-dupes.warc.gz"
    result = run_cli(str(db), str(good), str(MALFORMED / "clipped.warc.gz"),
                     str(MALFORMED / "example.arc.gz"), "--strict", "--workers", "1", "-q")
    assert result.exit_code == 7
    assert "clipped.warc.gz at offset 0" in result.stderr
    assert rows(db, "SELECT DISTINCT source_file FROM pages") == [(str(good),)]
    with pytest.raises(IngestProblems):
        ingest(db, [MALFORMED / "bad.arc"], strict=True, workers=1)


def test_column_mapping_on_append(tmp_path: Path) -> None:
    db = tmp_path / "crawler.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, link TEXT, body TEXT)")
        conn.execute("INSERT INTO pages (link, body) VALUES ('http://a.org/', 'old')")
    result = run_cli(str(db), str(WARC / "iana-dupes.warc.gz"), "--column", "url=link",
                     "--column", "content=body", "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "2 pages added" in result.stdout and "redirect 1" in result.stdout
    cols = [r[1] for r in rows(db, "PRAGMA table_info(pages)")]
    assert cols[:3] == ["id", "link", "body"] and "url" not in cols and "extraction" in cols
    got = rows(db, "SELECT link, body <> '' FROM pages ORDER BY id")
    assert got[0] == ("http://a.org/", 1) and len(got) == 3


def test_jsonl_text_html_and_field_names(tmp_path: Path) -> None:
    src = tmp_path / "pages.jsonl.gz"
    page = (DATA / "html/aed").glob("*.html.gz").__next__()
    html = gzip.open(page).read().decode("utf-8", "replace")
    lines = [
        {"link": "http://a.org/1", "body": "Given text, kept as is."},
        {"link": "http://a.org/2", "raw": html},
        {"nolink": True},
    ]
    src.write_bytes(gzip.compress(
        ("\n".join(json.dumps(x) for x in lines) + "\n{broken\n").encode()
    ))
    db = tmp_path / "j.sqlite"
    with pytest.warns(IngestWarning, match=r"pages.jsonl.gz at offset \d+: line 4"):
        report = ingest(db, [src], workers=1,
                        jsonl_fields={"url": "link", "text": "body", "html": "raw"})
    assert report.pages == 2 and report.skipped["no_url"] == 1
    got = rows(db, "SELECT url, content, extraction, title FROM pages ORDER BY id")
    assert got[0][:3] == ("http://a.org/1", "Given text, kept as is.", "given")
    assert got[1][2] == "ok" and len(got[1][1]) > 200 and got[1][3]


def test_html_folder_urls_from_sidecar_canonical_or_name(tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    aed = sorted((DATA / "html/aed").glob("*.html.gz"))[:3]
    for p in aed:
        (folder / p.name).write_bytes(p.read_bytes())
    manifest = json.loads((DATA / "html/aed/articles.json").read_text())
    first = aed[0].name[: -len(".html.gz")]
    (folder / "articles.json").write_text(json.dumps({first: manifest[first]}))
    (folder / "canon.html").write_text(
        '<html><head><link rel="canonical" href="https://example.org/c"></head>'
        "<body><p>" + "Some words here. " * 30 + "</p></body></html>"
    )
    (folder / "bare.html").write_text("<html><body></body></html>")
    db = tmp_path / "h.sqlite"
    report = ingest(db, [folder], workers=1, keep_html=True)
    assert report.pages == 5
    urls = {u for (u,) in rows(db, "SELECT url FROM pages")}
    assert manifest[first]["url"] in urls
    assert "https://example.org/c" in urls and "bare.html" in urls
    assert rows(db, "SELECT extraction FROM pages WHERE url = 'bare.html'") == [("empty",)]
    assert rows(db, "SELECT count(*) FROM pages WHERE html IS NULL") == [(0,)]
    assert ingest(db, [folder], workers=1).pages == 0


def test_cli_help_has_example() -> None:
    result = CliRunner().invoke(cli, ["ingest", "--help"])
    assert result.exit_code == 0 and "Example:" in result.output


def test_columns_default_is_pages() -> None:
    assert Columns().table == "pages"


def test_sample_fixture_matches_its_jsonl(tmp_path: Path) -> None:
    fixtures = FIXTURES
    db = tmp_path / "sample.sqlite"
    report = ingest(db, [fixtures / "sample-crawl.warc.gz"], workers=2)
    expected = [json.loads(x) for x in gzip.open(fixtures / "sample-crawl.jsonl.gz")]
    assert report.ok and report.pages == len(expected) and report.revisits > 0
    assert report.skipped["redirect"] and report.skipped["error"] and report.skipped["not_html"]
    got = rows(db, "SELECT url, content FROM pages ORDER BY id")
    assert got == [(e["url"], e["content"]) for e in expected]


@pytest.mark.parametrize("mapping", [["url=id"], ["content=Status"], ["title=url"]])
def test_a_mapping_that_names_one_column_twice_is_refused(tmp_path, mapping):
    """Found by the adversarial suite: '--column url=id' on a new database was exit 1."""
    db = tmp_path / "new.sqlite"
    args = ["ingest", str(db), str(FIXTURES / "sample-crawl.warc.gz"), "-q"]
    for m in mapping:
        args += ["--column", m]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "two columns named" in result.output
    assert not db.exists()


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("name", ["notes.txt", "notes.jsonl"])
def test_a_file_that_is_no_crawl_leaves_no_database_and_is_said_once(tmp_path, name, strict):
    """Exit 7, nothing went in: no new database file is left behind (with or without
    --strict), and a text file of many lines gets one warning, not one a line."""
    src = tmp_path / name
    src.write_text("".join(f"line {i} of a plain text file\n" for i in range(200)))
    db = tmp_path / "new.sqlite"
    args = ["ingest", str(db), str(src), "--quiet"] + (["--strict"] if strict else [])
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 7, res.output
    assert not list(tmp_path.glob("new.sqlite*"))
    assert res.output.count(str(src)) == 1, res.output
    assert "nothing went in" in res.output or strict


def test_a_jsonl_file_with_one_bad_line_keeps_its_good_lines(tmp_path):
    """The once-only warning is for files whose first lines are all bad: a JSONL file with
    a bad line among good ones still warns about that line and stores the others."""
    from webdedup.ingest import ingest

    src = tmp_path / "pages.jsonl"
    good = '{"url": "https://a.example/%d", "text": "page %d text"}\n'
    src.write_text("not json\n" + good % (1, 1) + "still not json\n" + good % (2, 2))
    problems: list[object] = []
    report = ingest(tmp_path / "c.sqlite", [src], workers=1, on_problem=problems.append)
    assert report.pages == 2
    assert [str(p).split(": ", 1)[1][:6] for p in problems] == ["line 1", "line 3"]


def test_good_jsonl_lines_after_many_bad_ones_still_go_in(tmp_path):
    """Bad lines before the first good one are counted, not the end of the file: the good
    lines after them are stored, the first bad ones named and the rest counted."""
    from webdedup.ingest import ingest

    src = tmp_path / "pages.jsonl"
    good = '{"url": "https://a.example/%d", "text": "page %d text"}\n'
    src.write_text("x\n" * 5 + good % (1, 1) + good % (2, 2))
    problems: list[object] = []
    report = ingest(tmp_path / "c.sqlite", [src], workers=1, on_problem=problems.append)
    assert report.pages == 2
    said = [str(p) for p in problems]
    assert len(said) == 4 and "and 2 more bad lines" in said[-1]
