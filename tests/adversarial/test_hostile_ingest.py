"""Adversarial ingest (issue 28): one bad record never costs the good ones, copies are pages,
and a worker that cannot start stops the command.

The hostile files are built from real records of ../shared/data/warc and real texts: a real
page, then the hostile record, then another real page. Every case must end with exit 7, a
warning naming the file and the hostile record's offset, and both real pages stored.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sqlite3
import struct
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from conftest import SHARED_DATA, real_texts
from hostile import assert_clean, cli
from warcio.archiveiterator import ArchiveIterator

from webdedup.errors import WorkerFailed
from webdedup.parallel import WorkerPool, ordered_map

WARC = SHARED_DATA / "warc" / "aut-2008-crawl.warc.gz"
HTML = SHARED_DATA / "html"
MIB = 1 << 20


def real_pages(n: int) -> list[bytes]:
    """The HTML of ``n`` real saved pages."""
    return [gzip.decompress(p.read_bytes()) for p in sorted(HTML.rglob("*.html.gz"))[:n]]


@dataclass(frozen=True)
class Member:
    """One record of a real WARC: its gzip member as stored, and its URL."""

    url: str
    gz: bytes

    @property
    def raw(self) -> bytes:
        return gzip.decompress(self.gz)


@cache
def html_members(n: int = 3) -> tuple[Member, ...]:
    """The gzip members of the first ``n`` HTML 200 responses (distinct URLs) of a real WARC."""
    data = WARC.read_bytes()
    out: list[Member] = []
    with open(WARC, "rb") as fh:
        it = ArchiveIterator(fh)
        for record in it:
            url = record.rec_headers.get_header("WARC-Target-URI") or ""
            ctype = record.http_headers.get_header("Content-Type") if record.http_headers else ""
            ok = (record.rec_type == "response" and record.http_headers is not None
                  and record.http_headers.get_statuscode() == "200"
                  and "text/html" in (ctype or "") and url not in {m.url for m in out})
            record.content_stream().read()
            start, length = it.get_record_offset(), it.get_record_length()
            if ok:
                out.append(Member(url, data[start:start + length]))
                if len(out) == n:
                    break
    assert len(out) == n
    return tuple(out)


def gz_member(raw: bytes, level: int = 9) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    return c.compress(raw) + c.flush()


def bomb_record(member: Member, size: int) -> bytes:
    """``member``'s response with an HTML body of ``size`` bytes (mostly spaces), as one gzip
    member of about ``size / 1000`` bytes. The record is well formed (lengths fixed, digests
    dropped): only big. Built without holding it whole: after a full flush deflate forgets
    what came before, so the compressed form of each MiB of spaces is the same bytes."""
    head, _, rest = member.raw.partition(b"\r\n\r\n")  # the WARC headers, the block
    http_head = rest.split(b"\r\n\r\n", 1)[0]
    http_head = re.sub(rb"(?im)^(content-length|content-encoding|transfer-encoding):[^\r\n]*"
                       rb"\r\n?", b"", http_head)
    start = http_head + b"\r\n\r\n<html><body>"
    piece, times = b" " * MIB, (size - 12) // MIB
    block_len = len(start) + len(piece) * times
    warc_head = re.sub(rb"(?im)^WARC-(Block|Payload)-Digest:[^\r\n]*\r\n", b"", head + b"\r\n")
    warc_head = re.sub(rb"(?im)^Content-Length:[^\r\n]*", f"Content-Length: {block_len}".encode(),
                       warc_head)
    return gzip_of_repeats(warc_head + b"\r\n" + start, piece, times, b"\r\n\r\n")


def gzip_of_repeats(prefix: bytes, piece: bytes, times: int, suffix: bytes) -> bytes:
    """One gzip member of ``prefix + piece * times + suffix``, without building that."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate: the gzip frame is added below
    first = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(piece) + c.flush(zlib.Z_FULL_FLUSH)
    last = c.compress(suffix) + c.flush()
    crc = zlib.crc32(prefix)
    for _ in range(times):
        crc = zlib.crc32(piece, crc)
    crc = zlib.crc32(suffix, crc)
    length = len(prefix) + len(piece) * times + len(suffix)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + first + block * times + last
            + struct.pack("<II", crc, length & 0xFFFFFFFF))


