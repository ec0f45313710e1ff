#!/usr/bin/env python3
"""The text kernels of a run, timed in two checkouts, alternating (issue #33, item 4).

    python -m benchmarks.studies.kernel_ab --rev 8e6901d --rev HEAD [--corpus PAGES.sqlite]

On the texts of ``--corpus``'s ``pages`` (else every real text of ``../shared/data``'s
``texts.jsonl.gz``), each checkout's child process times, the best of ``--rounds``:

- ``normalize``: ``normalized_utf8`` of each text as phase 1 reads it (its UTF-8 bytes),
  nanoseconds a byte of input;
- ``lengths``: ``digest_parts`` of each normalized text (characters, words, the sketch's
  cut), nanoseconds a byte;
- ``shingles``: ``shingle_hashes_utf8`` of each normalized text (5-word shingles, sorted,
  unique: what verification compares), nanoseconds a byte;
- ``sketch``: ``minhash_signature`` of each normalized text (the default configuration's
  shingle size and its hasher's 128 permutations: what phase 1 computes of each page),
  nanoseconds a byte;
- ``coverage``: the moved ratio and containment of pairs of texts that share most of their
  lines (``match_scores``: each text against a copy of it with its first line moved to the
  end and its last fifth replaced by the next text's), microseconds a pair;
- ``verify``: the whole verification of those pairs from their normalized texts
  (``features`` of each side, then ``verify``), microseconds a pair.

Each child also prints a digest of every result, which must be the same in every child of
both checkouts (the kernels give the same answers, only faster or slower; the study fails
otherwise). ``--rev`` is a git
revision, checked out with ``git worktree`` (as ``nightly_ab`` does) and removed at the end;
``--tree`` a checkout on disk. A first child of each side, not counted, compiles its kernels
(numba caches them by source file).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from contextlib import ExitStack
from pathlib import Path

from benchmarks.speed.bench_scale import child
from benchmarks.studies.nightly_ab import _env, open_sides

ROOT = Path(__file__).resolve().parents[2]

#: The child: times the kernels of its checkout on the texts (argv[1]: a database or "").
TIMED = r"""
import gzip, hashlib, json, sqlite3, sys, time
from pathlib import Path
from webdedup.algorithms.sketch import features, match_scores, verify
from webdedup.algorithms.shingles import shingle_hashes_utf8
from webdedup.algorithms.text import compiled, normalized_utf8
from webdedup.config import Config
from webdedup.pipeline.char_cache import load_char_table

corpus, rounds, shared = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
if corpus:
    conn = sqlite3.connect(corpus)
    conn.text_factory = bytes
    texts = [r[0] for r in conn.execute("SELECT content FROM pages") if r[0]]
    conn.close()
else:
    with gzip.open(shared / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        texts = [json.loads(line)["text"].encode("utf-8", "surrogatepass") for line in fh]
load_char_table()
kernels = compiled()
kernels.warm_up()
spec = Config().near_spec()
perms = spec.hasher().permutations
norms = [normalized_utf8(t) for t in texts]
norms = [n for n in norms if n]


def copy_of(i):
    lines = texts[i].decode("utf-8", "replace").split("\n")
    nxt = texts[(i + 1) % len(texts)].decode("utf-8", "replace").split("\n")
    keep = lines[1:] + lines[:1]
    cut = len(keep) * 4 // 5
    return normalized_utf8("\n".join(keep[:cut] + nxt[: len(keep) - cut]).encode())


pairs = [(normalized_utf8(texts[i]), copy_of(i)) for i in range(0, len(texts), 2)]
pairs = [(a, b) for a, b in pairs if a and b]
size_in = sum(map(len, texts))
size_norm = sum(map(len, norms))


def best(work):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        out = work()
        times.append(time.perf_counter() - t)
    return min(times), hashlib.sha1(repr(out).encode()).hexdigest()[:12]


cap = 200_000
timed = {
    "normalize": best(lambda: [bytes(normalized_utf8(t)) for t in texts]) + (size_in, "ns/B"),
    "lengths": best(lambda: [kernels.digest_parts(n, cap) for n in norms]) + (size_norm, "ns/B"),
    "shingles": best(lambda: [shingle_hashes_utf8(n, 5).tobytes() for n in norms])
    + (size_norm, "ns/B"),
    "sketch": best(lambda: [kernels.minhash_signature(n, spec.shingle_size, *perms).tobytes()
                            for n in norms]) + (size_norm, "ns/B"),
    "coverage": best(lambda: [match_scores(spec, a, b) for a, b in pairs]) + (len(pairs), "us"),
    "verify": best(lambda: [verify(spec, features(spec, a), features(spec, b)).score
                            for a, b in pairs]) + (len(pairs), "us"),
}
out = {}
for name, (seconds, digest, amount, unit) in timed.items():
    scale = 1e9 if unit == "ns/B" else 1e6
    out[name] = {"per": seconds * scale / amount, "unit": unit, "digest": digest}
print(json.dumps({"texts": len(texts), "bytes": size_in, "pairs": len(pairs), "kernels": out}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", action="append", default=[], help="a git revision (repeat)")
    parser.add_argument("--tree", action="append", default=[], type=Path,
                        help="a checkout on disk (repeat)")
    parser.add_argument("--corpus", type=Path, help="a database whose pages' texts to time")
    parser.add_argument("--rounds", type=int, default=3, help="timings of each kernel a child")
    parser.add_argument("--children", type=int, default=2, help="children of each side")
    args = parser.parse_args(argv)
    if not args.rev and not args.tree:
        parser.error("give at least one --rev or --tree")
    if args.rounds < 1 or args.children < 1:
        parser.error("--rounds and --children take 1 or more")
    if args.corpus is not None and not args.corpus.exists():
        parser.error(f"{args.corpus}: no such database")
    corpus = str(args.corpus.resolve()) if args.corpus else ""
    # the folder the tests read (``WEBDEDUP_SHARED_DATA`` when set)
    shared = Path(os.environ.get("WEBDEDUP_SHARED_DATA", ROOT.parent / "shared" / "data"))
    with ExitStack() as stack:
        sides = open_sides(args.rev, args.tree, stack)
        found: dict[str, list[dict]] = {name: [] for name in sides}
        for k in range(-1, args.children):  # a first child of each side compiles
            for name, tree in (reversed(sides.items()) if k % 2 else sides.items()):
                r = child(TIMED, corpus, str(args.rounds), str(shared.resolve()), cwd=tree,
                          env=_env(tree))
                if k >= 0:
                    found[name].append(r)
        first = next(iter(found.values()))[0]
        print(f"{first['texts']:,} texts, {first['bytes'] / 1e6:.1f} MB; "
              f"{first['pairs']:,} pairs")
        digests = set()
        for name, runs in found.items():
            cells = []
            for kernel in first["kernels"]:
                per = statistics.median(r["kernels"][kernel]["per"] for r in runs)
                unit = first["kernels"][kernel]["unit"]
                cells.append(f"{kernel} {per:.2f} {unit}")
                digests |= {(kernel, r["kernels"][kernel]["digest"]) for r in runs}
            print(f"{name}: " + ", ".join(cells))
        same = len(digests) == len(first["kernels"])
        print("results: the same in every checkout" if same else
              "results: DIFFER between the checkouts")
        print(json.dumps({name: [r["kernels"] for r in runs] for name, runs in found.items()}))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
