#!/usr/bin/env python3
"""Make the README's screenshot of the HTML review page (docs/review-screenshot.png).

    python scripts/screenshot_review.py [--db ANNOTATED.sqlite] [--out docs/review-screenshot.png]

Without ``--db`` it builds a small demo crawl from the real texts of
``../shared/data/texts.jsonl.gz`` (or ``--texts``): originals, URL variants with tracking
parameters, re-crawls whose text changed a little, exact mirrors and syndicated near copies,
and runs ``webdedup db`` on it. Then it exports the review page with ``webdedup export
--html`` and photographs it with headless chromium (``--chromium``, default
``/usr/bin/chromium``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from webdedup import Config, Deduplicator
from webdedup.output import export

ROOT = Path(__file__).resolve().parents[1]
TEXTS = Path(
    os.environ.get("WEBDEDUP_SHARED_DATA", ROOT.parent / "shared" / "data")
) / "texts.jsonl.gz"


def load_texts(path: Path, n: int) -> list[str]:
    """The first ``n`` distinct English-looking texts of 150 to 600 words."""
    out: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line)["text"]
            words = text.split()
            if 150 <= len(words) <= 600 and " the " in text and text not in out:
                out.append(text)
                if len(out) == n:
                    break
    return out


def edited(text: str, every: int, word: str) -> str:
    words = text.split(" ")
    for k in range(every // 2, len(words), every):
        words[k] = word
    return " ".join(words)


def build_demo(path: Path, texts_path: Path) -> None:
    """A small crawl with every kind of duplicate, annotated by ``webdedup db``."""
    texts = load_texts(texts_path, 8)
    rows: list[tuple[str, str, str, str | None]] = []
    for i, text in enumerate(texts):
        base = f"https://news{i % 3}.example.org/2024/story-{i}"
        rows.append((base, f"Story {i}: {text.split('.')[0][:60]}", text, "2024-05-02"))
        if i % 2 == 0:
            rows.append((base.replace("https://", "http://www.") + "?utm_source=rss",
                         f"Story {i} (feed link)", text, "2024-05-01"))
        if i % 3 == 0:
            rows.append((base, f"Story {i} (re-crawl)",
                         edited(text, 90, "updated") + " 14 comments", "2024-05-03"))
        if i % 4 == 0:
            rows.append((f"https://mirror.example.net/{i}", "<script>alert(1)</script>",
                         text.upper(), None))
        if i % 3 == 1:
            rows.append((f"https://partner.example.com/syndicated/{i}", f"Syndicated story {i}",
                         edited(text, 120, "reportedly") + " Read more on our partner site.",
                         "2024-05-02"))
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT, title TEXT, "
                 "content TEXT, crawled TEXT)")
    conn.executemany("INSERT INTO pages (url, title, content, crawled) VALUES (?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()
    Deduplicator(config=Config()).run_on_db(path)


def screenshot(chromium: str, page: Path, out: Path, width: int, height: int) -> None:
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--no-first-run", "--hide-scrollbars",
             f"--user-data-dir={profile}", f"--window-size={width},{height}",
             f"--screenshot={out}", page.as_uri()],
            check=True, capture_output=True, timeout=120,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="an annotated crawl (default: build a demo)")
    parser.add_argument("--texts", type=Path, default=TEXTS, help="texts.jsonl.gz for the demo")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "review-screenshot.png")
    parser.add_argument("--html", type=Path, help="also keep the review page here")
    parser.add_argument("--max-groups", type=int, default=6)
    parser.add_argument("--size", default="1280x1500", help="window WIDTHxHEIGHT")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args(argv)
    if not Path(args.chromium).is_file():
        parser.error(f"no chromium at {args.chromium}; run .ci/install-chromium.sh")
    width, height = (int(x) for x in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory(prefix="review-") as tmp:
        db = args.db
        if db is None:
            db = Path(tmp) / "demo.sqlite"
            build_demo(db, args.texts)
        page = args.html or Path(tmp) / "review.html"
        summary = export(db, html_path=page, max_groups=args.max_groups)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        screenshot(args.chromium, page, args.out, width, height)
    print(f"{args.out}: {summary.review_groups} groups, {width}x{height}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
