"""The HTML review page as a reviewer sees it, in a real headless browser (Debian's chromium).

Skipped when chromium is not installed; ``.ci/install-chromium.sh`` installs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_export import NEAR_URL, SCRIPT_TITLE, crawl, page_id  # noqa: F401 - fixture

from webdedup.output import export


def _find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


CHROMIUM = _find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (no /usr/bin/chromium): run .ci/install-chromium.sh "
    "or apt-get install chromium to test the review page in a real browser",
)


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


class DomReader(HTMLParser):
    """The elements and the visible text of a dumped DOM."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.headings: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in.append(tag)
        if tag == "h2":
            self.headings.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._in:
            while self._in and self._in.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if "h2" in self._in and self.headings:
            self.headings[-1] += data


def test_review_page_in_headless_chromium(crawl, tmp_path):  # noqa: F811
    page = tmp_path / "review.html"
    summary = export(crawl, html_path=page)
    assert summary.review_groups

    res = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert res.returncode == 0 and "<html" in res.stdout, res.stderr[-2000:]
    dom = DomReader()
    dom.feed(res.stdout)
    text = "".join(dom.text)

    # the hostile title is shown as text; the one script element is the page's own filters
    assert SCRIPT_TITLE in text
    assert dom.tags.count("script") == 1
    assert "svg" in dom.tags and "Contents" in text  # the pictures and the contents
    # nothing that would fetch from elsewhere
    for tag in ("img", "link", "iframe", "object", "embed"):
        assert tag not in dom.tags
    # the groups, largest first, each with its heading
    groups = [h for h in dom.headings if h.startswith("Group ")]
    assert len(groups) == summary.review_groups
    sizes = [int(h.split(" · ")[1].split()[0]) for h in groups]
    assert sizes == sorted(sizes, reverse=True)
    # the near copy's member is there with its changed words marked
    assert NEAR_URL in text and "ins" in dom.tags and "del" in dom.tags
    assert "word similarity" in text

    # the in-page filters, set from the query string: only groups with a near member stay
    res = chromium(tmp_path, "--dump-dom", page.as_uri() + "?kind=near")
    assert res.returncode == 0, res.stderr[-2000:]
    sections = re.findall(r'<section class="group"[^>]*>', res.stdout)
    visible = [s for s in sections if " hidden" not in s]
    assert sections and visible and len(visible) < len(sections)
    assert all("near" in s for s in visible)
    assert all("near" not in s.split("data-kinds=")[1] for s in sections if " hidden" in s)

    shot = tmp_path / "review.png"
    res = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,1600", page.as_uri())
    assert res.returncode == 0, res.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
