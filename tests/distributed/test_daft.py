"""The Daft path (``webdedup export --parquet``, ``webdedup daft``, ``webdedup db --assignments``):
the same answer as ``webdedup db`` on a labelled corpus, natively and on a local Ray cluster
started here, the hand-off back into SQLite (the next run is incremental and equals a full
run), and refusals of bad input.

Daft fixes its runner once per process: the native runs happen in this process, the Ray run
in a child process.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import OUTPUT, ROOT, annotations, dump, real_texts

from benchmarks.corpus import make_corpus
from webdedup import Config, Deduplicator
from webdedup.cli import cli
from webdedup.store.counts import count as count_pages

STATE = (
    "_webdedup_prepared",
    "_webdedup_url_keys",
    "_webdedup_content_hashes",
    "_webdedup_hosts",
    "_webdedup_sketches",
    "_webdedup_edges",
    "_webdedup_verified",
)
#: Pages of the corpus of the default suite (the slow test takes 20,000).
PAGES = 2_000
#: No network from Daft or Ray in the tests (their usage statistics), no token on 127.0.0.1.
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "DAFT_PROGRESS_BAR": "0", "RAY_USAGE_STATS_ENABLED": "0",
           "DAFT_ANALYTICS_ENABLED": "0", "DO_NOT_TRACK": "1"}
os.environ.update({k: v for k, v in RAY_ENV.items() if k != "RAY_AUTH_MODE"})


def run(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def daft_annotations(out: Path) -> dict[int, tuple[Any, ...]]:
    rows = pq.read_table(out / "pages", columns=["id", *OUTPUT]).to_pylist()
    return {r["id"]: tuple(r[c] for c in OUTPUT) for r in rows}


def state(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}")) for t in STATE}
    finally:
        conn.close()


def last_run_mode(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        query = "SELECT mode FROM _webdedup_runs ORDER BY id DESC LIMIT 1"
        return str(conn.execute(query).fetchone()[0])
    finally:
        conn.close()


def build(tmp: Path, pages: int, seed: int) -> dict[str, Path]:
    """A labelled corpus: untouched, deduplicated by ``webdedup db``, and exported to Parquet."""
    corpus = tmp / "corpus.sqlite"
    make_corpus.build_corpus(corpus, pages, seed=seed, measure=False)
    sqlite_run = tmp / "sqlite.sqlite"
    shutil.copy(corpus, sqlite_run)
    run("db", sqlite_run, "-q", "--whole-text")
    parquet = tmp / "pages"
    run("export", corpus, "--parquet", parquet)  # before any db run on it
    return {"corpus": corpus, "sqlite": sqlite_run, "parquet": parquet}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("daft")
    paths = build(tmp, PAGES, seed=21)
    out = tmp / "assignments"
    run("daft", f"{paths['parquet']}/*.parquet", "--out", out, "-q")
    return paths | {"out": out, "tmp": tmp}


def test_export_parquet_writes_every_page_with_webdedup_names(corpus: dict[str, Path]) -> None:
    table = pq.read_table(corpus["parquet"])
    assert table.column_names == ["id", "url", "content", "html", "datetime", "crawled",
                                  "category", "lang", "canonical_rank", "not_duplicate_of"]
    conn = sqlite3.connect(corpus["corpus"])
    want = dict(conn.execute("SELECT id, url FROM pages"))
    conn.close()
    assert dict(zip(table["id"].to_pylist(), table["url"].to_pylist(), strict=True)) == want


def test_daft_native_gives_the_groups_canonicals_and_kinds_of_db(corpus: dict[str, Path]) -> None:
    want = annotations(corpus["sqlite"])
    got = daft_annotations(corpus["out"])
    assert len(want) == PAGES
    assert got == want
    kinds = {a[OUTPUT.index("dup_kind")] for a in want.values()}
    assert {"url", "exact", "near"} <= kinds  # the corpus exercises every way of joining
    # and the run's counts are db's, in the one vocabulary (a group has 2+ pages)
    reported = json.loads((corpus["out"] / "_webdedup_manifest.json").read_text())["result"]
    conn = sqlite3.connect(corpus["sqlite"])
    counts = count_pages(conn, "pages")
    conn.close()
    assert (reported["groups"], reported["near_duplicates"]) == (
        counts.groups, counts.near_duplicates)


def test_assignments_write_the_annotations_and_state_of_a_full_run(
    corpus: dict[str, Path],
) -> None:
    db = corpus["tmp"] / "assigned.sqlite"
    shutil.copy(corpus["corpus"], db)
    # as the README says (Daft compares whole texts: README, "Own content and thin pages")
    run("db", db, "--assignments", f"{corpus['out']}/*.parquet", "-q", "--whole-text")
    assert annotations(db) == annotations(corpus["sqlite"])
    assert state(db) == state(corpus["sqlite"])
    assert last_run_mode(db) == "full"


def test_the_api_loads_assignments_as_db_assignments_does(corpus: dict[str, Path]) -> None:
    """``db --assignments`` is the API's ``load_assignments``: the same annotations and state
    without the command line."""
    db = corpus["tmp"] / "assigned-by-api.sqlite"
    shutil.copy(corpus["corpus"], db)
    result = Deduplicator(config=Config(own_content=False)).load_assignments(db, corpus["out"])
    assert annotations(db) == annotations(corpus["sqlite"])
    assert state(db) == state(corpus["sqlite"])
    assert (result.mode, last_run_mode(db)) == ("full", "full")


def test_the_api_exports_runs_on_daft_and_loads_as_the_commands_do(tmp_path: Path) -> None:
    """``export --parquet``, ``daft`` and ``db --assignments`` are the API's
    ``export_parquet``, ``run_on_parquet`` and ``load_assignments``: without the command
    line, the annotations of ``run_on_db`` (whole texts), in Daft's output and in the
    database."""
    from webdedup.ingest import ingest

    warc = ROOT.parent / "shared" / "data" / "warc" / "shop-sort-variants.warc.gz"  # 29 pages
    db = tmp_path / "crawl.sqlite"
    ingest(db, [warc], workers=1)
    by_db = tmp_path / "by-db.sqlite"
    shutil.copy(db, by_db)
    dedup = Deduplicator(config=Config(own_content=False))
    dedup.run_on_db(by_db)
    want = annotations(by_db)
    exported = dedup.export_parquet(db, tmp_path / "pages")
    assert exported.pages == pq.read_table(tmp_path / "pages").num_rows == len(want) >= 20
    said: list[str] = []
    done = dedup.run_on_parquet(
        f"{tmp_path / 'pages'}/*.parquet", tmp_path / "out", on_message=said.append
    )
    assert (done.runner, said) == ("native", [f"Daft (native runner): {len(want)} pages"])
    assert daft_annotations(tmp_path / "out") == want
    assert dedup.load_assignments(db, tmp_path / "out").mode == "full"
    assert annotations(db) == want


def _add_one_percent(db: Path) -> None:
    """+1% pages (copies of existing texts under new URLs, and new texts), one page edited,
    one deleted."""
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT id, content FROM pages ORDER BY id LIMIT 12").fetchall()
    fresh = [t["text"] for t in real_texts(limit=400)[-8:]]
    with conn:
        for i, (_pid, text) in enumerate(rows):
            conn.execute(
                "INSERT INTO pages (url, content, crawled) VALUES (?, ?, '2025-01-01')",
                (f"https://nightly.example.com/copy/{i}", text + (" update" if i % 2 else "")),
            )
        for i, text in enumerate(fresh):
            conn.execute(
                "INSERT INTO pages (url, content) VALUES (?, ?)",
                (f"https://nightly.example.com/new/{i}", text),
            )
        conn.execute("UPDATE pages SET content = content || ' corrected' WHERE id = 40")
        conn.execute("DELETE FROM pages WHERE id = 41")
    conn.close()


def test_nightly_sqlite_run_after_daft_is_incremental_and_equals_a_full_run(
    corpus: dict[str, Path],
) -> None:
    db = corpus["tmp"] / "nightly.sqlite"
    shutil.copy(corpus["corpus"], db)
    run("db", db, "--assignments", corpus["out"], "-q", "--whole-text")
    _add_one_percent(db)
    full = corpus["tmp"] / "nightly-full.sqlite"
    shutil.copy(db, full)
    run("db", db, "-q", "--whole-text")
    assert last_run_mode(db) == "incremental"
    run("db", full, "--full", "-q", "--whole-text")
    assert annotations(db) == annotations(full)
    assert state(db) == state(full)


# -- reviewers' verdicts and the language guard -------------------------------------------------
def _groups(ann: dict[int, tuple[Any, ...]]) -> dict[int, list[int]]:
    """``{dup_group: member ids}`` of groups with near members, smallest group first."""
    out: dict[int, list[int]] = {}
    for pid, a in sorted(ann.items()):
        if a[OUTPUT.index("dup_group")] is not None:
            out.setdefault(a[OUTPUT.index("dup_group")], []).append(pid)
    near = {pid for pid, a in ann.items() if a[OUTPUT.index("dup_kind")] == "near"}
    return {g: m for g, m in sorted(out.items()) if near & set(m)}


@pytest.fixture(scope="module")
def reviewed(corpus: dict[str, Path]) -> dict[str, Any]:
    """The corpus with a crawler's ``lang`` column and reviewers' verdicts: a near member
    "not a duplicate" of its canonical, a near member and a URL duplicate chosen as
    canonicals, and one near member in German among English pages."""
    from webdedup.store import connect, migrate, transaction
    from webdedup.store.verdicts import add_verdict

    before = annotations(corpus["sqlite"])
    kind, canon = OUTPUT.index("dup_kind"), OUTPUT.index("canonical_id")
    groups = list(_groups(before).values())
    near_of = [[m for m in g if before[m][kind] == "near"] for g in groups]
    apart, pinned = near_of[0][0], near_of[1][0]
    urls = Counter(a[OUTPUT.index("canonical_url")] for a in before.values())
    german = next(  # a page alone with its URL and text: its own node of phase 4
        m for ms in near_of[2:] for m in ms
        if before[m][OUTPUT.index("exact_group_size")] == 1
        and urls[before[m][OUTPUT.index("canonical_url")]] == 1
    )
    url_dup = next(pid for pid, a in sorted(before.items()) if a[kind] == "url")
    db = corpus["tmp"] / "reviewed.sqlite"
    shutil.copy(corpus["corpus"], db)
    conn = connect(db)
    try:
        with transaction(conn):
            migrate(conn)
            add_verdict(conn, "not_duplicate", apart, before[apart][canon])
            add_verdict(conn, "canonical", pinned, before[pinned][canon])
            add_verdict(conn, "canonical", url_dup, before[url_dup][canon])
            conn.execute("ALTER TABLE pages ADD COLUMN lang TEXT")
            conn.execute("UPDATE pages SET lang = CASE id WHEN ? THEN 'de' ELSE 'en' END",
                         (german,))
    finally:
        conn.close()
    full = corpus["tmp"] / "reviewed-full.sqlite"
    shutil.copy(db, full)
    run("db", full, "--full", "-q", "--whole-text")
    parquet, out = corpus["tmp"] / "reviewed-pages", corpus["tmp"] / "reviewed-out"
    run("export", db, "--parquet", parquet)
    run("daft", f"{parquet}/*.parquet", "--out", out, "-q")
    return {"db": db, "full": full, "parquet": parquet, "out": out, "before": before,
            "apart": apart, "pinned": pinned, "url_dup": url_dup, "german": german}


def test_export_parquet_carries_the_verdicts_on_their_pages(reviewed: dict[str, Any]) -> None:
    rows = pq.read_table(reviewed["parquet"]).to_pylist()
    pins = {r["id"]: r["canonical_rank"] for r in rows if r["canonical_rank"] is not None}
    assert pins == {reviewed["url_dup"]: 0, reviewed["pinned"]: 1}  # the latest choice first
    apart = {r["id"]: r["not_duplicate_of"] for r in rows if r["not_duplicate_of"]}
    canonical = reviewed["before"][reviewed["apart"]][OUTPUT.index("canonical_id")]
    assert apart == {reviewed["apart"]: [canonical], canonical: [reviewed["apart"]]}


def test_daft_honours_verdicts_and_the_language_guard_as_db_full_does(
    reviewed: dict[str, Any],
) -> None:
    want = annotations(reviewed["full"])
    canon, kind = OUTPUT.index("canonical_id"), OUTPUT.index("dup_kind")
    before = reviewed["before"]
    # the verdicts and the guard changed db's answer (else this test could not fail)
    apart = reviewed["apart"]
    assert want[apart][canon] != before[apart][canon]
    assert want[reviewed["pinned"]][canon] == reviewed["pinned"]
    assert want[reviewed["url_dup"]][canon] == reviewed["url_dup"]
    german = reviewed["german"]
    assert before[german][kind] == "near" and want[german][canon] == german  # alone now
    # and Daft gives that answer, which --assignments writes with a full run's state
    assert daft_annotations(reviewed["out"]) == want
    assigned = reviewed["db"].with_name("reviewed-assigned.sqlite")
    shutil.copy(reviewed["db"], assigned)
    run("db", assigned, "--assignments", reviewed["out"], "-q", "--whole-text")
    assert annotations(assigned) == want
    assert state(assigned) == state(reviewed["full"])


def test_assignments_made_before_a_new_verdict_are_refused(reviewed: dict[str, Any]) -> None:
    from webdedup.store import connect, transaction
    from webdedup.store.verdicts import add_verdict

    db = reviewed["db"].with_name("reviewed-later.sqlite")
    shutil.copy(reviewed["db"], db)
    conn = connect(db)
    try:
        with transaction(conn):
            add_verdict(conn, "canonical", reviewed["german"])
    finally:
        conn.close()
    before = dump(db)
    result = run("db", db, "--assignments", reviewed["out"], "--whole-text", code=3)
    assert "other reviewers' verdicts (2 chosen canonical(s)" in result.output
    assert "holds (3 and 1)" in result.output
    assert dump(db) == before


def _on_three_nodes(parquet: Path, out: Path) -> dict[str, float]:
    """``webdedup daft`` of ``parquet`` on a head and two worker nodes started here with ``ray
    start`` (1 CPU and a 128 MiB object store each): checks that the run's tasks went to all
    three and that every process of the cluster is gone afterwards; each node's peak MiB."""
    from benchmarks.speed import ray_cluster as cluster_mod
    root = Path(tempfile.mkdtemp(prefix="wd-ray.", dir="/tmp"))  # Ray's sockets: 107 bytes
    try:
        with cluster_mod.LocalCluster(root, workers=2, object_store_mib=128) as cluster:
            done = subprocess.run(
                [sys.executable, "-m", "webdedup.cli", "daft", f"{parquet}/*.parquet",
                 "--out", str(out), "--ray-address", cluster.address, "--json"],
                capture_output=True,
                text=True,
                env=cluster.env,
                timeout=900,
            )
            pids = {pid for node in cluster.nodes for pid in cluster_mod.tree(node.proc.pid)}
        workers = {  # the nodes that started Ray workers for the job
            node.name: list(node.temp.glob("session_*/logs/worker-*.out"))
            for node in cluster.nodes
        }
        left = [pid for pid in pids if cluster._ours(pid)]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["runner"] == "ray"
    assert all(workers.values()), {node: len(logs) for node, logs in workers.items()}
    assert not left, "a Ray process was left running"
    peaks: dict[str, float] = cluster.peaks_mib()
    assert set(peaks) == {"head", "worker-1", "worker-2"} and min(peaks.values()) > 0
    return peaks


