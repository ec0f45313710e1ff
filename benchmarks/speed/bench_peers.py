#!/usr/bin/env python3
"""The peers of ``bench.py``: plain MinHash-LSH pipelines as a user would write them.

    python -m benchmarks.speed.bench_peers rensa CORPUS.sqlite
    python -m benchmarks.speed.bench_peers datasketch CORPUS.sqlite
    python -m benchmarks.speed.bench_peers floor CORPUS.sqlite

Each reads ``pages`` (id, content) from the SQLite file and shingles each text the way the
near-duplicate tools people compare against do (text-dedup's and datatrove's MinHash
deduplication, and the tools of seeds 000 and 003): the lower-cased text split into words
(runs of word characters, punctuation dropped), every run of 5 consecutive words one
shingle, the set of them hashed into a 128-permutation MinHash (a text of fewer than 5 words
is one shingle). It inserts each MinHash into the library's LSH index (threshold 0.8),
queries every page, joins the matches with union-find, and writes each page's group (the
smallest page id in it) into a ``dup_group`` column of ``pages``, in one transaction, as a
user's script would; one core. It prints one JSON line: wall and CPU seconds, peak RSS,
pages and groups. Install the peers with ``pip install -e '.[bench]'``.

``floor`` is not a peer but what webdedup's output alone costs: it reads every text (as
bytes, as webdedup reads them) and writes webdedup's nine annotation columns onto every row
of ``pages`` (SQLite rewrites a row whole, its text included, when the row grows), in WAL mode
with webdedup's ``synchronous`` and cache settings, then checkpoints. It finds no duplicates
(each page is its own group, its URL its canonical URL): a pipeline that writes these columns
onto ``pages`` with the same durability cannot be faster (one that turns the journal or the
syncing off can).
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from benchmarks.speed.bench import peak_kib

NUM_PERM = 128
THRESHOLD = 0.8
SEED = 42
NGRAM = 5  # word 5-grams: text-dedup's and datatrove's default
WORD = re.compile(r"\w+")


def shingles(text: str) -> set[str]:
    """The word 5-grams of the lower-cased text (one shingle if it has fewer words)."""
    words = WORD.findall(text.lower())
    if len(words) < NGRAM:
        return {" ".join(words)}
    return {" ".join(words[i : i + NGRAM]) for i in range(len(words) - NGRAM + 1)}


def pages(db: sqlite3.Connection) -> Iterator[tuple[int, set[str]]]:
    for pid, text in db.execute("SELECT id, content FROM pages ORDER BY id"):
        yield pid, shingles(text or "")


def find(parent: dict[int, int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def write_groups(db: sqlite3.Connection, parent: dict[int, int]) -> int:
    """Each page's group onto its row of ``pages`` (``dup_group``), one transaction."""
    groups = {pid: find(parent, pid) for pid in parent}
    db.execute("ALTER TABLE pages ADD COLUMN dup_group INTEGER")
    db.executemany(
        "UPDATE pages SET dup_group = ? WHERE id = ?", ((g, pid) for pid, g in groups.items())
    )
    db.commit()
    return len(set(groups.values()))


def union_all(parent: dict[int, int], pid: int, matches: list[int]) -> None:
    for other in matches:
        a, b = find(parent, pid), find(parent, other)
        if a != b:
            parent[max(a, b)] = min(a, b)


def lsh_pipeline(
    db: sqlite3.Connection, lsh: Any, sketch: Callable[[set[str]], Any]
) -> dict[int, int]:
    """Sketch and index every page, then query each and join its matches (union-find)."""
    sketches = {}
    for pid, grams in pages(db):
        m = sketch(grams)
        lsh.insert(pid, m)
        sketches[pid] = m
    parent = {pid: pid for pid in sketches}
    for pid, m in sketches.items():
        union_all(parent, pid, [o for o in lsh.query(m) if o != pid])
    return parent


def rensa_pipeline(db: sqlite3.Connection) -> dict[int, int]:
    from rensa import RMinHash, RMinHashLSH

    def sketch(grams: set[str]) -> RMinHash:
        m = RMinHash(num_perm=NUM_PERM, seed=SEED)
        m.update(list(grams))
        return m

    lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=16)
    return lsh_pipeline(db, lsh, sketch)


def datasketch_pipeline(db: sqlite3.Connection) -> dict[int, int]:
    from datasketch import MinHash, MinHashLSH

    def sketch(grams: set[str]) -> MinHash:
        m = MinHash(num_perm=NUM_PERM, seed=SEED)
        m.update_batch([g.encode("utf-8", "surrogatepass") for g in grams])
        return m

    return lsh_pipeline(db, MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM), sketch)


def annotate_floor(db: sqlite3.Connection) -> int:
    """Read every text, write the annotation columns onto every page row, checkpoint;
    returns the pages."""
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA cache_size = -65536")  # webdedup's own settings (store/connection.py)
    db.text_factory = bytes
    read = sum(1 for _ in db.execute("SELECT id, content FROM pages ORDER BY id"))
    for column in FLOOR_COLUMNS.splitlines():
        db.execute(f"ALTER TABLE pages ADD COLUMN {column}")
    db.execute(
        "UPDATE pages SET canonical_url = url, content_hash = printf('%040d', id), "
        "exact_group_size = 1, dup_group = id, dup_group_size = 1, canonical_id = id, "
        "is_canonical = 1, dup_kind = NULL, dup_score = NULL"
    )
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    return read


#: webdedup's output columns (webdedup/store/schema.py OUTPUT_COLUMNS), as the floor adds them.
FLOOR_COLUMNS = """canonical_url TEXT
content_hash TEXT
exact_group_size INTEGER
dup_group INTEGER
dup_group_size INTEGER
canonical_id INTEGER
is_canonical INTEGER
dup_kind TEXT
dup_score REAL"""


PEERS: dict[str, Callable[[sqlite3.Connection], dict[int, int]]] = {
    "rensa": rensa_pipeline,
    "datasketch": datasketch_pipeline,
}


def main(argv: list[str]) -> int:
    name, path = argv
    t0, c0 = time.perf_counter(), time.process_time()
    db = sqlite3.connect(path)
    if name == "floor":
        pages_read = groups = annotate_floor(db)
    else:
        parent = PEERS[name](db)
        pages_read, groups = len(parent), write_groups(db, parent)
    db.close()
    print(
        json.dumps(
            {
                "wall": time.perf_counter() - t0,
                "cpu": time.process_time() - c0,
                "pages": pages_read,
                "groups": groups,
                "maxrss_kib": peak_kib(),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
