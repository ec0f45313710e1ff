"""Daft's runner for ``webdedup daft``: native on this machine, or a Ray cluster, whose head
is asked first so that a wrong address fails in seconds, not minutes."""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from ..errors import ClusterUnreachable, ConfigError

#: Seconds to wait for a Ray head to answer before giving up.
RAY_CONNECT_TIMEOUT = 10.0
#: HTTP/2's client preface and an empty SETTINGS frame; a gRPC server (a Ray head's GCS, Ray
#: client) answers with its own SETTINGS frame first (RFC 9113, section 3.4).
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
HTTP2_SETTINGS = 0x04


def use_runner(ray_address: str | None) -> str:
    """Choose Daft's runner for this process: native, or Ray at ``ray_address``.

    Daft fixes the runner once per process; asking for another one later is an error.
    ``ray_address`` is ``auto`` (the cluster this machine belongs to), ``HOST:PORT`` (a head's
    GCS port) or ``ray://HOST:PORT`` (Ray client). A host that does not answer within
    ``RAY_CONNECT_TIMEOUT`` seconds raises :class:`ClusterUnreachable` before anything runs.
    """
    from daft import runners

    want = "native" if ray_address is None else "ray"
    if ray_address is not None:
        _check_ray_address(ray_address)
    current: Any = runners._get_runner()
    if current is not None:
        have = getattr(current, "name", want)
        if have != want:
            raise ConfigError(
                f"Daft's runner in this process is already {have!r}; it is fixed once per "
                f"process, so run 'webdedup daft' for the {want} runner in a new process"
            )
        return want
    if ray_address is None:
        runners.set_runner_native()
        return want
    try:
        runners.set_runner_ray(address=None if ray_address == "local" else ray_address)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError... with its own text
        raise ClusterUnreachable(
            f"could not connect to the Ray cluster at {ray_address!r}: {exc}. Start one "
            "(ray start --head) or give its address (HOST:PORT or ray://HOST:PORT)"
        ) from exc
    return want


def _check_ray_address(address: str) -> None:
    """Fail fast, with a clear message, when a ``HOST:PORT`` address does not answer, or
    answers but not as a Ray head does (Ray itself would wait minutes for it)."""
    if address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ConfigError(
            f"--ray-address takes auto, HOST:PORT or ray://HOST:PORT, got {address!r}"
        )
    advice = (
        "nothing was written. Check the address (ray status on the head prints it) or run "
        "without --ray-address on this machine"
    )
    deadline = time.monotonic() + RAY_CONNECT_TIMEOUT
    try:
        sock = socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT)
    except OSError as exc:
        raise ClusterUnreachable(
            f"no Ray cluster answers at {address!r} ({exc.strerror or exc}) within "
            f"{RAY_CONNECT_TIMEOUT:g} s; {advice}"
        ) from exc
    with sock:
        if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
            return  # the handshake below is plaintext HTTP/2; TLS heads are left to Ray
        try:
            reply = _http2_hello(sock, deadline)
        except TimeoutError as exc:
            raise ClusterUnreachable(
                f"something at {address!r} accepted the connection but did not answer as a "
                f"Ray head (gRPC) within {RAY_CONNECT_TIMEOUT:g} s; {advice}"
            ) from exc
        except OSError:
            reply = b""  # reset or broken pipe: it hung up on a gRPC hello
    if len(reply) < 9 or reply[3] != HTTP2_SETTINGS:
        heard = f"it answered {reply[:20]!r}" if reply else "it hung up"
        raise ClusterUnreachable(
            f"something listens at {address!r} but it is not a Ray cluster (a Ray head speaks "
            f"gRPC; {heard}); {advice}"
        )


def _http2_hello(sock: socket.socket, deadline: float) -> bytes:
    """The first 9 bytes (a frame header) the server at ``sock`` answers to HTTP/2's preface
    (fewer if it hangs up); ``TimeoutError`` when it says nothing before ``deadline``."""
    sock.sendall(HTTP2_PREFACE)
    reply = b""
    while len(reply) < 9:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        more = sock.recv(9 - len(reply))
        if not more:
            break
        reply += more
    return reply
