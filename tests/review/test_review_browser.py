"""The review pages as a reviewer sees them, in a real headless browser (Debian's chromium):
the static HTML review page of ``export --html``, and the ``webdedup review`` app (search,
filters, a verdict; the queue driven with the keyboard), whose verdicts the next ``webdedup
db`` run honours.

The app is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``: JSON
messages ending in NUL on file descriptors 3 and 4), with the standard library only. Skipped
when chromium is not installed (``.ci/install-chromium.sh`` installs it); the same actions
are tested over plain HTTP in ``test_review_app.py`` and ``test_review_queue.py`` either way.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, annotations
from test_export import NEAR_URL, SCRIPT_TITLE, crawl, page_id  # noqa: F401 - fixture
from test_review_app import start_review, stop
from test_verdicts import CANONICAL, GROUP, near_family

from webdedup import Config, Deduplicator
from webdedup.ingest import ingest
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


def _onto_3_and_4(read_end: int, write_end: int) -> None:
    """In the child: the pipe chromium reads on fd 3, the one it writes on fd 4."""
    r, w = os.dup(read_end), os.dup(write_end)  # safe even if either is 3 or 4 already
    os.dup2(r, 3)
    os.dup2(w, 4)


class Browser:
    """One headless chromium page, driven over the DevTools pipe."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        to_browser_r, self._send_fd = os.pipe()
        self._recv_fd, from_browser_w = os.pipe()
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
             "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),  # kept open in the child after _onto_3_and_4 put the pipes there
            preexec_fn=lambda: _onto_3_and_4(to_browser_r, from_browser_w),
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._id = 0
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        self.session = attached["sessionId"]

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False
             ) -> dict[str, Any]:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._send_fd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    if "error" in reply:
                        raise AssertionError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            chunk = os.read(self._recv_fd, 1 << 16)
            if not chunk:
                raise AssertionError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raise AssertionError(f"no answer to {method}")

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True
        )
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        """Poll ``expression`` until it is truthy (pages load and navigate meanwhile)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except AssertionError:  # a navigation destroyed the context: try again
                value = None
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {expression}")

    def goto(self, url: str) -> None:
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for(f"document.readyState === 'complete' && location.href === {json.dumps(url)}")

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._send_fd)
        os.close(self._recv_fd)


def test_review_app_in_headless_chromium(tmp_path):
    db = near_family(tmp_path / "crawl.sqlite")
    Deduplicator(config=Config()).run_on_db(db)
    served = start_review(db)
    browser = Browser(tmp_path / "profile")
    try:
        browser.goto(served.url)
        assert browser.evaluate("document.querySelectorAll('section.group').length") == 1
        assert browser.evaluate("document.querySelectorAll('svg').length") == 2
        # search: type into the box and submit the form as a reviewer would
        browser.evaluate(
            "document.querySelector('input[name=q]').value = 'no-such-page';"
            "document.getElementById('filters').requestSubmit()"
        )
        browser.wait_for("location.search.includes('q=no-such-page') && "
                         "document.readyState === 'complete'")
        assert "0 groups match" in browser.evaluate("document.body.innerText")
        # filter by kind (cleared search)
        browser.goto(served.url)
        browser.evaluate(
            "document.querySelector('select[name=kind]').value = 'near';"
            "document.getElementById('filters').requestSubmit()"
        )
        browser.wait_for("location.search.includes('kind=near') && "
                         "document.readyState === 'complete'")
        assert "1 groups match" in browser.evaluate("document.body.innerText")
        # a verdict: #3 is not a duplicate of its canonical #1
        browser.evaluate("document.querySelector('button[value=\"not_duplicate-3\"]').click()")
        browser.wait_for("location.pathname === '/group/1' && document.readyState === 'complete'")
        assert "#3 is not a duplicate of #1" in browser.evaluate("document.body.innerText")
    finally:
        browser.close()
        assert stop(served) == 0
    result = Deduplicator(config=Config()).run_on_db(db)
    assert result.mode == "incremental"
    rows = annotations(db)
    assert rows[3][GROUP] != rows[1][GROUP] and rows[2][CANONICAL] == 1


#: DevTools key events for the queue's keys.
KEYS = {"a": ("KeyA", 65), "n": ("KeyN", 78), "c": ("KeyC", 67), "u": ("KeyU", 85),
        "j": ("KeyJ", 74), "k": ("KeyK", 75)}


def press(browser: Browser, key: str) -> None:
    code, vk = KEYS[key]
    for kind in ("keyDown", "keyUp"):
        event = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk}
        if kind == "keyDown":
            event["text"] = key
        browser.call("Input.dispatchKeyEvent", event, session=True)


def shown(browser: Browser) -> dict[str, int]:
    """The queue page's pair, once it has loaded (its position, member, canonical, group)."""
    data = browser.wait_for(
        "document.readyState === 'complete' && document.querySelector('main.queue') && "
        "JSON.stringify(document.querySelector('main.queue').dataset)"
    )
    return {k: int(v) for k, v in json.loads(data).items()}


