#!/usr/bin/env python3
"""What phase 4's candidates are, and how they grow with the crawl (issue #33, item 1).

    python -m benchmarks.speed.bench_scale --pages 300000 --first-only --keep --work DIR
    python -m benchmarks.studies.candidate_growth DIR/scale-300000.sqlite DIR/scale-1000000.sqlite

For each database a minhash run annotated (``bench_scale --keep`` leaves one, any
``webdedup db`` run does): the candidate pairs that run verified (``_webdedup_verified``, one
row a pair of texts, with its score), how many scored what, and, of those that scored under
0.1, how many join two pages of one host (since ``9728dd6`` the pairs compared by own texts
are there too, keyed by their own texts: counted, but not found on a host). Then, from one
database to the next, the growth exponent of each kind of pair (1.0: as the pages; 2.0: as
the pairs of pages). With ``--pool``, the sentences of the bench corpus's pool by language bucket
(``corpus/make_corpus.py`` draws each synthesized article's sentences from it).

On the bench's short-page corpus most candidates are pairs of two different synthesized
articles that share a few of the pool's sentences: their number grows as the pairs of pages
of one language, while the duplicates grow as the pages (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
from pathlib import Path

from webdedup import Config

#: Score bands of the verified pairs (the last one starts at the run's threshold).
LOW = 0.1


def figures(db: Path) -> dict:
    """Pages, the run's threshold and its verified pairs by score of one annotated database."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        pages = conn.execute("SELECT count(*) FROM _webdedup_prepared").fetchone()[0]
        params = conn.execute(
            "SELECT params FROM _webdedup_runs WHERE mode = 'full' ORDER BY id DESC LIMIT 1"
        ).fetchone()
        default = Config().threshold
        threshold = float(json.loads(params[0]).get("threshold", default)) if params else default
        total, low, middle, edges = conn.execute(
            "SELECT count(*), sum(score < :low), sum(score >= :low AND score < :t), "
            "sum(score >= :t) FROM _webdedup_verified",
            {"low": LOW, "t": threshold},
        ).fetchone()
        # a low pair's pages: one page of each text (the lowest id) and its host
        same_host = conn.execute(
            """
            WITH low AS (SELECT hash_a, hash_b FROM _webdedup_verified WHERE score < :low),
                 one AS (SELECT content_hash, min(id) AS id FROM _webdedup_content_hashes
                         GROUP BY content_hash)
            SELECT sum(pa.host IS pb.host)
            FROM low
            JOIN one AS oa ON oa.content_hash = low.hash_a
            JOIN one AS ob ON ob.content_hash = low.hash_b
            JOIN _webdedup_prepared AS pa ON pa.id = oa.id
            JOIN _webdedup_prepared AS pb ON pb.id = ob.id
            """,
            {"low": LOW},
        ).fetchone()[0]
    finally:
        conn.close()
    return {
        "pages": pages, "threshold": threshold, "candidates": total or 0,
        "low": low or 0, "middle": middle or 0, "edges": edges or 0,
        "low_same_host": same_host or 0,
    }


def pool_sentences() -> dict[str, int]:
    """The sentences of the bench corpus's pool, by language bucket."""
    from benchmarks.corpus import make_corpus

    pool = make_corpus.Pool()
    return {bucket: len(sents) for bucket, sents in sorted(pool.sentences.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("databases", nargs="+", type=Path, help="annotated databases")
    parser.add_argument("--pool", action="store_true", help="also count the corpus pool")
    args = parser.parse_args(argv)
    rows = sorted((figures(db) for db in args.databases), key=lambda r: r["pages"])
    print(f"{'pages':>10} {'candidates':>11} {'per page':>8} {'< 0.1':>10} {'share':>6} "
          f"{'same host':>9} {'0.1 to t':>9} {'>= t':>9}")
    for r in rows:
        share = r["low"] / r["candidates"] if r["candidates"] else 0.0
        print(f"{r['pages']:>10,} {r['candidates']:>11,} {r['candidates'] / r['pages']:>8.2f} "
              f"{r['low']:>10,} {share:>6.1%} {r['low_same_host']:>9,} {r['middle']:>9,} "
              f"{r['edges']:>9,}   (t = {r['threshold']})")
    for small, big in zip(rows, rows[1:], strict=False):
        if big["pages"] == small["pages"]:
            print(f"growth: two databases of {big['pages']:,} pages (none to measure)")
            continue
        step = math.log(big["pages"] / small["pages"])
        grow = {
            k: f"{math.log(big[k] / small[k]) / step:.2f}" if small[k] and big[k] else "n/a"
            for k in ("candidates", "low", "middle", "edges")
        }
        print(f"growth exponent {small['pages']:,} -> {big['pages']:,} pages (1.0: as the "
              f"pages, 2.0: as their pairs): all {grow['candidates']}, under {LOW} "
              f"{grow['low']}, 0.1 to t {grow['middle']}, edges {grow['edges']}")
    if args.pool:
        counts = pool_sentences()
        print("the corpus pool's sentences by bucket: "
              + ", ".join(f"{b} {n:,}" for b, n in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
