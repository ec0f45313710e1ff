"""Workers that read their pages themselves, in the run's snapshot (webdedup.pipeline.readers).

A run with workers hands them rowid ranges or ids, not texts, once it has proven that their
read transactions see what its own sees (webdedup.store.snapshot): the same annotations and
state as when the main process reads every text, on the real crawls of ../shared/data; what a
crawler commits after the run's snapshot is left to the next run; and when the proof fails
(a commit in between), or a worker cannot open the database, the main process reads.
"""

from __future__ import annotations

import gc
import os
import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_DATA, annotations, real_texts
from test_incremental import state

from webdedup import Config, Deduplicator
from webdedup.algorithms.text import digest_text
from webdedup.ingest import ingest
from webdedup.pipeline import readers, run, staging
from webdedup.pipeline.phase1_prepare import RowidRanges
from webdedup.store import snapshot

WARCS = sorted((SHARED_DATA / "warc").glob("*.warc*"))
HTML = [SHARED_DATA / "html" / "aed", SHARED_DATA / "html" / "aeb"]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real crawls and saved pages of ../shared/data in one table (829 pages)."""
    db = tmp_path_factory.mktemp("real") / "real.sqlite"
    ingest(db, [*WARCS, *HTML], workers=2)
    return db


def _copy(src: Path, tmp_path: Path, name: str) -> Path:
    """A copy of a database, with its WAL (a run leaves it in WAL mode)."""
    path = tmp_path / name
    shutil.copy(src, path)
    for suffix in ("-wal", "-shm"):
        if Path(f"{src}{suffix}").exists():
            shutil.copy(f"{src}{suffix}", f"{path}{suffix}")
    return path


def _main_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's main process reads every text (no commit watch: no readers)."""
    monkeypatch.setattr(run, "_commit_watch", lambda ctx: None)


def _prepared(result) -> dict[str, int]:
    return result.phases["prepare"]


@pytest.mark.parametrize("threshold", [0.7, 0.9])
def test_readers_give_what_the_main_process_gives(crawl, tmp_path, monkeypatch, threshold):
    config = Config(workers=2, threshold=threshold)
    theirs = _copy(crawl, tmp_path, "readers.sqlite")
    result = Deduplicator(config=config).run_on_db(theirs)
    assert _prepared(result) == {"pages": 829, "workers": 2, "readers": 1}
    mine = _copy(crawl, tmp_path, "main.sqlite")
    with monkeypatch.context() as m:
        _main_reads(m)
        alone = Deduplicator(config=config).run_on_db(mine)
    assert _prepared(alone)["readers"] == 0
    assert annotations(theirs) == annotations(mine)
    assert state(theirs) == state(mine)
    assert result.pages == alone.pages == 829  # counted by the readers, not by count(*)
    assert (result.candidates, result.edges) == (alone.candidates, alone.edges)


def test_the_objects_alive_before_the_readers_fork_are_frozen_for_the_run(crawl, tmp_path):
    """The run freezes what is alive once the kernels are loaded (its collections and the
    readers' then leave those objects alone), with the collector on during the phases, and
    gives the caller back its collector as it was: on or off, its own frozen objects
    frozen."""
    seen: dict[str, tuple[bool, int]] = {}

    def on_phase(name: str) -> None:
        seen.setdefault(name, (gc.isenabled(), gc.get_freeze_count()))

    path = _copy(crawl, tmp_path, "crawl.sqlite")
    result = run.run_on_db(path, Config(workers=2), on_phase=on_phase)
    assert _prepared(result)["readers"] == 1
    enabled, frozen = seen["prepare"]
    assert enabled and frozen > 1000  # numba's objects, at least
    assert seen["write_back"] == (True, 0)  # unfrozen when phases 1-4 end
    assert gc.isenabled() and gc.get_freeze_count() == 0
    # a caller that turned the collector off and froze objects of its own
    gc.disable()
    gc.freeze()
    try:
        mine = gc.get_freeze_count()
        run.run_on_db(_copy(crawl, tmp_path, "b.sqlite"), Config(workers=2))
        # (not more: nothing frozen by the run; some of the caller's freed by their counts)
        assert not gc.isenabled() and 0.9 * mine < gc.get_freeze_count() <= mine
    finally:
        gc.unfreeze()
        gc.enable()


