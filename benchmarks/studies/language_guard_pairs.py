#!/usr/bin/env python3
"""Which verified near-duplicate edges the language guard would drop, and what they are.

    python -m benchmarks.studies.language_guard_pairs ANNOTATED.sqlite [--jobs 2] [--show 20]

ANNOTATED.sqlite is a crawl after a ``webdedup db`` run *without* language detection (the
default): its ``_webdedup_edges`` then hold every verified edge, none dropped by the guard.
The script detects the language of both pages of each edge as phase 1 would
(:func:`webdedup.algorithms.language.page_language` on the page's text: the crawler's own
``lang`` column wins) and lists the edges whose pages are surely in different languages
(:func:`webdedup.algorithms.language.different_languages`: the edges a run with
``--detect-language`` drops before grouping). For a corpus of ``corpus/make_corpus.py`` it
also says whether the two pages are one true cluster (``corpus_truth``) and how each was made.
The database is only read.

Prints the number of edges and of pages detected (with the CPU seconds of the detection, all
processes), the dropped edges by language pair, and the first ``--show`` of them with their
scores, truth and the beginnings of their texts.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sqlite3
import time
from collections import Counter

from webdedup.algorithms import language
from webdedup.config import Columns
from webdedup.store.layout import Layout
from webdedup.store.pages import fetch_pages, page_text

CHUNK = 2_000


def _open(db: str) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def detect_ids(db: str, ids: list[int]) -> dict[int, tuple[str | None, float | None]]:
    """The language phase 1 would give each page of ``ids`` (with detection on)."""
    conn = _open(db)
    layout = Layout.resolve(conn, Columns())
    out: dict[int, tuple[str | None, float | None]] = {}
    for pid, page in fetch_pages(conn, layout, ids).items():
        found = language.page_language(page.lang, page_text(page))
        out[pid] = (found.lang, found.score)
    conn.close()
    return out


def _detect_chunk(args: tuple[str, list[int]]) -> dict[int, tuple[str | None, float | None]]:
    return detect_ids(*args)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + done.ru_utime + done.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db")
    ap.add_argument("--jobs", type=int, default=1, help="processes detecting languages [1]")
    ap.add_argument("--show", type=int, default=20, help="dropped edges shown in full [20]")
    args = ap.parse_args()
    conn = _open(args.db)
    edges = conn.execute("SELECT a, b, score, method FROM _webdedup_edges ORDER BY a, b").fetchall()
    ids = sorted({x for a, b, _, _ in edges for x in (a, b)})
    t0, c0 = time.perf_counter(), _cpu()
    chunks = [(args.db, ids[i : i + CHUNK]) for i in range(0, len(ids), CHUNK)]
    langs: dict[int, tuple[str | None, float | None]] = {}
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            for found in pool.imap_unordered(_detect_chunk, chunks):
                langs.update(found)
    else:
        for chunk in chunks:
            langs.update(_detect_chunk(chunk))
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    print(f"{len(edges):,} verified edges between {len(ids):,} pages; languages detected in "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU")
    none = (None, None)
    dropped = [
        (a, b, s, m) for a, b, s, m in edges
        if language.different_languages(*langs.get(a, none), *langs.get(b, none))
    ]
    print(f"the guard drops {len(dropped):,} of them")
    truth_ok = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'corpus_truth'"
    ).fetchone()
    truth: dict[int, tuple[int, str, int | None]] = {}
    if truth_ok and dropped:
        wanted = sorted({x for a, b, _, _ in dropped for x in (a, b)})
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            truth.update(
                (pid, (cluster, kind, orig))
                for pid, cluster, kind, orig in conn.execute(
                    "SELECT page_id, cluster, kind, original_id FROM corpus_truth WHERE page_id "
                    f"IN ({', '.join('?' * len(part))})",
                    part,
                )
            )
    by_pair = Counter(tuple(sorted((str(langs[a][0]), str(langs[b][0])))) for a, b, _, _ in dropped)
    for (la, lb), n in by_pair.most_common():
        print(f"  {la}/{lb}: {n}")
    if truth:
        same = sum(1 for a, b, _, _ in dropped if a in truth and b in truth
                   and truth[a][0] == truth[b][0])
        print(f"  true duplicates (one corpus_truth cluster): {same} of {len(dropped)}")
    layout = Layout.resolve(conn, Columns())
    shown = dropped[: args.show]
    pages = fetch_pages(conn, layout, {x for a, b, _, _ in shown for x in (a, b)})
    for a, b, s, m in shown:
        print(f"\nedge {a} - {b}: {m} score {s:.3f}")
        for pid in (a, b):
            lang, score = langs[pid]
            t = truth.get(pid)
            made = f", truth cluster {t[0]} kind {t[1]} of {t[2]}" if t else ""
            text = " ".join((page_text(pages[pid]) or "").split())
            print(f"  {pid}: {lang} {score}{made}, {len(text):,} chars: {text[:160]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