def test_a_ray_cluster_of_three_nodes_gives_the_same_answer(tmp_path: Path) -> None:
    paths = build(tmp_path, 300, seed=23)
    _on_three_nodes(paths["parquet"], tmp_path / "out")
    want = annotations(paths["sqlite"])
    assert daft_annotations(tmp_path / "out") == want
    assert {a[OUTPUT.index("dup_kind")] for a in want.values()} >= {"url", "exact", "near"}


@pytest.mark.slow
def test_a_ray_cluster_of_three_nodes_gives_the_same_answer_on_2000_pages(
    corpus: dict[str, Path], tmp_path: Path
) -> None:
    _on_three_nodes(corpus["parquet"], tmp_path / "out")
    assert daft_annotations(tmp_path / "out") == annotations(corpus["sqlite"])


def test_telemetry_is_off_unless_the_user_turned_it_on() -> None:
    probe = (
        "import os, webdedup.distributed, daft.scarf_telemetry as t; "
        "print(os.environ['DAFT_ANALYTICS_ENABLED'], os.environ['RAY_USAGE_STATS_ENABLED'], "
        "t.opted_out())"
    )
    clean = {k: v for k, v in os.environ.items()
             if k not in ("DAFT_ANALYTICS_ENABLED", "RAY_USAGE_STATS_ENABLED", "DO_NOT_TRACK",
                          "SCARF_NO_ANALYTICS")}

    def answer(**env: str) -> str:
        done = subprocess.run([sys.executable, "-c", probe], env=clean | env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip()

    assert answer() == "0 0 True"
    assert answer(DAFT_ANALYTICS_ENABLED="1", RAY_USAGE_STATS_ENABLED="1") == "1 1 False"


# -- object storage -----------------------------------------------------------------------------
#: Credentials of the S3 server the test starts (moto accepts any); no other AWS lookups.
S3_ENV = {"AWS_ACCESS_KEY_ID": "webdedup-test", "AWS_SECRET_ACCESS_KEY": "webdedup-secret",
          "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true",
          "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull}


@pytest.fixture
def s3_server(tmp_path: Path) -> Any:
    """A real S3-compatible server (moto's, in server mode) on 127.0.0.1, stopped after."""
    pytest.importorskip("moto", reason="the s3test extra: pip install -e '.[s3test]'")
    with socketserver_port() as port:
        pass
    log = (tmp_path / "moto.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log, stderr=subprocess.STDOUT, env=os.environ | S3_ENV,
    )
    try:
        import socket

        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "moto.log").read_text()
                assert time.monotonic() < deadline, "the S3 server did not start"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def test_s3_settings_come_from_the_options_then_the_aws_environment() -> None:
    from webdedup.distributed.objectstore import ObjectStore, bucket_path, is_remote
    from webdedup.errors import ConfigError

    env = {"AWS_ENDPOINT_URL": "http://env:9000", "AWS_DEFAULT_REGION": "eu-west-1",
           "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}
    store = ObjectStore.from_options(environ=env)
    assert (store.endpoint, store.region, store.key_id, store.secret) == (
        "http://env:9000", "eu-west-1", "k", "s")
    store = ObjectStore.from_options("https://opt:443", "us-east-2", environ=env)
    assert (store.endpoint, store.region) == ("https://opt:443", "us-east-2")
    anonymous = ObjectStore.from_options(anonymous=True, environ=env)
    assert anonymous.anonymous and anonymous.key_id is None and anonymous.secret is None
    with pytest.raises(ConfigError, match="go together"):
        ObjectStore.from_options(environ={"AWS_ACCESS_KEY_ID": "k"})
    with pytest.raises(ConfigError, match="takes a URL"):
        ObjectStore.from_options("minio:9000", environ={})
    assert is_remote("s3://b/p/*.parquet") and not is_remote("pages/*.parquet")
    assert bucket_path("s3://bucket/a/b/") == "bucket/a/b"


def test_daft_reads_and_writes_s3_and_gives_the_same_answer(
    corpus: dict[str, Path], s3_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pyarrow import fs

    from webdedup.distributed.objectstore import ObjectStore

    for key, value in S3_ENV.items():
        monkeypatch.setenv(key, value)
    fs.S3FileSystem(
        endpoint_override=s3_server.split("://")[1], scheme="http", region="us-east-1",
        access_key=S3_ENV["AWS_ACCESS_KEY_ID"], secret_key=S3_ENV["AWS_SECRET_ACCESS_KEY"],
        allow_bucket_creation=True,
    ).create_dir("crawl")
    s3 = ObjectStore.from_options(s3_server).filesystem()  # as webdedup reaches it
    fs.copy_files(str(corpus["parquet"]), "crawl/pages", source_filesystem=fs.LocalFileSystem(),
                  destination_filesystem=s3)
    run("daft", "s3://crawl/pages/*.parquet", "--out", "s3://crawl/assignments/",
        "--s3-endpoint", s3_server, "-q")
    names = {i.path for i in s3.get_file_info(fs.FileSelector("crawl/assignments"))}
    assert names >= {f"crawl/assignments/{n}" for n in ("pages", "edges", "verified",
                                                        "_webdedup_manifest.json")}
    local = corpus["tmp"] / "from-s3"
    fs.copy_files("crawl/assignments", str(local), source_filesystem=s3,
                  destination_filesystem=fs.LocalFileSystem())
    assert daft_annotations(local) == annotations(corpus["sqlite"])
    db = corpus["tmp"] / "from-s3.sqlite"
    shutil.copy(corpus["corpus"], db)
    run("db", db, "--assignments", local, "-q", "--whole-text")
    assert annotations(db) == annotations(corpus["sqlite"])
    # an output that is not empty is refused, and left as it was
    result = run("daft", "s3://crawl/pages/*.parquet", "--out", "s3://crawl/assignments",
                 "--s3-endpoint", s3_server, code=3)
    assert "already exists and is not empty" in result.output
    assert {i.path for i in s3.get_file_info(fs.FileSelector("crawl/assignments"))} == names


# -- bad input ----------------------------------------------------------------------------------
def _parquet(path: Path, **columns: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns), path)
    return path


def test_missing_columns_are_named_with_those_found(tmp_path: Path) -> None:
    _parquet(tmp_path / "in" / "a.parquet", id=[1, 2], link=["https://a/", "https://b/"],
             body=["x", "y"])
    result = run("daft", f"{tmp_path}/in/*.parquet", "--out", tmp_path / "out", code=3)
    assert "no the URL column 'url'" in result.output
    assert "columns found: id, link, body" in result.output
    assert not (tmp_path / "out").exists()
    # mapped, the same files run
    run("daft", f"{tmp_path}/in/*.parquet", "--out", tmp_path / "out", "--column", "url=link",
        "--column", "content=body", "-q")
    assert len(daft_annotations(tmp_path / "out")) == 2


def test_empty_input_is_refused(tmp_path: Path) -> None:
    _parquet(tmp_path / "in" / "a.parquet", id=pa.array([], pa.int64()),
             url=pa.array([], pa.string()), content=pa.array([], pa.string()))
    result = run("daft", str(tmp_path / "in" / "a.parquet"), "--out", tmp_path / "out", code=3)
    assert "no pages (0 rows)" in result.output
    assert not (tmp_path / "out").exists()
    result = run("daft", f"{tmp_path}/nothing/*.parquet", "--out", tmp_path / "out", code=3)
    assert "no Parquet file matches" in result.output


def test_ids_repeating_across_files_are_refused_with_their_files(tmp_path: Path) -> None:
    _parquet(tmp_path / "in" / "shard1.parquet", id=[1, 2], url=["https://a/1", "https://a/2"],
             content=["one", "two"])
    _parquet(tmp_path / "in" / "shard2.parquet", id=[2, 3], url=["https://b/2", "https://b/3"],
             content=["two", "three"])
    result = run("daft", f"{tmp_path}/in/*.parquet", "--out", tmp_path / "out", code=3)
    assert "id 2 (2 times" in result.output
    assert "shard1.parquet" in result.output and "shard2.parquet" in result.output
    assert not (tmp_path / "out").exists()


def test_a_ray_address_that_does_not_answer_fails_fast_and_writes_nothing(tmp_path: Path) -> None:
    _parquet(tmp_path / "in" / "a.parquet", id=[1], url=["https://a/"], content=["x"])
    with socketserver_port() as port:  # a port nobody listens on
        pass
    start = time.perf_counter()
    result = run("daft", str(tmp_path / "in" / "a.parquet"), "--out", tmp_path / "out",
                 "--ray-address", f"127.0.0.1:{port}", code=3)
    assert time.perf_counter() - start < 30
    assert "no Ray cluster answers at '127.0.0.1:" in result.output
    assert not (tmp_path / "out").exists()


class socketserver_port:
    """A free TCP port on 127.0.0.1 (bound while in the block, free after it)."""

    def __enter__(self) -> int:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return int(self.sock.getsockname()[1])

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def test_other_methods_are_refused_naming_the_supported_one(tmp_path: Path) -> None:
    _parquet(tmp_path / "in" / "a.parquet", id=[1], url=["https://a/"], content=["x"])
    toml = tmp_path / "lev.toml"
    toml.write_text('method = "levenshtein"\n')
    result = run("daft", str(tmp_path / "in" / "a.parquet"), "--out", tmp_path / "out",
                 "--config", toml, code=2)
    assert "runs method minhash only, not 'levenshtein'" in result.output


def test_assignments_of_another_database_are_refused_and_nothing_is_written(
    corpus: dict[str, Path],
) -> None:
    other = corpus["tmp"] / "other.sqlite"
    shutil.copy(corpus["corpus"], other)
    conn = sqlite3.connect(other)
    with conn:
        conn.execute("UPDATE pages SET url = url || '?moved=1' WHERE id IN (3, 5)")
        conn.execute("INSERT INTO pages (url, content) VALUES ('https://new.example/', 'hi')")
    conn.close()
    before = dump(other)
    result = run("db", other, "--assignments", corpus["out"], "--whole-text", code=3)
    assert "do not match this database" in result.output
    assert "1 page(s) of 'pages' are not in them" in result.output
    assert "2 page(s) have another URL" in result.output
    assert dump(other) == before


def test_assignments_made_with_other_parameters_are_refused(corpus: dict[str, Path]) -> None:
    db = corpus["tmp"] / "params.sqlite"
    shutil.copy(corpus["corpus"], db)
    before = dump(db)
    result = run(
        "db", db, "--assignments", corpus["out"], "--threshold", "0.8", "--whole-text", code=2
    )
    assert "threshold: 0.9 there, 0.8 here" in result.output
    result = run("db", db, "--assignments", corpus["tmp"] / "pages", "--whole-text", code=3)
    assert "is not the output of 'webdedup daft'" in result.output
    assert dump(db) == before


@pytest.mark.slow
def test_daft_native_equals_db_on_20000_pages(tmp_path: Path) -> None:
    paths = build(tmp_path, 20_000, seed=7)
    out = tmp_path / "assignments"
    run("daft", f"{paths['parquet']}/*.parquet", "--out", out, "-q")
    assert daft_annotations(out) == annotations(paths["sqlite"])


def test_connected_components_label_each_node_with_its_smallest_member() -> None:
    import random

    import daft

    from webdedup.algorithms.cluster import UnionFind
    from webdedup.distributed.components import connected_components

    rng = random.Random(5)
    edges = [(rng.randrange(300), rng.randrange(300)) for _ in range(220)]
    edges += [(1000 + i, 1001 + i) for i in range(40)]  # a long chain: many rounds
    found = connected_components(
        daft.from_pydict({"u": [a for a, _ in edges], "v": [b for _, b in edges]})
    ).to_pydict()
    uf = UnionFind()
    for a, b in edges:
        if a != b:
            uf.union(a, b)
    want = {node: min(group) for group in uf.groups() for node in group}
    assert dict(zip(found["node"], found["component"], strict=True)) == want


def test_ingest_parquet_writes_what_ingest_then_export_parquet_write(tmp_path: Path) -> None:
    warc = ROOT.parent / "shared" / "data" / "warc" / "shop-sort-variants.warc.gz"  # 29 pages
    run("ingest", tmp_path / "direct", warc, "--parquet", "-q", "--workers", "1")
    run("ingest", tmp_path / "crawl.sqlite", warc, "-q", "--workers", "1")
    run("export", tmp_path / "crawl.sqlite", "--parquet", tmp_path / "exported")
    direct = pq.read_table(tmp_path / "direct")
    assert direct.num_rows >= 20
    assert direct.to_pylist() == pq.read_table(tmp_path / "exported").to_pylist()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".ingest.")] == []