@pytest.mark.parametrize(("threshold", "shift"), [(0.7, 0), (0.85, 0), (0.85, 2**62)])
def test_texts_staged_in_many_buckets_and_slices(crawl, tmp_path, monkeypatch, threshold,
                                                 shift):
    """Own content's and the verification's texts, read by the readers in id order into
    scratch files and handed back a bucket at a time (webdedup.pipeline.staging), cut
    small: many buckets, many slices, the same results as the main process reading them
    by id. ``shift``: every rowid moved up by it (a rowid may be any 64-bit integer: a key
    packing id and bucket into one int64 overflowed)."""
    cuts: list[int] = []

    def recorded(cut):
        def cut_and_count(*args, **kwargs):
            buckets = cut(*args, **kwargs)
            cuts.append(len(buckets))
            return buckets
        return cut_and_count

    config = Config(workers=2, threshold=threshold)
    theirs = _copy(crawl, tmp_path, "readers.sqlite")
    if shift:
        _shift_ids(theirs, shift)
    with monkeypatch.context() as m:
        m.setattr(staging, "BUCKET_BYTES", 20_000)
        m.setattr(staging, "SLICE_BYTES", 50_000)  # (texts of a few KB: slices of a few pages)
        m.setattr(staging, "RANGE_PAGES", 60)  # the pairs' pages sorted a range of ids at a time
        m.setattr(staging, "cut_buckets", recorded(staging.cut_buckets))  # own content's
        m.setattr(staging, "cut_pair_buckets", recorded(staging.cut_pair_buckets))
        m.setattr(staging, "PAIR_CHUNK", 3)
        result = Deduplicator(config=config).run_on_db(theirs)
    assert _prepared(result)["readers"] == 1
    assert len(cuts) == 2 and min(cuts) >= 3, cuts  # own content's, verification's
    mine = _copy(crawl, tmp_path, "main.sqlite")
    if shift:
        _shift_ids(mine, shift)
    with monkeypatch.context() as m:
        _main_reads(m)
        alone = Deduplicator(config=config).run_on_db(mine)
    assert result.phases["own"] == alone.phases["own"]
    assert result.phases["own"]["own"] > 0  # (else this test shows nothing of own content)
    assert annotations(theirs) == annotations(mine)
    assert state(theirs) == state(mine)
    assert (result.candidates, result.edges) == (alone.candidates, alone.edges) != (0, 0)
    assert not list(Path(tempfile.gettempdir()).glob("webdedup-stage-*"))  # cleaned up


def test_the_verifications_texts_are_read_by_the_workers_not_the_main_process(
        crawl, tmp_path, monkeypatch):
    """Verification's jobs carry where the staged texts are (staging.Located), and each
    worker reads them from the scratch files: the main process reads none (at 20,000 pages
    it sent 75 MB of them through the pool's pipes). The scratch files outlive the last
    job (each read below would fail on a deleted file)."""
    seen = tmp_path / "readers-pids"
    real_read = staging.Located.read

    def read(self):
        texts = real_read(self)
        with open(seen, "a") as f:
            f.write(f"{os.getpid()} {len(texts)}\n")
        return texts

    monkeypatch.setattr(staging.Located, "read", read)
    monkeypatch.setattr(staging, "BUCKET_BYTES", 20_000)  # many buckets, many jobs
    monkeypatch.setattr(staging, "PAIR_CHUNK", 3)
    theirs = _copy(crawl, tmp_path, "readers.sqlite")
    result = Deduplicator(config=Config(workers=2, threshold=0.7)).run_on_db(theirs)
    assert result.candidates > 0
    reads = [tuple(map(int, line.split())) for line in seen.read_text().splitlines()]
    assert len(reads) > 1 and sum(n for _, n in reads) > 0
    assert os.getpid() not in {pid for pid, _ in reads}
    assert not list(Path(tempfile.gettempdir()).glob("webdedup-stage-*"))  # cleaned up


def test_located_texts_are_read_where_they_are(tmp_path):
    """staging.Located: a page's text from its file and place, a page without one as None,
    ``take`` keeps only the pages staged."""
    a, b = tmp_path / "slice-0", tmp_path / "slice-1"
    a.write_bytes(b"xxalphayy")
    b.write_bytes("gamma \u00e9".encode())
    located = staging.Located(
        (str(a), str(b)), ids=np.array([3, 7, 2**62], np.int64),
        files=np.array([0, 1, 0], np.int32), offsets=np.array([2, 0, 0], np.int64),
        lengths=np.array([5, 8, -1], np.int64))
    assert located.read() == {3: b"alpha", 7: "gamma \u00e9".encode(), 2**62: None}
    assert located.size() == 13
    some = located.take([7, 5, 2**62, 7])
    assert some.ids.tolist() == [7, 2**62] and some.read() == {7: "gamma \u00e9".encode(),
                                                               2**62: None}
    assert located.take([1]).read() == {}
    cut = staging.Located((str(a),), np.array([1], np.int64), np.array([0], np.int32),
                          np.array([5], np.int64), np.array([9], np.int64))
    with pytest.raises(ValueError, match="cut short"):
        cut.read()