def press_and_wait(browser: Browser, key: str, before: dict[str, int]) -> dict[str, int]:
    press(browser, key)
    browser.wait_for(f"location.pathname !== '/queue/{before['pos']}'")
    return shown(browser)


def test_the_queue_driven_with_the_keyboard_through_ten_groups(tmp_path):
    """A reviewer's session on the bundled real crawl: not a duplicate, duplicate, make
    canonical then undo, make canonical, next and previous, ten groups; the next run honours
    each decision."""
    db = tmp_path / "crawl.sqlite"
    ingest(db, [FIXTURES / "sample-crawl.jsonl.gz"], workers=1)
    Deduplicator(config=Config()).run_on_db(db)
    served = start_review(db)
    browser = Browser(tmp_path / "profile")
    try:
        browser.goto(served.url + "queue/1")
        first = shown(browser)
        assert "0 decided today" in browser.evaluate("document.body.innerText")
        assert browser.evaluate("document.querySelectorAll('table.sbs td').length") > 2
        # 1: not a duplicate (the queue opens on a near pair, the closest to the threshold)
        assert browser.evaluate("!!document.getElementById('reject')")
        second = press_and_wait(browser, "n", first)
        assert second["pos"] == 2 and "1 decided today" in browser.evaluate(
            "document.body.innerText")
        # 2: duplicate
        third = press_and_wait(browser, "a", second)
        # 3: make canonical, then undo: back on the same pair, its verdict withdrawn
        after = press_and_wait(browser, "c", third)
        assert after["pos"] == third["pos"] + 1
        back = press_and_wait(browser, "u", after)
        assert back == third and "2 decided today" in browser.evaluate(
            "document.body.innerText")
        assert browser.evaluate("!document.querySelector('p.decided')")
        fourth = press_and_wait(browser, "a", third)
        # next and previous without deciding
        skipped = press_and_wait(browser, "j", fourth)
        assert press_and_wait(browser, "k", skipped) == fourth
        # 4: make canonical
        pairs = [first, second, third, fourth]
        current = press_and_wait(browser, "c", fourth)
        groups = {p["group"] for p in pairs}
        while len(groups) < 10:  # the rest of ten groups accepted
            pairs.append(current)
            groups.add(current["group"])
            current = press_and_wait(browser, "a", current)
        text = browser.evaluate("document.body.innerText")
        assert f"{len(pairs)} decided today" in text
    finally:
        browser.close()
        assert stop(served) == 0
    result = Deduplicator(config=Config()).run_on_db(db)
    assert result.mode == "incremental"
    rows = annotations(db)
    # not a duplicate: apart; duplicate: together; the undone choice left the canonical as it
    # was; the chosen canonical elected; every accepted pair still together
    assert rows[first["member"]][GROUP] != rows[first["canonical"]][GROUP]
    assert rows[second["member"]][CANONICAL] == second["canonical"]
    assert rows[third["member"]][CANONICAL] == third["canonical"]
    assert rows[fourth["canonical"]][CANONICAL] == fourth["member"]
    for pair in pairs[4:]:
        assert rows[pair["member"]][CANONICAL] == pair["canonical"]
