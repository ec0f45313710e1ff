"""``webdedup review``: the review app on a local HTTP server (the standard library's).

A thread per connection (:class:`ReviewServer`), each socket with a timeout: a browser's
requests and a verdict that waits for a ``webdedup db`` run's write lock do not queue behind
one another, and an idle or half-sent request cannot hold the app. The app itself renders one
page at a time (:class:`~.app.ReviewApp`).

Served on 127.0.0.1 by default; Ctrl-C or SIGTERM stops it (exit 0). Requests whose
``Host`` is not the address served are refused (a web page elsewhere cannot reach the app
through DNS rebinding), and every form carries the app's token (no other site can post a
verdict). What a browser or a stranger may send wrong (a malformed path or id, a bad
``Content-Length``, a body that never comes) gets a 4xx page, never a dropped connection.
"""

from __future__ import annotations

import re
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .app import Response, ReviewApp

#: Largest POST body read (a verdict form is a few hundred bytes).
MAX_BODY = 64 * 1024
#: Seconds a connection may stay silent (before its request, or in the middle of its body).
REQUEST_TIMEOUT = 10.0
_LENGTH = re.compile(r"[0-9]{1,18}")


def _plain(status: int, text: str, **headers: str) -> Response:
    return Response(status, (text + "\n").encode("utf-8"), "text/plain; charset=utf-8", headers)


def make_handler(
    app: ReviewApp, allowed_hosts: set[str], timeout: float = REQUEST_TIMEOUT
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "webdedup-review"

        def setup(self) -> None:
            super().setup()
            self.connection.settimeout(timeout)  # silent for longer: TimeoutError, closed

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
                "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; "
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
            self._send(_plain(421, "unknown Host for this review app"))
            return False

        def _answer(self, respond: Callable[[], Response]) -> None:
            """Send ``respond()``; a bug in it is a 500 page (and a traceback on stderr),
            not a dropped connection."""
            try:
                response = respond()
            except Exception:  # noqa: BLE001 - the last resort of one request
                traceback.print_exc(file=sys.stderr)
                self.close_connection = True
                response = _plain(500, "internal error of the review app (see its terminal)")
            self._send(response)

        def _target(self) -> tuple[str, dict[str, list[str]]] | None:
            try:
                parts = urlsplit(self.path)
                return parts.path, parse_qs(parts.query)
            except ValueError:  # e.g. "//[" (a malformed IPv6 host)
                return None

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            if not self._allowed():
                return
            target = self._target()
            if target is None:
                self._send(_plain(400, "malformed path"))
                return
            path, query = target
            self._answer(lambda: app.handle("GET", path, query, {}))

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            self.close_connection = True  # a body not read must not be taken for a request
            if not self._allowed():
                return
            target = self._target()
            if target is None:
                self._send(_plain(400, "malformed path"))
                return
            if self.headers.get("Transfer-Encoding"):
                self._send(_plain(411, "send the form with a Content-Length, not chunked"))
                return
            lengths = self.headers.get_all("Content-Length") or []
            if not lengths:
                self._send(_plain(411, "a POST needs a Content-Length"))
                return
            if len(set(lengths)) > 1 or not _LENGTH.fullmatch(lengths[0].strip()):
                self._send(_plain(400, "malformed Content-Length"))
                return
            length = int(lengths[0])
            if length > MAX_BODY:
                self._send(_plain(413, "request too large"))
                return
            try:
                raw = self.rfile.read(length)
            except TimeoutError:
                raw = b""
            if len(raw) < length:
                self._send(_plain(408, "the request body stopped short of its Content-Length"))
                return
            body = raw.decode("utf-8", "replace")
            path, query = target
            self._answer(lambda: app.handle("POST", path, query, parse_qs(body)))

    return Handler


class ReviewServer(ThreadingHTTPServer):
    """A thread per connection (daemon threads: stopping never waits for a silent client)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return  # the client went away or stayed silent: nothing to report
        super().handle_error(request, client_address)


def make_server(
    db: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8321,
    busy_timeout: float = 5.0,
    request_timeout: float = REQUEST_TIMEOUT,
) -> tuple[ReviewServer, ReviewApp]:
    """The server (bound, not yet serving) and its app; ``port`` 0 picks a free port.

    ``serve_forever()`` serves it; ``shutdown()`` then ``server_close()`` and the app's
    ``close()`` stop it.
    """
    app = ReviewApp(db, busy_timeout=busy_timeout)
    try:
        server = ReviewServer((host, port), make_handler(app, set(), request_timeout))
    except BaseException:
        app.close()
        raise
    real_port = server.server_address[1]
    names = {host, "localhost", "127.0.0.1", "[::1]"} if host in ("127.0.0.1", "localhost") else {
        host
    }
    allowed = {f"{n}:{real_port}".lower() for n in names} | (
        {n.lower() for n in names} if real_port == 80 else set()
    )
    server.RequestHandlerClass = make_handler(app, allowed, request_timeout)
    return server, app


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
    server, app = make_server(db, host=host, port=port, busy_timeout=busy_timeout)
    real_port = server.server_address[1]
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