def _shift_ids(path: Path, shift: int) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE pages SET id = id + ?", (shift,))
        low = conn.execute("SELECT min(id) FROM pages").fetchone()[0]
    assert low > shift


def test_incremental_runs_on_readers(crawl, tmp_path, monkeypatch):
    """An incremental run's changed pages, read by the readers as lists of ids."""
    path = _copy(crawl, tmp_path, "crawl.sqlite")
    d = Deduplicator(config=Config(workers=2))
    d.run_on_db(path)
    with sqlite3.connect(path) as conn:
        # new pages: copies of others under new URLs (some edited), and an edited page
        conn.execute(
            "INSERT INTO pages (url, content) SELECT url || '?copy', "
            "CASE WHEN id % 2 THEN content ELSE content || ' A new last sentence.' END "
            "FROM pages WHERE id % 9 = 0"
        )
        conn.execute("UPDATE pages SET content = content || ' Edited.' WHERE id = 40")
        conn.execute("DELETE FROM pages WHERE id = 41")
    twin = _copy(path, tmp_path, "twin.sqlite")
    result = d.run_on_db(path)
    assert result.mode == "incremental" and _prepared(result)["readers"] == 1
    with monkeypatch.context() as m:
        _main_reads(m)
        alone = d.run_on_db(twin)
    assert _prepared(alone)["readers"] == 0
    assert annotations(path) == annotations(twin)
    assert state(path) == state(twin)


def test_a_commit_before_the_readers_start_leaves_the_main_process_reading(
    crawl, tmp_path, monkeypatch
):
    """A crawler commits between the run's snapshot and its workers': the proof fails, the
    main process reads (the run's snapshot, without the new page), the next run takes it."""
    path = _copy(crawl, tmp_path, "crawl.sqlite")
    start = readers.start

    def commit_first(watch, workers, setup=None):
        with sqlite3.connect(path) as crawler:
            crawler.execute("INSERT INTO pages (url, content) VALUES (?, ?)",
                            ("https://late.example/a", "a page the crawler wrote late " * 20))
        return start(watch, workers, setup)

    monkeypatch.setattr(readers, "start", commit_first)
    d = Deduplicator(config=Config(workers=2))
    first = d.run_on_db(path)
    assert _prepared(first) == {"pages": 829, "workers": 2, "readers": 0}
    monkeypatch.setattr(readers, "start", start)
    second = d.run_on_db(path)  # (full: 'pages' changed before the triggers were there)
    assert second.pages == 830
    with sqlite3.connect(path) as conn:
        (group,) = conn.execute(
            "SELECT dup_group FROM pages WHERE url = 'https://late.example/a'"
        ).fetchone()
    assert group is not None


def test_what_a_crawler_commits_during_the_run_waits_for_the_next(crawl, tmp_path):
    """Once the readers are in the run's snapshot, a crawler's commits (an edit, a new page)
    are not seen by them: the run prepares the page as it was, the next run as it is."""
    path = _copy(crawl, tmp_path, "crawl.sqlite")
    d = Deduplicator(config=Config(workers=2))
    d.run_on_db(path)
    with sqlite3.connect(path) as conn:  # two edits, so the next run has work for workers
        conn.execute("UPDATE pages SET content = content || ' Seen.' WHERE id IN (5, 6)")
        (seen,) = conn.execute("SELECT content FROM pages WHERE id = 5").fetchone()
    crawler = sqlite3.connect(path, isolation_level=None, timeout=30)

    def crawl_on(name: str) -> None:
        if name == "prepare":  # the readers started before this: they must not see it
            crawler.execute("UPDATE pages SET content = 'Rewritten while the run read. ' "
                            "|| content WHERE id = 5")
            crawler.execute("INSERT INTO pages (url, content) VALUES (?, ?)",
                            ("https://late.example/b", "written while the run read " * 20))

    during = Deduplicator(config=Config(workers=2), on_phase=crawl_on).run_on_db(path)
    crawler.close()
    assert during.mode == "incremental" and _prepared(during)["readers"] == 1
    assert _prepared(during)["pages"] == 2  # pages 5 and 6, as the snapshot holds them
    late = "SELECT dup_group FROM pages WHERE url = 'https://late.example/b'"
    hash_of_5 = "SELECT content_hash FROM _webdedup_prepared WHERE id = 5"
    with sqlite3.connect(path) as conn:
        assert conn.execute(late).fetchone() == (None,)
        assert conn.execute(hash_of_5).fetchone() == (digest_text(seen).sha1,)
    after = d.run_on_db(path)
    assert _prepared(after)["pages"] == 2  # page 5 as rewritten, and the new page
    with sqlite3.connect(path) as conn:
        (rewritten,) = conn.execute("SELECT content FROM pages WHERE id = 5").fetchone()
        assert conn.execute(hash_of_5).fetchone() == (digest_text(rewritten).sha1,)
        assert conn.execute(late).fetchone() != (None,)


