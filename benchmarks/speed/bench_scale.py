#!/usr/bin/env python3
"""How a first run, a nightly run and the readers grow with the crawl (issue #33, item 1).

    python -m benchmarks.speed.bench_scale --pages 1000000
    python -m benchmarks.speed.bench_scale --pages 3000000 --corpus-pages 10000000

One size per command. The pages are the first ``--pages`` ids of the bench's short-page
corpus (``bench.py``'s, built once into ``--cache``; ``--corpus-pages`` names a larger
one to take them from; ``--sentences fresh`` the corpus whose synthesized sentences repeat
far less, see ``corpus/make_corpus.py``), copied into a fresh database in ``--work``.
A corpus's ids are shuffled, so the first N of a larger corpus hold only some of their
derived duplicates' originals (the first million of three million: a third of them): fewer
duplicates than a corpus of N pages, and not the same figures. Then, each in a child
process:

1. a first ``webdedup db`` run (minhash, webdedup's defaults): wall and CPU time (workers
   included), peak memory of the main process and of the largest worker, the peak of each
   phase (the main process's, reset at each phase), bytes written against the database's
   size, and the write lock (below). Bytes written, two ways: what reached the disk (the
   sectors the kernel wrote to the devices of the work directory and the temporary one,
   read from ``/sys/dev/block/MAJ:MIN/stat`` between a ``sync`` before the run and one after
   it: the whole machine's writes to them, the file system's journal included, so a quiet
   machine's figure), and as Linux counts them for the process (``/proc/self/io``): each
   page of page cache the process dirtied, less those never sent to the disk because their
   file was deleted or truncated first (SQLite's TEMP files), also from each of the run's
   phase marks to the next (what ``on_phase`` announces: ``commit`` comes inside the last
   write transaction, so its share holds that transaction's commit). The count less the
   cancelled pages matched the disk's figure in whole runs here (2026-11-28); on a kernel
   whose page cache holds a file in large folios (Linux 6.18 here, ext4) a 4 KiB write into
   a folio read ahead may count the whole folio (``benchmarks/studies/dirty_folios.py``),
   so the count is not the disk's figure in general. The write lock: the
   longest time one write transaction held it, the total, and the longest of each step of
   the write;
2. a nightly run after 0.1 % new pages (``--nightly``): the next ids of the corpus when it
   has them, else copies of random pages under new URLs, one in three edited. Before it the
   machine's dirty pages are written out (``sync``, timed apart), as a night's wait would
   have them: right after the first run's gigabytes of writes, a nightly run at a million
   pages cost about 25 % more CPU while the kernel wrote them back (docs/benchmarks.md);
3. the readers on the result, time and peak memory of each: ``webdedup stats``, ``webdedup
   export --json``, ``webdedup export --parquet``, and the review app's first page, first
   queue item, a host filter, a score filter, a language filter and a search
   (``ReviewApp.handle``, as the server calls it), after the app's start (which builds the
   first part of its index of the run, the groups: timed as ``start``), the first page a
   second time too.

``--readers DB`` runs step 3 alone on a database a run annotated (a kept one); ``--review DB``
only its review app's requests; ``--review DB --tree WORKTREE`` the same requests with that
worktree's package (first on ``PYTHONPATH``, run from it, its ``webdedup/sql`` a link to its
``sql/``): a before/after comparison.

Prints a table a line a step and, with ``--json FILE``, writes the figures there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: A child's code: a run, with the peak RSS of each phase (VmHWM read and reset at each phase
#: start through /proc/self/clear_refs), its CPU time and its workers', its bytes written (also
#: from each phase mark to the next: /proc/self/io, which adds a worker's once it is reaped).
#: What the resident pages are, each phase: the largest RssAnon (the process's own memory)
#: and RssFile (pages of mapped files: libraries, maps, the page cache's own pages) that a
#: thread reading /proc/self/status every 0.1 s saw (a sample: a peak between two reads, or
#: while a kernel holds the GIL, is missed; VmHWM is the exact peak of their sum with
#: RssShmem).
RUN = r"""
import json, resource, sys, threading, time
from webdedup import Config, Deduplicator

def status(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key + ":"))

kinds = {}  # phase -> [largest RssAnon, largest RssFile] sampled (KiB)
stop = threading.Event()

