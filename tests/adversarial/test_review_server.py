"""``webdedup review`` against what a browser or a stranger may send, over real sockets.

Malformed group ids and raw bytes in the path, bad ``Content-Length`` headers and bodies that
never come get a 4xx response (never a dropped connection or a traceback); a silent
connection does not hold up other clients; a form's ``back`` field cannot add a header or
send the browser elsewhere; a verdict on a page that does not exist is refused, and the same
verdict posted twice is stored once. The server is the real one (``make_server``) on a free
port of 127.0.0.1, with a short request timeout.
"""

from __future__ import annotations

import http.client
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from test_verdicts import near_family

from webdedup import Deduplicator
from webdedup.review.server import ReviewServer, make_server

TIMEOUT = 1.0  # the server's request timeout in these tests


@dataclass
class Served:
    server: ReviewServer
    port: int
    token: str
    db: Path

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"


@pytest.fixture
def served(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> Iterator[Served]:
    db = near_family(tmp_path / "crawl.sqlite")
    Deduplicator().run_on_db(db)
    server, app = make_server(db, port=0, request_timeout=TIMEOUT)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield Served(server, server.server_address[1], app.token, db)
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()
        app.close()
    assert "Traceback" not in capfd.readouterr().err  # nothing a client sent broke a request


def raw(served: Served, data: bytes, *, wait: float = 5.0) -> bytes:
    """Send ``data`` on a fresh socket; everything the server answers until it closes."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=wait) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def status_of(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/"), f"no HTTP response (connection dropped): {answer[:80]!r}"
    return int(answer.split(b" ", 2)[1])


def request(
    served: Served, method: str, path: str, body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def verdict_form(served: Served, **fields: str) -> bytes:
    form = {"token": served.token, "kind": "not_duplicate", "page_a": "3", "page_b": "1"}
    form.update(fields)
    return urlencode(form).encode()


def post_verdict(served: Served, **fields: str) -> http.client.HTTPResponse:
    return request(
        served, "POST", "/verdict", verdict_form(served, **fields),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )


def verdicts(db: Path) -> list[tuple[str, int, int]]:
    conn = sqlite3.connect(db)
    try:
        return list(conn.execute("SELECT kind, page_a, page_b FROM _webdedup_verdicts"))
    except sqlite3.OperationalError:  # no verdict table: none was ever stored
        return []
    finally:
        conn.close()


def test_malformed_group_ids_get_a_404(served):
    for ref in ["99999999999999999999999", "9" * 5000, "9223372036854775808", "-1", "1.0",
                "%31", "0x1"]:
        response = request(served, "GET", f"/group/{ref}")
        assert response.status == 404, ref
    assert request(served, "GET", "/group/1").status == 200  # the real one still answers


def test_raw_bytes_in_the_path_get_a_4xx(served):
    host = served.host.encode()
    for path in [b"/group/\xb2", b"/group/\xd9\xa1", b"/group/1\x00", b"/\xff\xfe",
                 b"//[::1", b"/?q=\xff&page=\xb9"]:
        answer = raw(served, b"GET " + path + b" HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
        assert 400 <= status_of(answer) < 500, path


def test_bad_content_length_gets_a_4xx(served):
    host = served.host.encode()
    body = verdict_form(served)
    for length, status in [(b"abc", 400), (b"-1", 400), (b"1e3", 400), (b"", 400),
                           (b"99999999999999999999999", 400), (b"70000", 413)]:
        answer = raw(served, b"POST /verdict HTTP/1.1\r\nHost: " + host + b"\r\nContent-Length: "
                     + length + b"\r\n\r\n" + body)
        assert status_of(answer) == status, length
    two = b"Content-Length: 10\r\nContent-Length: 11\r\n"
    answer = raw(served, b"POST /verdict HTTP/1.1\r\nHost: " + host + b"\r\n" + two + b"\r\n"
                 + body)
    assert status_of(answer) == 400
    # a body shorter than announced, the socket left open: a 408 after the request timeout
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(b"POST /verdict HTTP/1.1\r\nHost: " + host + b"\r\nContent-Length: "
                     + str(len(body) + 50).encode() + b"\r\n\r\n" + body)
        started = time.monotonic()
        answer = sock.recv(65536)
        assert status_of(answer) == 408 and time.monotonic() - started < TIMEOUT + 3
    assert verdicts(served.db) == []  # none of them was stored


def test_an_idle_connection_does_not_block_other_clients(served):
    with socket.create_connection(("127.0.0.1", served.port)) as idle, \
            socket.create_connection(("127.0.0.1", served.port)) as half:
        half.sendall(b"GET /group/1 HTT")  # half a request line, then silence
        idle.settimeout(10)
        started = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
        conn.request("GET", "/")
        response = conn.getresponse()
        assert response.status == 200 and b"Group 1" in response.read()
        conn.close()
        assert time.monotonic() - started < 5
        assert idle.recv(1024) == b""  # the silent one is closed after the request timeout
        assert time.monotonic() - started < TIMEOUT + 3


def test_back_cannot_inject_a_header_or_leave_the_app(served):
    cases = {
        "/\r\nSet-Cookie: stolen=1": "/",
        "/group/1\r\nLocation: https://evil.example/": "/",
        "https://evil.example/": "/",
        "//evil.example/": "/",
        "/\\evil.example": "/",
        "/\\/evil.example": "/",
        "/group/1/../../evil": "/",
        "/\u20ac": "/",
        "/group/1": "/group/1",
        "/?q=copy1&page=1": "/?q=copy1&page=1",
    }
    for back, expected in cases.items():
        response = post_verdict(served, back=back)
        assert response.status == 303, back
        assert response.getheader("Location") == expected, back
        assert response.getheader("Set-Cookie") is None
        assert len(response.headers.get_all("Location") or []) == 1


def test_a_verdict_on_a_page_that_does_not_exist_is_refused(served):
    for fields in [{"page_a": "999999"}, {"page_b": "424242"},
                   {"kind": "canonical", "page_a": "77", "page_b": "1"}]:
        assert post_verdict(served, **fields).status == 404, fields
    assert verdicts(served.db) == []
    assert post_verdict(served, page_a="99999999999999999999999").status == 400  # out of range


def test_the_same_verdict_twice_is_stored_once(served):
    for _ in range(2):
        assert post_verdict(served).status == 303
    assert post_verdict(served, page_a="1", page_b="3").status == 303  # the same pair
    for _ in range(2):
        assert post_verdict(served, kind="canonical", page_a="4", page_b="1").status == 303
    assert sorted(verdicts(served.db)) == [("canonical", 4, 1), ("not_duplicate", 3, 1)]
