#!/usr/bin/env python3
"""Two costs every run pays, before and after 2026-11-28 (issue #33): the URL key of each
page, and numba's start.

    python -m benchmarks.studies.start_costs [--corpus PAGES.sqlite] [--rounds 3]

1. URL keys: microseconds a URL for ``canonicalize_url`` (the plain-URL path first) and for
   the rules alone (``_by_the_rules``, what every URL took before), on the URLs of
   ``--corpus``'s ``pages`` (else every URL of ``../shared/data``'s crawls and texts), the
   two timed in turn ``--rounds`` times (the best of each), and the share of plain URLs.
2. numba's start: CPU seconds of a fresh process from importing the kernels to the end of
   their first call, with numba's probe for a BLAS answered "none" (as ``kernels.py`` does)
   and with the probe run as numba runs it (``numba.np.arraymath`` imported first, which
   imports ``scipy.linalg``); ``--rounds`` processes each, alternating, the median of each.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: A fresh process's CPU from importing the kernels to the end of their first call
#: (``probed``: numba's own BLAS probe first, as before 2026-11-28).
START = r"""
import sys, time
c0 = time.process_time()
if sys.argv[1] == "probed":
    import numba.np.arraymath
from webdedup.algorithms.text import compiled
compiled().warm_up()
print(time.process_time() - c0, "scipy.linalg" in sys.modules)
"""


def real_urls() -> list[str]:
    """Every URL of ``../shared/data``'s WARC crawls and extracted texts, once each (the
    folder the tests read: ``WEBDEDUP_SHARED_DATA`` when set)."""
    from warcio.archiveiterator import ArchiveIterator

    shared = Path(os.environ.get("WEBDEDUP_SHARED_DATA", ROOT.parent / "shared" / "data"))
    urls: dict[str, None] = {}
    for path in sorted((shared / "warc").glob("*.warc*")):
        with path.open("rb") as fh:
            for record in ArchiveIterator(fh):
                uri = record.rec_headers.get_header("WARC-Target-URI")
                if uri:
                    urls[uri] = None
    with gzip.open(shared / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            urls[json.loads(line).get("url") or ""] = None
    return list(urls)


def url_keys(urls: list[str], rounds: int) -> dict[str, float]:
    from webdedup.algorithms.urls.canonical import _by_the_rules, _plain, canonicalize_url

    best = {"canonicalize_url": float("inf"), "the rules alone": float("inf")}
    for _ in range(rounds):
        for name, fn in (("canonicalize_url", canonicalize_url),
                         ("the rules alone", _by_the_rules)):
            t = time.perf_counter()
            for url in urls:
                fn(url)
            best[name] = min(best[name], time.perf_counter() - t)
    out = {name: 1e6 * seconds / max(len(urls), 1) for name, seconds in best.items()}
    out["plain share"] = sum(_plain(url) is not None for url in urls) / max(len(urls), 1)
    return out


def numba_start(rounds: int) -> dict[str, float]:
    runs: dict[str, list[float]] = {"answered": [], "probed": []}
    for _ in range(rounds):
        for side in runs:
            out = subprocess.run([sys.executable, "-c", START, side], capture_output=True,
                                 text=True, check=True, cwd=ROOT).stdout.split()
            runs[side].append(float(out[0]))
    return {side: statistics.median(cpu) for side, cpu in runs.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="a pages database (read only)")
    parser.add_argument("--limit", type=int, default=20_000, help="its first N URLs")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.corpus is not None:
        conn = sqlite3.connect(f"file:{args.corpus}?mode=ro", uri=True)
        try:
            urls = [r[0] for r in conn.execute("SELECT url FROM pages LIMIT ?", (args.limit,))]
        finally:
            conn.close()
        where = f"the first {len(urls):,} URLs of {args.corpus.name}"
    else:
        urls = real_urls()
        where = f"the {len(urls):,} URLs of ../shared/data"
    keys = url_keys(urls, args.rounds)
    print(f"URL keys, {where} (best of {args.rounds}):")
    print(f"  canonicalize_url {keys['canonicalize_url']:6.1f} us a URL, the rules alone "
          f"{keys['the rules alone']:6.1f} us ({100 * keys['plain share']:.0f} % plain)")
    start = numba_start(args.rounds)
    print(f"numba's start, CPU of a fresh process (median of {args.rounds}):")
    print(f"  probe answered {start['answered']:.2f} s, probed as numba does "
          f"{start['probed']:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