def sample():
    while not stop.wait(0.1):
        with open("/proc/self/status") as f:
            got = dict(l.split(":", 1) for l in f if l.startswith(("RssAnon", "RssFile")))
        seen = kinds.setdefault(current[0], [0, 0])
        seen[0] = max(seen[0], int(got["RssAnon"].split()[0]))
        seen[1] = max(seen[1], int(got["RssFile"].split()[0]))

def written():
    with open("/proc/self/io") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("write_bytes:"))

peaks, current = {}, ["start"]
overall = [0]
wrote, last = {}, [written()]

def on_phase(name):
    hwm = status("VmHWM")
    overall[0] = max(overall[0], hwm)
    peaks[current[0]] = max(peaks.get(current[0], 0), hwm)
    now = written()
    wrote[current[0]] = wrote.get(current[0], 0) + now - last[0]
    last[0] = now
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    current[0] = name

threading.Thread(target=sample, daemon=True).start()
t0, c0 = time.perf_counter(), time.process_time()
r = Deduplicator(config=Config(), on_phase=on_phase).run_on_db(sys.argv[1])
wall = time.perf_counter() - t0
on_phase("end")
stop.set()
io = dict(line.split(": ") for line in open("/proc/self/io").read().splitlines())
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "wall": wall, "mode": r.mode, "pages": r.pages, "processed": r.processed,
    "groups": r.groups, "near": r.near_duplicates, "candidates": r.candidates,
    "cpu": time.process_time() - c0 + children.ru_utime + children.ru_stime,
    "peak_mib": overall[0] / 1024, "worker_peak_mib": children.ru_maxrss / 1024,
    "write_bytes": int(io["write_bytes"]), "timings": r.timings,
    "cancelled_write_bytes": int(io["cancelled_write_bytes"]),
    "phase_peaks_mib": {k: round(v / 1024) for k, v in peaks.items() if k != "start"},
    "phase_written_bytes": {k: v for k, v in wrote.items() if v},
    "phase_anon_file_mib": {k: [round(a / 1024), round(f / 1024)] for k, (a, f) in kinds.items()
                            if k not in ("start", "end")},
}))
"""

#: A reader's child: one CLI command, timed, with its peak RSS.
READ = r"""
import json, resource, sys, time
from click.testing import CliRunner
from webdedup.cli import cli
t0 = time.perf_counter()
out = CliRunner().invoke(cli, sys.argv[1:], catch_exceptions=False)
wall = time.perf_counter() - t0
with open("/proc/self/status") as f:
    peak = next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
print(json.dumps({"wall": wall, "peak_mib": peak / 1024, "exit": out.exit_code}))
"""


#: The review app's child: its first page, its first queue item, a host filter (the host of
#: the queue's first member), a score filter, a language filter (that member's language, else
#: "en") and a search (its host's name), each request timed. The app builds its index of the
#: run in parts: the groups by the first request, the queue by the first queue item, what
#: the score filter and the language filter read by each (a small run's all at once); a host
#: filter looks its host's pages up; a search reads its members' URLs and titles.
REVIEW = r"""
import json, re, sqlite3, sys, time
from webdedup.review.app import ReviewApp
t0 = time.perf_counter()
app = ReviewApp(sys.argv[1])
timed = {"start": {"wall": time.perf_counter() - t0, "status": 0, "bytes": 0}}
asked = {"score filter": {"max_score": ["0.95"]}}
for name, path in (("first page", "/"), ("again", "/"), ("queue", "/queue"),
                   ("host filter", "/"), ("score filter", "/"), ("language filter", "/"),
                   ("search", "/")):
    t0 = time.perf_counter()
    r = app.handle("GET", path, asked.get(name, {}), {})
    if r.status == 303:  # the queue's first item
        r = app.handle("GET", r.headers["Location"], {}, {})
    timed[name] = {"wall": time.perf_counter() - t0, "status": r.status, "bytes": len(r.body)}
    if name == "queue":  # (its member's host as the run keeps it)
        member = int(re.search(r'data-member="([0-9]+)"', r.body.decode()).group(1))
        with sqlite3.connect(sys.argv[1]) as conn:
            h, lang = conn.execute("SELECT host, lang FROM _webdedup_prepared WHERE id = ?",
                                   (member,)).fetchone()
        conn.close()
        asked.update({"host filter": {"host": [h]}, "language filter": {"lang": [lang or "en"]},
                      "search": {"q": [h]}})