def test_a_worker_that_cannot_open_the_database_leaves_the_main_process_reading(
    crawl, tmp_path, monkeypatch
):
    parent = os.getpid()
    opened = snapshot._read_only

    def refused_in_workers(path: str, busy_timeout: float) -> sqlite3.Connection:
        if os.getpid() != parent:  # (forked workers run the patched module too)
            raise sqlite3.OperationalError("unable to open database file")
        return opened(path, busy_timeout)

    path, twin = _copy(crawl, tmp_path, "crawl.sqlite"), _copy(crawl, tmp_path, "twin.sqlite")
    Deduplicator(config=Config(workers=2)).run_on_db(twin)
    monkeypatch.setattr(snapshot, "_read_only", refused_in_workers)
    result = Deduplicator(config=Config(workers=2)).run_on_db(path)
    assert _prepared(result) == {"pages": 829, "workers": 2, "readers": 0}
    assert annotations(path) == annotations(twin)


def test_sparse_rowids(tmp_path, monkeypatch):
    """Rowids far apart (and a dense stretch after a sparse one): the readers' ranges follow
    the density, and every page is read once."""
    texts = [t["text"] for t in real_texts(120)]
    ids = [1, 2, 3] + [10**6 * k for k in range(1, 40)] + list(range(10**12, 10**12 + 78))
    path = tmp_path / "sparse.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE pages (url TEXT, content TEXT)")
        conn.executemany("INSERT INTO pages (rowid, url, content) VALUES (?, ?, ?)",
                         [(i, f"https://s{k % 7}.example/p{k}", texts[k] + (" x" * (k % 3)))
                          for k, i in enumerate(ids)])
    twin = _copy(path, tmp_path, "twin.sqlite")
    config = Config(workers=2, chunk_size=8)
    result = Deduplicator(config=config).run_on_db(path)
    assert _prepared(result) == {"pages": 120, "workers": 2, "readers": 1}
    with monkeypatch.context() as m:
        _main_reads(m)
        Deduplicator(config=config).run_on_db(twin)
    assert annotations(path) == annotations(twin)


def test_rowid_ranges_follow_the_density_and_resume_where_a_range_stopped():
    ranges = RowidRanges(0, 10**9, rows=100, cap=400)
    it = iter(ranges)
    assert next(it) == (0, 99)
    ranges.done(0, 99, found=1, resume=None)  # sparse: the width doubles, at most
    assert next(it) == (100, 299)
    ranges.done(100, 299, found=0, resume=None)
    assert next(it) == (300, 699)
    ranges.done(300, 699, found=400, resume=500)  # dense: 400 read of 0-499, resume at 500
    assert next(it) == (500, 699)  # the rest of that range first
    lo, hi = next(it)
    assert lo == 700 and hi - lo + 1 < 400  # about 100 pages' worth at the density seen


