"""What language detection costs: per page, and in a whole ``webdedup db`` run.

    python scripts/bench_language.py CORPUS.sqlite [--pages 20000] [--no-run]

CORPUS.sqlite is made first when missing (``scripts/make_corpus.py --pages N --seed 1``: the
real texts of ../shared/data and pages derived from them). Prints

1. detection alone: py3langid over every page's text in one process (wall and CPU seconds,
   CPU ms a page — CPU time, since a shared machine's wall time says little — and the
   languages found);
2. unless ``--no-run``: a full ``webdedup db`` run in one worker process (``workers=1``) on a
   copy of the corpus with detection, and one with detection switched off in this process
   (``language.detect`` answering "no language"), so the difference is what detection adds.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webdedup import Deduplicator  # noqa: E402
from webdedup.algorithms import language  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--no-run", action="store_true", help="only time detection alone")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    if not corpus.exists():
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "make_corpus.py"), str(corpus),
             "--pages", str(args.pages), "--seed", "1", "--no-measure"],
            check=True,
        )
    with sqlite3.connect(corpus) as conn:
        texts = [r[0] for r in conn.execute("SELECT content FROM pages ORDER BY rowid")]
    chars = sum(len(t or "") for t in texts)
    print(f"{len(texts):,} pages, {chars / max(1, len(texts)):,.0f} characters a page")
    t0 = time.perf_counter()
    language.detect("warm up: load the model once")
    print(f"model load: {time.perf_counter() - t0:.2f} s (once per process)")
    t0, c0 = time.perf_counter(), time.process_time()
    found = Counter(language.detect(t).lang for t in texts)
    spent, cpu = time.perf_counter() - t0, time.process_time() - c0
    n = max(1, len(texts))
    print(f"detection alone: {spent:.1f} s wall, {cpu:.1f} s CPU; {1000 * cpu / n:.2f} ms CPU "
          f"a page (one core); languages: {dict(found.most_common(8))}")
    print(f"at that rate 1,000,000 pages take {cpu / n * 1e6 / 60:.0f} CPU minutes "
          "(phase 1 spreads them over the workers)")
    if args.no_run:
        return
    timings = {}
    real_detect = language.detect
    for name in ("with detection", "detection off"):
        language.detect = real_detect if name == "with detection" else (  # type: ignore
            lambda text: language.NONE
        )  # (and detect_language: the default run does not detect at all)
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "c.sqlite"
            shutil.copy(corpus, copy)
            c0 = time.process_time()
            result = Deduplicator(workers=1, detect_language=True).run_on_db(copy, full=True)
            timings[name] = time.process_time() - c0
            print(f"webdedup db, {name}: {timings[name]:.1f} s CPU, "
                  f"{result.summary().splitlines()[0]}")
    language.detect = real_detect
    extra = timings["with detection"] - timings["detection off"]
    print(f"detection adds {extra:.1f} s CPU to the run "
          f"({100 * extra / timings['detection off']:.0f} %)")


if __name__ == "__main__":
    main()
