#!/usr/bin/env python3
"""Do near groups of real crawls rest on the pages' own content? (README, "Own content")

Ingests the real crawls of ``../shared/data`` once into ``--cache`` (``webdedup ingest``):

- ``warc``: every WARC of ``warc/`` (the 2008 Heritrix crawl of archive.org and 38 hosts,
  Common Crawl, data.gov.uk, iana.org, Wikipedia, a shop);
- ``aeb``: the 181 article pages of ``html/aeb``;
- ``aed``: the 421 news pages of ``html/aed``: about 212 sites with two *different* articles
  each (one template, two stories: the hard negatives).

Then runs ``webdedup db --full`` on a fresh copy of each for every method and threshold and
prints each near group, and every pair of pages of one group whose **own texts** differ:
a page's own text is its text without the lines (whitespace collapsed, 20 characters or
more) that 3 or more distinct texts of its host carry — computed here, independently of
webdedup's own pipeline — and two own texts differ when their Levenshtein (Indel) ratio,
normalized, is under 0.5. The target is no such pair anywhere.

    python -m benchmarks.studies.study_real_crawls [--methods minhash,simhash,levenshtein]
        [--thresholds 0.8,0.85,0.9,0.95] [--corpora warc,aeb,aed] [--groups] [--json]
        [--db-flags=--whole-text]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter
from itertools import combinations
from pathlib import Path

from rapidfuzz import fuzz

from webdedup.algorithms.segments import segment_key
from webdedup.algorithms.text import normalize_text

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
#: A line on this many distinct texts of a host is the host's (the study's own definition).
HOST_LINE_TEXTS = 3
#: Own texts under this Levenshtein ratio are "clearly different" (the issue's figure).
DIFFERENT_BELOW = 0.5


def corpus_inputs(data: Path) -> dict[str, list[Path]]:
    warcs = sorted(p for p in (data / "warc").iterdir() if p.is_file() and ".warc" in p.name)
    return {"warc": warcs, "aeb": [data / "html" / "aeb"], "aed": [data / "html" / "aed"]}


def ingested(cache: Path, name: str, inputs: list[Path]) -> Path:
    """The crawl ``name`` as a webdedup database (ingested once, kept in ``cache``)."""
    db = cache / f"study-{name}.sqlite"
    if not db.exists():
        cache.mkdir(parents=True, exist_ok=True)
        part = cache / f"study-{name}.part.sqlite"
        part.unlink(missing_ok=True)
        subprocess.run(
            [sys.executable, "-m", "webdedup.cli", "ingest", str(part), *map(str, inputs)],
            check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        part.rename(db)
    return db


def own_texts(conn: sqlite3.Connection) -> dict[int, str]:
    """Each processed page's own text: its normalized text without its host's lines."""
    rows = conn.execute(
        "SELECT p.id, pr.host, p.content, p.content_hash FROM pages AS p "
        "JOIN _webdedup_prepared AS pr ON pr.id = p.id WHERE pr.ignored IS NULL"
    ).fetchall()
    seen: set[tuple[str, str]] = set()
    counts: Counter[tuple[str, str]] = Counter()
    for _, host, text, chash in rows:
        if (host, chash) in seen:
            continue
        seen.add((host, chash))
        keys = {segment_key(line) for line in (text or "").splitlines()} - {""}
        counts.update((host, k) for k in keys)
    out = {}
    for pid, host, text, _ in rows:
        kept = [
            line for line in (text or "").splitlines()
            if counts[(host, segment_key(line))] < HOST_LINE_TEXTS or not segment_key(line)
        ]
        out[pid] = normalize_text("\n".join(kept))
    return out


def study(db: Path, method: str, threshold: float, tmp: Path, flags: list[str]) -> dict:
    copy = tmp / "run.sqlite"
    shutil.copy(db, copy)
    proc = subprocess.run(
        [sys.executable, "-m", "webdedup.cli", "db", str(copy), "--full", "--quiet",
         "--method", method, "--threshold", str(threshold), *flags],
        capture_output=True, text=True, check=False,
    )
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1:]}
    conn = sqlite3.connect(copy)
    own = own_texts(conn)
    members: dict[int, list[tuple[int, str, str | None]]] = {}
    for pid, group, url, kind in conn.execute(
        "SELECT id, dup_group, url, dup_kind FROM pages WHERE dup_group IN "
        "(SELECT dup_group FROM pages WHERE dup_kind = 'near') ORDER BY dup_group, id"
    ):
        members.setdefault(group, []).append((pid, url, kind))
    kinds = dict(conn.execute(
        "SELECT coalesce(dup_kind, 'canonical'), count(*) FROM pages GROUP BY 1"
    ).fetchall())
    conn.close()
    copy.unlink()
    bad = []
    for group, pages in members.items():
        distinct: dict[str, tuple[int, str]] = {}
        for pid, url, _ in pages:  # one page of each own text (exact copies add nothing)
            distinct.setdefault(own.get(pid, ""), (pid, url))
        for (ta, (a, ua)), (tb, (b, ub)) in combinations(distinct.items(), 2):
            ratio = fuzz.ratio(ta, tb) / 100.0
            if ratio < DIFFERENT_BELOW:
                bad.append({"group": group, "a": a, "b": b, "url_a": ua, "url_b": ub,
                            "own_ratio": round(ratio, 3), "own_chars": [len(ta), len(tb)]})
    return {
        "kinds": kinds,
        "near_groups": [
            {"group": g, "size": len(p), "urls": [u for _, u, _ in p]} for g, p in members.items()
        ],
        "different_own_pairs": bad,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "webdedup-study")
    ap.add_argument("--corpora", default="warc,aeb,aed")
    ap.add_argument("--methods", default="minhash,simhash,levenshtein")
    ap.add_argument("--thresholds", default="0.8,0.85,0.9,0.95")
    ap.add_argument("--groups", action="store_true", help="print every near group's URLs")
    ap.add_argument("--db-flags", default="", help="more options of webdedup db, e.g. "
                    "'--whole-text' (decide on whole texts, as before own content)")
    ap.add_argument("--json", action="store_true", help="the whole result as JSON")
    args = ap.parse_args(argv)
    inputs = corpus_inputs(args.data)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.corpora.split(","):
            db = ingested(args.cache, name, inputs[name])
            for method in args.methods.split(","):
                for t in (float(x) for x in args.thresholds.split(",")):
                    r = study(db, method, t, Path(tmp), args.db_flags.split())
                    r |= {"corpus": name, "method": method, "threshold": t}
                    results.append(r)
                    if not args.json:
                        report(r, args.groups)
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        print()
    else:
        total = sum(len(r.get("different_own_pairs", [])) for r in results)
        print(f"pairs with different own texts in one near group, all runs: {total}")
    return 0


def report(r: dict, groups: bool) -> None:
    head = f"{r['corpus']:<5} {r['method']:<12} {r['threshold']:.2f}"
    if "error" in r:
        print(f"{head}  error: {r['error']}")
        return
    sizes = sorted((g["size"] for g in r["near_groups"]), reverse=True)
    thin = r["kinds"].get("thin", 0)
    print(f"{head}  near groups {len(sizes):>3} (largest {sizes[:5]}), thin pages {thin:>3}, "
          f"pairs with different own texts {len(r['different_own_pairs'])}")
    if groups:
        for g in r["near_groups"]:
            print(f"    group {g['group']} ({g['size']}): " + " ".join(g["urls"][:6])
                  + (" ..." if g["size"] > 6 else ""))
    for p in r["different_own_pairs"][:10]:
        print(f"    own ratio {p['own_ratio']:.2f} (own chars {p['own_chars'][0]}, "
              f"{p['own_chars'][1]}): {p['url_a']}  {p['url_b']}")
    if len(r["different_own_pairs"]) > 10:
        print(f"    ... {len(r['different_own_pairs']) - 10} more")


if __name__ == "__main__":
    raise SystemExit(main())