def _mapped_kib() -> int:
    """This process's resident pages of mapped files (``RssFile``), in KiB."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("RssFile:"))


def _read_every_text() -> tuple[int, int, int, int]:
    """A reader's job: (its pid, its mapped pages before and after reading every text, the
    bytes read)."""
    before = _mapped_kib()
    (read,) = snapshot.reader().execute("SELECT sum(length(content)) FROM pages").fetchone()
    return os.getpid(), before, _mapped_kib(), int(read)


def _texts_db(path: Path) -> None:
    """6,000 pages of 8 KB of words (48 MB of texts)."""
    rng = np.random.default_rng(5)
    words = np.array(["".join(rng.choice(list("abcdefghij"), 7)) for _ in range(500)])
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, content TEXT)")
        conn.executemany("INSERT INTO pages (url, content) VALUES (?, ?)", (
            (f"https://m.example/{k}", " ".join(rng.choice(words, 1000))) for k in range(6000)
        ))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_readers_read_through_a_map_of_the_file_dropped_after_each_job(tmp_path):
    """A reader reads the database through SQLite's map of the file (no system call a page),
    and drops the map after each job: the pages a job read no longer count in the worker's
    resident memory when its next job starts (else a reader that read most of a crawl held
    all of it there)."""
    path = tmp_path / "crawl.sqlite"
    _texts_db(path)
    with closing(sqlite3.connect(path)) as conn:
        (mapped,) = conn.execute(f"PRAGMA mmap_size = {snapshot.READER_MAP}").fetchone()
        (text,) = conn.execute("SELECT sum(length(content)) FROM pages").fetchone()
    if mapped < path.stat().st_size:  # (a build without memory-mapped I/O reads instead)
        pytest.skip("this SQLite does not map the whole database file")
    watch = snapshot.CommitWatch(str(path))
    try:
        started = readers.start(watch, 2)
        assert started is not None
        try:
            jobs = list(started.map(_read_every_text, [()] * 8))
        finally:
            started.close()
    finally:
        watch.close()
    by_worker: dict[int, list[tuple[int, int]]] = {}
    for pid, before, after, read in jobs:
        assert read == text
        by_worker.setdefault(pid, []).append((before, after))
    for runs in by_worker.values():
        first = runs[0][0]
        # each job starts without the pages of the one before
        assert all(before < first + 0.2 * text / 1024 for before, _ in runs)
        # and read every page of the texts through the map
        assert all(after - before > 0.8 * text / 1024 for before, after in runs)


def _staged_growth(path: Path, ids: np.ndarray, kind: str, slice_path: Path,
                   monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Stage ``ids`` in this process as a reader would (its reader opened here, closed
    after), from a first drop of the map on: (KiB the resident pages of mapped files grew
    by, texts staged)."""
    from multiprocessing import Array

    from webdedup.algorithms.text import compiled
    from webdedup.store.layout import Layout

    compiled().warm_up()  # (numba's libraries mapped before, not counted here)
    monkeypatch.setattr(snapshot, "_mapped", 0)  # (put back after: this process's counts)
    monkeypatch.setattr(snapshot, "_resident_after", 0)
    started = Array("i", 2)
    snapshot.open_reader(str(path), 5.0, started)
    try:
        assert started[0] == 1
        snapshot.unmap()  # (the resident pages to count from)
        before = _mapped_kib()
        spans = staging.stage_slice(Layout("pages", "url", "content"),
                                    staging.Wanted(ids, np.zeros(len(ids), np.int32)), 1,
                                    str(slice_path), kind)
        return _mapped_kib() - before, int(spans[0][3])
    finally:
        reader, snapshot._reader = snapshot._reader, None
        if reader is not None:
            reader.close()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_a_staging_job_drops_the_map_as_it_reads(tmp_path, monkeypatch):
    """A reader's slice of texts larger than MAP_BYTES: the map is dropped as the job reads
    (between its look-ups), so the job holds about MAP_BYTES of the file's pages, not the
    slice's (here in this process, as a worker would run the job)."""
    path = tmp_path / "crawl.sqlite"
    _texts_db(path)
    monkeypatch.setattr(snapshot, "MAP_BYTES", 4 << 20)
    monkeypatch.setattr(snapshot, "_resident_files", lambda: None)  # (the cells alone)
    grown, staged = _staged_growth(path, np.arange(1, 6001, dtype=np.int64), "text",
                                   tmp_path / "slice", monkeypatch)
    assert staged == 6000  # every text staged
    # (48 MB of texts read; held: under MAP_BYTES and a look-up's pages more)
    assert grown < 12 << 10


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc (Linux)")
def test_a_staging_job_drops_the_map_by_its_resident_pages(tmp_path, monkeypatch):
    """Where Linux tells the process's resident pages of mapped files, the map is dropped
    once they grew by MAP_BYTES, whatever the cells counted (a page read through the map
    brings neighbours of the page cache with it: pages read here and there count many times
    their bytes). Here the cells count nothing: the resident pages alone drop the map."""
    path = tmp_path / "crawl.sqlite"
    _texts_db(path)
    monkeypatch.setattr(snapshot, "MAP_BYTES", 4 << 20)
    monkeypatch.setattr(staging, "_cells", lambda page: 0)
    every_other = np.arange(1, 6001, 2, dtype=np.int64)
    grown, staged = _staged_growth(path, every_other, "sketch", tmp_path / "slice",
                                   monkeypatch)
    assert staged == 3000
    # (the pages of 48 MB of texts read through the map; held: MAP_BYTES and what one
    # look-up of LOOKUP_CHUNK pages brings)
    assert grown < 16 << 10
