"""``webdedup review``: the review app on a local HTTP server (the standard library's).

One request at a time, in the serving thread: the app is for one reviewer's browser.

Served on 127.0.0.1 by default; Ctrl-C or SIGTERM stops it (exit 0). Requests whose
``Host`` is not the address served are refused (a web page elsewhere cannot reach the app
through DNS rebinding), and every form carries the app's token (no other site can post a
verdict).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .app import Response, ReviewApp

#: Largest POST body read (a verdict form is a few hundred bytes).
MAX_BODY = 64 * 1024


def make_handler(app: ReviewApp, allowed_hosts: set[str]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "webdedup-review"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            pass  # quiet: the terminal shows only what the command prints

        def _send(self, response: Response) -> None:
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Frame-Options", "DENY")
            self.send_header(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                "form-action 'self'; frame-ancestors 'none'",
            )
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(response.body)

        def _allowed(self) -> bool:
            host = (self.headers.get("Host") or "").lower()
            if host in allowed_hosts:
                return True
            self._send(Response(421, b"unknown Host for this review app\n", "text/plain"))
            return False

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            if not self._allowed():
                return
            parts = urlsplit(self.path)
            self._send(app.handle("GET", parts.path, parse_qs(parts.query), {}))

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            if not self._allowed():
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._send(Response(413, b"request too large\n", "text/plain"))
                return
            body = self.rfile.read(length).decode("utf-8", "replace")
            parts = urlsplit(self.path)
            self._send(app.handle("POST", parts.path, parse_qs(parts.query), parse_qs(body)))

    return Handler


def serve(
    db: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8321,
    busy_timeout: float = 5.0,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve the review app until Ctrl-C or SIGTERM (then return normally).

    ``port`` 0 picks a free port; ``on_ready`` gets the URL once the server listens.
    """
    app = ReviewApp(db, busy_timeout=busy_timeout)
    # one request at a time, in this thread (the app's SQLite connection belongs to it): a
    # reviewer's browser is the only client
    server = HTTPServer((host, port), make_handler(app, set()))
    real_port = server.server_address[1]
    names = {host, "localhost", "127.0.0.1", "[::1]"} if host in ("127.0.0.1", "localhost") else {
        host
    }
    allowed = {f"{n}:{real_port}".lower() for n in names} | (
        {n.lower() for n in names} if real_port == 80 else set()
    )
    server.RequestHandlerClass = make_handler(app, allowed)
    stop = threading.Event()

    def on_term(_signum: int, _frame: Any) -> None:
        stop.set()
        threading.Thread(target=server.shutdown, daemon=True).start()

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, on_term)
    try:
        if on_ready is not None:
            on_ready(f"http://{host}:{real_port}/")
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        app.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