app.close()
with open("/proc/self/status") as f:
    peak = next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
print(json.dumps({"requests": timed, "peak_mib": peak / 1024}))
"""


def child(code: str, *args: str, cwd: Path | None = None,
          env: dict[str, str] | None = None) -> dict:
    """The last line of ``code``'s output (JSON), run with ``args`` in a child process (in
    ``cwd``, with ``env``, when given)."""
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False,
        cwd=cwd, env=env,
    )
    if out.returncode:
        raise SystemExit(f"child failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def corpus_path(cache: Path, pages: int, sentences: str = "pool") -> Path:
    from benchmarks.speed import bench  # the bench's corpus, built once

    return bench.cached_corpus(cache, pages, 1, "short", sentences)


def take(corpus: Path, db: Path, pages: int) -> None:
    """The first ``pages`` ids of ``corpus`` into a new database ``db`` (its pages table)."""
    with sqlite3.connect(corpus) as src:
        (schema,) = src.execute(
            "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'pages'"
        ).fetchone()
    conn = sqlite3.connect(db)
    conn.execute(schema)
    conn.execute("ATTACH DATABASE ? AS corpus", (str(corpus),))
    conn.execute("INSERT INTO main.pages SELECT * FROM corpus.pages WHERE id <= ?", (pages,))
    conn.commit()
    conn.execute("DETACH DATABASE corpus")
    conn.close()


def add_nightly(corpus: Path, db: Path, pages: int, new: int, seed: int = 1) -> str:
    """``new`` pages after the first ``pages``: the corpus's next ids, else edited copies
    (always when the corpus is the database itself: ``--in-place``)."""
    conn = sqlite3.connect(db, isolation_level=None)
    if corpus.resolve() == db.resolve():  # (not attached to itself)
        conn.execute("BEGIN")
        how = copy_pages(conn, new, seed)
        conn.execute("COMMIT")
        conn.close()
        return how
    conn.execute("ATTACH DATABASE ? AS corpus", (str(corpus),))
    (have,) = conn.execute("SELECT max(id) FROM corpus.pages").fetchone()
    conn.execute("BEGIN")
    if have >= pages + new:  # the corpus's columns (the run added its own to main.pages)
        cols = ", ".join(r[1] for r in conn.execute("PRAGMA corpus.table_info(pages)"))
        conn.execute(
            f"INSERT INTO main.pages ({cols}) SELECT {cols} FROM corpus.pages "
            "WHERE id > ? AND id <= ?",
            (pages, pages + new),
        )
        how = "the corpus's next ids"
    else:
        how = copy_pages(conn, new, seed)
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE corpus")
    conn.close()
    return how


def copy_pages(conn: sqlite3.Connection, new: int, seed: int) -> str:
    """``new`` copies of random pages of ``main.pages`` (by ``seed``: another seed, other
    pages) under new URLs, one in three edited, inside the caller's transaction; says what
    they are."""
    cols = [r[1] for r in conn.execute("PRAGMA main.table_info(pages)") if r[1] != "id"]
    listed = ", ".join(cols)
    picked = ", ".join(
        "url || '?copy=' || :seed || '-' || id" if c == "url"
        else "CASE WHEN id % 3 = 0 THEN content || ' Updated.' ELSE content END"
        if c == "content" else c
        for c in cols
    )
    conn.execute(
        f"INSERT INTO main.pages ({listed}) SELECT {picked} FROM main.pages "
        # a seed's own order (a seed added after the product would keep the order of the
        # last: the same pages again, under the same URLs)
        f"WHERE id IN (SELECT id FROM main.pages ORDER BY ((id + :seed) * 2654435761) % 1000003 "
        "LIMIT :new)",
        {"seed": seed, "new": new},
    )
    return "copies of random pages under new URLs, one in three edited"


def device_written(*paths: Path | str) -> int | None:
    """Bytes the kernel has written since boot to the block devices holding ``paths`` (each
    device once: its sectors written, ``/sys/dev/block/MAJ:MIN/stat``, where a sector is 512
    bytes), or None when one has no such file (tmpfs, overlay, network, btrfs or ZFS file
    systems: their device numbers name no block device)."""
    total = 0
    for dev in sorted({os.stat(path).st_dev for path in paths}):
        stat = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/stat")
        try:
            total += int(stat.read_text().split()[6]) * 512
        except (OSError, IndexError, ValueError):
            return None
    return total


def run_devices(work: Path) -> list[Path | str]:
    """Where a run writes: the work directory (the database) and SQLite's and the run's
    temporary directory (``SQLITE_TMPDIR``, else ``TMPDIR``...: TEMP tables, spools)."""
    return [work, os.environ.get("SQLITE_TMPDIR") or tempfile.gettempdir()]


def db_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, help="the pages of the crawl (not with --readers)")
    parser.add_argument("--corpus-pages", type=int, help="take the pages from this corpus")
    parser.add_argument(
        "--sentences", choices=("pool", "fresh"), default="pool",
        help="the corpus's synthesized sentences: the pool's as they are (the figures until "
             "2026-11-28) or 'fresh' (about 30%% of each one's words replaced: unrelated "
             "articles share far fewer shingles; its database is scale-N-fresh.sqlite)")
    parser.add_argument("--nightly", type=float, default=0.001, help="share of new pages")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "webdedup-bench")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument(
        "--in-place", action="store_true",
        help="run on the cached corpus file itself instead of a copy in --work (ten million "
             "pages are 31 GB, a copy as much again): the corpus is annotated by the run and "
             "moved into --work as the kept database, to be built again for the next run "
             "(needs --pages equal to the corpus's pages)")
    parser.add_argument("--first-only", action="store_true", help="the first run alone")
    parser.add_argument("--readers", type=Path, metavar="DB",
                        help="only the readers, on this annotated database")
    parser.add_argument("--review", type=Path, metavar="DB",
                        help="only the review app's requests, on this annotated database")
    parser.add_argument("--tree", type=Path, metavar="CHECKOUT",
                        help="with --review: that checkout's package (a worktree of another "
                             "commit, its webdedup/sql a link to its sql/) under this "
                             "checkout's requests: a before/after comparison")
    args = parser.parse_args(argv)
    if args.review is not None:
        out = {"review": review(args.review, args.tree)}
        if args.json:
            args.json.write_text(json.dumps(out, indent=2))
        return 0
    if args.readers is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        out = readers(args.readers, args.work)
        if args.json:
            args.json.write_text(json.dumps(out, indent=2))
        return 0
    if args.pages is None:
        parser.error("give --pages (or --readers DB)")

    corpus = corpus_path(args.cache, args.corpus_pages or args.pages, args.sentences)
    args.work.mkdir(parents=True, exist_ok=True)
    tail = "" if args.sentences == "pool" else f"-{args.sentences}"
    db = args.work / f"scale-{args.pages}{tail}.sqlite"
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)
    t = time.perf_counter()
    if args.in_place:
        if args.corpus_pages not in (None, args.pages):
            parser.error("--in-place runs on the whole corpus: no --corpus-pages")
        # (a rename on one file system; across two, a copy, then the corpus is gone)
        shutil.move(corpus, db)
        corpus = db  # the nightly pages are copies of its pages (it has no next ids)
        how = "moved (--in-place)"
    else:
        take(corpus, db, args.pages)
        how = f"copied from {corpus.name}"
    size_before = db_bytes(db)
    print(f"{args.pages:,} pages {how} in {time.perf_counter() - t:.0f} s "
          f"({size_before / 2**30:.2f} GiB)", flush=True)
    out: dict = {"pages": args.pages, "sentences": args.sentences,
                 "db_bytes_before": size_before, "cores": os.cpu_count()}

    os.sync()  # the copy's writes on the disk before the run (not timed, not counted)
    disk = device_written(*run_devices(args.work))
    first = child(RUN, str(db))
    os.sync()  # the run's writes on the disk, then counted
    after = device_written(*run_devices(args.work))
    first["disk_bytes"] = None if disk is None or after is None else after - disk
    first["db_bytes"] = db_bytes(db)
    out["first"] = first
    tm = first["timings"]
    print(
        f"first run: {first['wall']:.0f} s wall, {first['cpu']:.0f} CPU-s; peak "
        f"{first['peak_mib']:.0f} MiB (largest worker {first['worker_peak_mib']:.0f} MiB); "
        f"written to the disk {_times(first['disk_bytes'], first['db_bytes'])} the database of "
        f"{first['db_bytes'] / 2**30:.2f} GiB (as Linux counts the process's writes: "
        f"{first['write_bytes'] / first['db_bytes']:.2f} x, "
        f"{(first['write_bytes'] - first['cancelled_write_bytes']) / first['db_bytes']:.2f} x "
        "without the pages of files deleted before the kernel wrote them out); "
        "write lock held at most "
        f"{tm['write_lock']:.2f} s at a time ({tm['write_lock_total']:.1f} s in all)",
        flush=True,
    )
    print("  phases (s): " + ", ".join(f"{k} {v:.1f}" for k, v in tm.items()
                                       if not k.startswith("write_lock")))
    print("  write lock, longest hold by step (s): " + ", ".join(
        f"{k.partition('.')[2]} {v:.2f}" for k, v in tm.items() if k.startswith("write_lock.")))
    print("  peak MiB by phase: " + ", ".join(f"{k} {v}" for k, v in
                                              first["phase_peaks_mib"].items()))
    print("  largest own / mapped-file MiB sampled by phase (RssAnon / RssFile): " + ", ".join(
        f"{k} {a}/{f}" for k, (a, f) in first.get("phase_anon_file_mib", {}).items()))
    print("  written MiB (as Linux counts them) from each phase mark on: " + ", ".join(
        f"{k} {v / 2**20:,.0f}" for k, v in first["phase_written_bytes"].items()))

    if args.first_only:
        args.nightly = 0
    new = max(1, round(args.pages * args.nightly)) if args.nightly else 0
    if not new:
        _done(args, db, out)
        return 0
    how = add_nightly(corpus, db, args.pages, new)
    synced = time.perf_counter()
    os.sync()  # the first run's writes on the disk, as by the next night (not timed in the run)
    synced = time.perf_counter() - synced
    night = child(RUN, str(db))
    out["nightly"] = night | {"new_pages": new, "new_pages_are": how}
    tn = night["timings"]
    print(
        f"nightly run (+{new:,} pages: {how}): {night['mode']}, {night['wall']:.1f} s wall, "
        f"{night['cpu']:.1f} CPU-s = {100 * night['cpu'] / first['cpu']:.2f}% of the first "
        f"run's CPU ({100 * night['wall'] / first['wall']:.2f}% of its wall); peak "
        f"{night['peak_mib']:.0f} MiB; {night['processed']:,} pages recomputed; write lock "
        f"at most {tn['write_lock']:.2f} s (after {synced:.1f} s of sync)",
        flush=True,
    )
    out["nightly"]["sync_seconds"] = synced

    out |= readers(db, args.work)
    _done(args, db, out)
    return 0


def readers(db: Path, work: Path) -> dict:
    """Step 3: each reader in its own process, timed, with its peak memory."""
    out: dict = {}
    report, parquet = work / "scale-report.json", work / "scale-pages.parquet"
    for name, cmd in (
        ("stats", ["stats", str(db)]),
        ("export --json", ["export", str(db), "--json", str(report)]),
        ("export --parquet", ["export", str(db), "--parquet", str(parquet)]),
    ):
        r = child(READ, *cmd)
        out[name] = r
        print(f"{name}: {r['wall']:.1f} s, peak {r['peak_mib']:.0f} MiB (exit {r['exit']})",
              flush=True)
    report.unlink(missing_ok=True)
    shutil.rmtree(parquet, ignore_errors=True)
    out["review"] = review(db)
    return out


def review(db: Path, tree: Path | None = None) -> dict:
    """The review app's child on ``db``, its requests printed; with ``tree``, the package of
    that checkout (first on ``PYTHONPATH``, run from it) under this checkout's child."""
    env = None if tree is None else dict(os.environ, PYTHONPATH=str(tree.resolve()))
    r = child(REVIEW, str(db.resolve()), cwd=tree, env=env)
    print("review app: " + ", ".join(
        f"{name} {q['wall']:.2f} s (HTTP {q['status']}, {q['bytes']:,} bytes)"
        for name, q in r["requests"].items()) + f"; peak {r['peak_mib']:.0f} MiB", flush=True)
    return r


def _times(part: int | None, whole: int) -> str:
    return "(not known here)" if part is None else f"{part / whole:.2f} x"


def _done(args: argparse.Namespace, db: Path, out: dict) -> None:
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    if not args.keep:
        for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            p.unlink(missing_ok=True)


if __name__ == "__main__":
    raise SystemExit(main())