def urls(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {u for (u,) in conn.execute("SELECT url FROM pages")}
    finally:
        conn.close()


def assert_bad_record_only(res, db: Path, path: Path, offset: int, good: set[str]) -> None:
    """Exit 7, a warning naming the file and the offset, and every good page stored."""
    assert_clean(res, codes=frozenset({7}))
    assert f"warning: {path} at offset {offset}:" in res.output, res.output
    assert urls(db) == good


# -- item 3: one bad record never loses the good ones ----------------------------------------

@pytest.mark.parametrize("compressed", [True, False], ids=["gzip", "plain"])
def test_content_length_too_large_to_be_real(tmp_path, compressed):
    a, b, _ = html_members()
    bad = re.sub(rb"(?im)^Content-Length: *\d+", b"Content-Length: 1" + b"0" * 29, a.raw,
                 count=1)
    parts = [a.gz, gz_member(bad), b.gz] if compressed else [a.raw, bad, b.raw]
    path = tmp_path / ("huge-length.warc" + (".gz" if compressed else ""))
    path.write_bytes(b"".join(parts))
    db = tmp_path / "p.sqlite"
    res = cli("ingest", db, path, "--workers", "1", "-q")
    assert_bad_record_only(res, db, path, len(parts[0]), {a.url, b.url})


def test_jsonl_line_nested_100000_deep(tmp_path):
    texts = real_texts()[:2]
    good = [json.dumps({"url": f"https://nest.example/{i}", "text": t["text"]}) + "\n"
            for i, t in enumerate(texts)]
    deep = '{"url": "https://nest.example/deep", "text": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    path = tmp_path / "nested.jsonl"
    path.write_text(good[0] + deep + good[1], encoding="utf-8")
    db = tmp_path / "p.sqlite"
    res = cli("ingest", db, path, "--workers", "1", "-q")
    assert_bad_record_only(res, db, path, len(good[0].encode()),
                           {"https://nest.example/0", "https://nest.example/1"})


def test_gzip_bomb_record_is_skipped_under_the_limit_option(tmp_path):
    a, b, c = html_members()
    bomb = bomb_record(c, 40 * MIB)  # 40 MiB of HTML in ~40 KiB
    path = tmp_path / "bomb.warc.gz"
    path.write_bytes(a.gz + bomb + b.gz)
    db = tmp_path / "p.sqlite"
    res = cli("ingest", db, path, "--workers", "1", "-q", "--max-record-size", "8M")
    assert_bad_record_only(res, db, path, len(a.gz), {a.url, b.url})
    assert "more than 8,388,608 bytes once decompressed" in res.output
    # the same record under a limit it fits in is a page like any other
    db2 = tmp_path / "q.sqlite"
    res = cli("ingest", db2, path, "--workers", "1", "-q", "--max-record-size", "64M")
    assert_clean(res, codes=frozenset({0}))
    assert urls(db2) == {a.url, b.url, c.url}


def test_gzip_bomb_in_the_headers(tmp_path):
    """A member whose headers never end: refused at the limit, not read to its end."""
    a, b, _ = html_members()
    head = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://bomb.example/\r\nX-Pad: "
    bomb = gzip_of_repeats(head, b"a" * MIB, 40, b"\r\n\r\n")  # one 40 MiB header line
    path = tmp_path / "header-bomb.warc.gz"
    path.write_bytes(a.gz + bomb + b.gz)
    db = tmp_path / "p.sqlite"
    res = cli("ingest", db, path, "--workers", "1", "-q", "--max-record-size", "8M")
    assert_bad_record_only(res, db, path, len(a.gz), {a.url, b.url})
    assert "the record's headers: more than 8,388,608 bytes" in res.output


def test_gzip_bomb_jsonl_line_and_html_file(tmp_path):
    texts = real_texts()[:2]
    good = [json.dumps({"url": f"https://b.example/{i}", "text": t["text"]}) + "\n"
            for i, t in enumerate(texts)]
    bomb = '{"url": "https://b.example/bomb", "text": "' + " " * (3 * MIB) + '"}\n'
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(gzip.compress((good[0] + bomb + good[1]).encode()))
    db = tmp_path / "p.sqlite"
    res = cli("ingest", db, path, "--workers", "1", "-q", "--max-record-size", "1M")
    assert_bad_record_only(res, db, path, len(good[0].encode()),
                           {"https://b.example/0", "https://b.example/1"})

    folder = tmp_path / "saved"
    folder.mkdir()
    for i, page in enumerate(real_pages(2)):
        (folder / f"p{i}.html").write_bytes(page)
        (folder / f"p{i}.url").write_text(f"https://saved.example/{i}")
    (folder / "zbomb.html.gz").write_bytes(gzip.compress(b"<html>" + b" " * (3 * MIB)))
    (folder / "zbomb.url").write_text("https://saved.example/bomb")
    db = tmp_path / "f.sqlite"
    res = cli("ingest", db, folder, "--workers", "1", "-q", "--max-record-size", "1M")
    assert_bad_record_only(res, db, folder / "zbomb.html.gz", 0,
                           {"https://saved.example/0", "https://saved.example/1"})


def _peak_ingest(db: Path, path: Path) -> tuple[int, str, float]:
    """Exit code, stderr and peak RSS in MiB (VmHWM) of ``webdedup ingest`` in a child."""
    code = (
        "import sys\n"
        "from webdedup.cli import cli\n"
        "try:\n"
        f"    cli(['ingest', {str(db)!r}, {str(path)!r}, '--workers', '1', '-q'],"
        " prog_name='webdedup')\n"
        "finally:\n"
        "    print(next(line.split()[1] for line in open('/proc/self/status')"
        " if line.startswith('VmHWM:')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    return out.returncode, out.stderr, int(out.stdout.split()[-1]) / 1024


def test_default_limit_refuses_a_bomb_bigger_than_it_in_bounded_memory(tmp_path):
    """A 1 GiB bomb (one MiB on disk) against the default 64 MiB limit: refused, and
    the process never holds the bomb (the code before the limit held it several times)."""
    a, b, c = html_members()
    bomb = bomb_record(c, 1024 * MIB)
    path = tmp_path / "bomb.warc.gz"
    path.write_bytes(a.gz + bomb + b.gz)
    db = tmp_path / "p.sqlite"
    code, err, peak = _peak_ingest(db, path)
    assert code == 7, err
    assert f"warning: {path} at offset {len(a.gz)}:" in err
    assert "more than 67,108,864 bytes once decompressed" in err
    assert urls(db) == {a.url, b.url}
    assert peak < 448, peak  # the 64 MiB limit, a copy of it, and the interpreter


# -- item 4: copies are pages ----------------------------------------------------------------

def sources(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return sorted(s for (s,) in conn.execute("SELECT source_file FROM pages"))
    finally:
        conn.close()


def test_byte_identical_html_files_under_two_paths_are_two_pages(tmp_path):
    (page,) = real_pages(1)
    folder = tmp_path / "site"
    (folder / "a").mkdir(parents=True)
    (folder / "b").mkdir()
    (folder / "a" / "index.html").write_bytes(page)
    (folder / "b" / "index.html").write_bytes(page)  # an exact copy: what webdedup counts
    db = tmp_path / "p.sqlite"
    assert_clean(cli("ingest", db, folder, "--workers", "1", "-q"), codes=frozenset({0}))
    assert sources(db) == [str(folder / "a" / "index.html"), str(folder / "b" / "index.html")]
    # the same files at the same paths again add nothing
    res = cli("ingest", db, folder, "--workers", "1")
    assert_clean(res, codes=frozenset({0}))
    assert "0 pages added" in res.output and "already_ingested 2" in res.output
    assert len(sources(db)) == 2
    # two byte-identical single files given by name are two pages too, and once only
    (tmp_path / "one.html").write_bytes(page)
    (tmp_path / "two.html").write_bytes(page)
    db2 = tmp_path / "q.sqlite"
    for _ in range(2):
        res = cli("ingest", db2, tmp_path / "one.html", tmp_path / "two.html",
                  "--workers", "1", "-q")
        assert_clean(res, codes=frozenset({0}))
    assert sources(db2) == [str(tmp_path / "one.html"), str(tmp_path / "two.html")]


def test_a_folder_ingested_by_an_older_webdedup_is_not_ingested_again(tmp_path):
    """Older versions keyed an HTML file by its hash alone ('<sha256>:0'): such a record,
    for the same file, still counts as ingested."""
    folder = tmp_path / "site"
    folder.mkdir()
    for i, page in enumerate(real_pages(2)):
        (folder / f"p{i}.html").write_bytes(page)
    db = tmp_path / "p.sqlite"
    assert_clean(cli("ingest", db, folder, "--workers", "1", "-q"), codes=frozenset({0}))
    conn = sqlite3.connect(db)
    with conn:  # the keys as the older webdedup wrote them
        conn.execute("UPDATE _webdedup_ingested SET record_key = "
                     "substr(record_key, 1, instr(record_key, ':')) || '0'")
    conn.close()
    res = cli("ingest", db, folder, "--workers", "1")
    assert_clean(res, codes=frozenset({0}))
    assert "0 pages added" in res.output and len(sources(db)) == 2


# -- item 7: a worker that cannot start stops the command ------------------------------------

def broken_install(tmp_path: Path) -> dict[str, str]:
    """An environment where lxml's cleaner (which jusText, under trafilatura, imports) is
    broken: a module of that name first on the path, failing on import as a missing one."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "lxml_html_clean.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'lxml_html_clean'\", "
        "name='lxml_html_clean')\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(shadow), env.get("PYTHONPATH")]))
    return env


def run_cli(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", "from webdedup.cli import main; main()", *args],
        capture_output=True, text=True, env=env, timeout=120,
    )
    return out, time.monotonic() - t0


def assert_stopped_by_worker(out: subprocess.CompletedProcess, seconds: float) -> None:
    assert out.returncode == WorkerFailed.exit_code == 9, (out.returncode, out.stderr)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr  # one line: no traceback, no warning per restart
    assert lines[0].startswith("Error: a ") and "lxml_html_clean" in lines[0], lines
    assert seconds < 60, seconds


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ingest_stops_when_the_extraction_cannot_start(tmp_path, workers):
    env = broken_install(tmp_path)
    db = tmp_path / "p.sqlite"
    out, seconds = run_cli(["ingest", str(db), str(WARC), "--workers", workers, "-q"], env)
    assert_stopped_by_worker(out, seconds)
    assert not db.exists()  # the database it would have created is not left behind


def test_db_prepare_workers_stop_when_the_extraction_cannot_start(tmp_path):
    """Pages with HTML and no text: the prepare workers extract, and cannot."""
    db = tmp_path / "html.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT, html TEXT)")
    conn.executemany(
        "INSERT INTO pages (url, content, html) VALUES (?, '', ?)",
        [(f"https://h.example/{i}", p.decode("utf-8", "replace"))
         for i, p in enumerate(real_pages(6))],
    )
    conn.commit()
    conn.close()
    out, seconds = run_cli(["db", str(db), "--workers", "2", "-q"], broken_install(tmp_path))
    assert_stopped_by_worker(out, seconds)


def crash_at_start() -> None:
    os._exit(3)  # a worker that dies at start-up without a word (a crash in an import)


def fail_at_start() -> None:
    import webdedup_missing_module  # noqa: F401


def import_broken(x: int) -> int:
    import webdedup_broken_module  # noqa: F401 - on sys.path, raising ImportError

    return x


def test_worker_pool_stops_at_a_worker_that_cannot_start():
    for setup, cause in ((fail_at_start, "webdedup_missing_module"),
                         (crash_at_start, "ended abruptly")):
        t0 = time.monotonic()
        with pytest.raises(WorkerFailed, match=cause), WorkerPool(2, setup) as pool:
            list(pool.map(abs, [(-i,) for i in range(50)]))
        assert time.monotonic() - t0 < 30


def test_ordered_map_stops_at_an_import_error_in_a_job(tmp_path, monkeypatch):
    (tmp_path / "webdedup_broken_module.py").write_text("raise ImportError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for workers in (1, 2):
        with pytest.raises(WorkerFailed, match="broken on purpose"):
            list(ordered_map(import_broken, [(i,) for i in range(20)], workers))