def test_ingest_parquet_is_a_function_of_ingest(tmp_path: Path) -> None:
    """``ingest --parquet`` is :func:`webdedup.ingest.parquet.ingest_parquet`: the ingestion's
    report and the export's, the pages ingested all written, the scratch database gone."""
    from webdedup.ingest.parquet import ingest_parquet

    warc = ROOT.parent / "shared" / "data" / "warc" / "shop-sort-variants.warc.gz"  # 29 pages
    done = ingest_parquet(tmp_path / "direct", [warc], workers=1)
    assert done.report is not None and done.stopped is None
    assert done.export.pages == done.report.pages == pq.read_table(tmp_path / "direct").num_rows
    assert done.lines() == [done.report.summary(), *done.export.lines()]
    assert [p.name for p in tmp_path.iterdir()] == ["direct"]


def test_a_run_cut_into_parts_gives_the_same_answer(
    corpus: dict[str, Path], reviewed: dict[str, Any], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every step that needs all rows of a key at once runs a part at a time (so its memory is
    a part's): with parts of 300 pages and band keys self-joined 2,000 rows at a time, the
    2,000 pages give db's groups, canonicals and kinds, with and without reviewers' verdicts,
    and no scratch table is left."""
    from webdedup.distributed import daft_pipeline

    monkeypatch.setattr(daft_pipeline, "PAGES_PER_PART", 300)
    monkeypatch.setattr(daft_pipeline, "BAND_ROWS_PER_PART", 2_000)
    out = tmp_path / "parts"
    result = run("daft", f"{corpus['parquet']}/*.parquet", "--out", out, "--json")
    done = json.loads(result.output)
    assert done["pages"] == PAGES
    assert daft_annotations(out) == annotations(corpus["sqlite"])
    assert sorted(p.name for p in out.iterdir()) == [
        "_webdedup_manifest.json", "edges", "pages", "verified"]
    assert pq.read_table(out / "edges").to_pylist() == pq.read_table(
        corpus["out"] / "edges").to_pylist()
    verdicts = tmp_path / "reviewed-parts"
    run("daft", f"{reviewed['parquet']}/*.parquet", "--out", verdicts, "-q")
    assert daft_annotations(verdicts) == annotations(reviewed["full"])


def test_export_parquet_writes_files_in_row_groups_bounded_by_bytes(
    corpus: dict[str, Path], tmp_path: Path,
) -> None:
    """A file of ``rows_per_file`` rows is written a row group of about ``group_bytes`` at a
    time (the export holds one group, not a file's rows); the rows are those of one group a
    file."""
    from webdedup.distributed.parquet import export_parquet

    whole = export_parquet(corpus["corpus"], tmp_path / "whole", rows_per_file=70)
    grouped = export_parquet(corpus["corpus"], tmp_path / "grouped", rows_per_file=70,
                             group_bytes=1)  # (one row a group: each row holds a byte or more)
    assert (grouped.pages, grouped.files) == (whole.pages, whole.files) == (PAGES, -(-PAGES // 70))
    for name in sorted(p.name for p in (tmp_path / "whole").glob("*.parquet")):
        one, many = (pq.ParquetFile(tmp_path / d / name) for d in ("whole", "grouped"))
        assert one.metadata.num_rows == many.metadata.num_rows
        assert one.metadata.num_row_groups == 1
        assert many.metadata.num_row_groups == many.metadata.num_rows
        assert many.read().equals(one.read())


def test_an_export_stopped_halfway_leaves_no_file_of_part_of_its_rows(
    corpus: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from webdedup.distributed import parquet

    real = parquet._string_column
    calls: list[int] = []

    def failing(cells, as_str):  # the second row group's first column fails
        calls.append(1)
        if len(calls) == 8:
            raise RuntimeError("stopped")
        return real(cells, as_str)

    monkeypatch.setattr(parquet, "_string_column", failing)
    with pytest.raises(RuntimeError, match="stopped"):
        parquet.export_parquet(corpus["corpus"], tmp_path / "out", rows_per_file=70,
                               group_bytes=1)
    assert list((tmp_path / "out").glob("*.parquet")) == []  # the first file was incomplete


def test_a_write_failing_in_the_writing_thread_stops_the_export_with_its_error(
    corpus: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The row groups are written in a thread of their own while the next is read: a write
    that fails there (a full disk) stops the export with that error, and the file it was
    writing is removed; the files closed before it are whole."""
    from webdedup.distributed import parquet

    real = parquet._Parts._write
    writes: list[int] = []

    def failing(self, table, last):  # the 75th group: the second file's fifth
        writes.append(1)
        if len(writes) == 75:
            raise OSError(28, "No space left on device")
        return real(self, table, last)

    monkeypatch.setattr(parquet._Parts, "_write", failing)
    with pytest.raises(OSError, match="No space left"):
        parquet.export_parquet(corpus["corpus"], tmp_path / "out", rows_per_file=70,
                               group_bytes=1)
    files = sorted((tmp_path / "out").glob("*.parquet"))
    assert [f.name for f in files] == ["part-00000.parquet"]
    assert pq.ParquetFile(files[0]).metadata.num_rows == 70


def test_export_parquet_decodes_cells_as_reads_do(tmp_path: Path) -> None:
    """Columns of well-formed UTF-8 go to Arrow as they are; a column with a cell that is not
    (a TEXT cell of bad bytes, a BLOB, a number) is decoded a cell at a time, as reads do."""
    from webdedup.distributed.parquet import export_parquet

    db = tmp_path / "odd.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
    rows = [
        (1, "https://a.example/1", "plain caf\u00e9 text"),
        (2, "https://a.example/2", None),
        (3, "https://a.example/3", "\u6771\u4eac"),
    ]
    conn.executemany("INSERT INTO pages VALUES (?, ?, ?)", rows)
    conn.commit()
    export_parquet(db, tmp_path / "good")
    conn.execute("INSERT INTO pages VALUES (4, 42, CAST(x'6f6b20ff20c3' AS TEXT))")
    conn.execute("INSERT INTO pages VALUES (5, 'https://a.example/5', x'e282ac21')")
    conn.commit()
    conn.close()
    export_parquet(db, tmp_path / "odd")
    good = pq.read_table(tmp_path / "good").to_pydict()
    odd = pq.read_table(tmp_path / "odd").to_pydict()
    assert list(zip(good["id"], good["url"], good["content"], strict=True)) == rows
    assert odd["url"][3:] == ["42", "https://a.example/5"]
    assert odd["content"] == [r[2] for r in rows] + ["ok \ufffd \ufffd", "\u20ac!"]
