"""``webdedup review`` driven in a real headless chromium: search, filter, a verdict, and the
next ``webdedup db`` run honours it.

Chromium is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``: JSON
messages ending in NUL on file descriptors 3 and 4), with the standard library only. Skipped
when chromium is not installed (``.ci/install-chromium.sh`` installs it); the same actions
are tested over plain HTTP in ``test_review_app.py`` either way.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import annotations
from test_review_app import start_review, stop
from test_review_browser import CHROMIUM
from test_verdicts import CANONICAL, GROUP, near_family

from webdedup import Config, Deduplicator

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (no /usr/bin/chromium): run .ci/install-chromium.sh",
)


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
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--disable-background-networking",
             f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
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
