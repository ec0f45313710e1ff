#!/usr/bin/env python3
"""Make the review manual's screenshots of ``webdedup review``: the queue (its first pair,
canonical and member side by side) and a group's page.

    python scripts/screenshot_queue.py [--warc fixtures/sample-crawl.warc.gz] [--db CRAWL.sqlite]
        [--queue-out docs/review-queue-screenshot.png] [--group-out docs/review-app-screenshot.png]

Without ``--db`` it ingests the WARC (the bundled real sample crawl by default) into a
temporary database and runs ``webdedup db`` on it. Then it serves the review app on a free
port of 127.0.0.1 (in this process) and photographs ``/queue/1`` and the page of the
queue's first group with headless chromium (``--chromium``, default ``/usr/bin/chromium``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from webdedup import Config, Deduplicator
from webdedup.ingest import ingest
from webdedup.review.server import make_server

ROOT = Path(__file__).resolve().parents[1]


def screenshot(chromium: str, url: str, out: Path, width: int, height: int) -> None:
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
             f"--window-size={width},{height}", f"--screenshot={out}", url],
            check=True, capture_output=True, timeout=120,
        )
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warc", type=Path, default=ROOT / "fixtures" / "sample-crawl.warc.gz")
    parser.add_argument("--db", type=Path, help="an annotated crawl (else one is made)")
    parser.add_argument("--queue-out", type=Path,
                        default=ROOT / "docs" / "review-queue-screenshot.png")
    parser.add_argument("--group-out", type=Path,
                        default=ROOT / "docs" / "review-app-screenshot.png")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args(argv)
    if not Path(args.chromium).is_file():
        parser.error(f"no chromium at {args.chromium}; run .ci/install-chromium.sh")
    with tempfile.TemporaryDirectory(prefix="webdedup-shots-") as tmp:
        db = args.db
        if db is None:
            db = Path(tmp) / "crawl.sqlite"
            ingest(db, [args.warc])
            Deduplicator(config=Config()).run_on_db(db)
        server, app = make_server(db, port=0)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            base = f"http://127.0.0.1:{server.server_address[1]}"
            group = app.handle("GET", "/queue/1", {}, {}).body.decode("utf-8")
            found = group.split('data-group="', 1)[1].split('"', 1)[0]
            screenshot(args.chromium, f"{base}/queue/1", args.queue_out, 1280, 900)
            screenshot(args.chromium, f"{base}/group/{found}", args.group_out, 1280, 1100)
        finally:
            server.shutdown()
            server.server_close()
            app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
