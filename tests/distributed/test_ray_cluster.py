"""The local Ray cluster of the tests and benches picks ports that cannot collide, and starts
again when another process takes one of them before Ray binds it."""

from __future__ import annotations

import shutil
import socket
import tempfile
from pathlib import Path

import pytest

from benchmarks.speed import ray_cluster as mod


def test_worker_port_blocks_lie_outside_the_kernels_ephemeral_range() -> None:
    # CI failed once: a node's worker ports 34900-34919 held the runtime-env agent's port
    # 34915, which the kernel had handed out from its ephemeral range.
    low, high = mod.ephemeral_range()
    ports = mod.Ports()
    singles = {ports.one() for _ in range(50)}
    assert len(singles) == 50
    for _ in range(20):
        first = ports.block()
        block = set(range(first, first + mod.WORKER_PORTS))
        assert not block & singles
        assert all(p < low or p > high for p in block), (first, low, high)
        singles |= block


def test_a_block_with_a_bound_port_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        busy = held.getsockname()[1]
        ports = mod.Ports()
        monkeypatch.setattr(ports, "_blocks", range(busy - 3, busy + 40, mod.WORKER_PORTS))
        monkeypatch.setattr(ports, "_next", 0)
        assert ports.block() == busy - 3 + mod.WORKER_PORTS


def test_a_node_refused_for_its_ports_starts_the_cluster_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first start gives the head worker ports that hold its own GCS port (the CI failure's
    # overlap, made on purpose): Ray refuses that node, and the cluster starts again.
    blocks: list[int] = []
    real_block = mod.Ports.block

    def block(self: mod.Ports) -> int:
        first = self.port_of_head - 3 if not blocks else real_block(self)  # type: ignore[attr-defined]
        blocks.append(first)
        return first

    real_one = mod.Ports.one

    def one(self: mod.Ports) -> int:
        port = real_one(self)
        if not hasattr(self, "port_of_head"):
            self.port_of_head = port  # type: ignore[attr-defined]
        return port

    monkeypatch.setattr(mod.Ports, "block", block)
    monkeypatch.setattr(mod.Ports, "one", one)
    root = Path(tempfile.mkdtemp(prefix="wd-ray.", dir="/tmp"))  # Ray's sockets: 107 bytes
    try:
        with mod.LocalCluster(root, workers=1, object_store_mib=80) as cluster:
            assert "is trying to use a port number" in (root / "head.log").read_text()
            assert cluster.nodes[0].log == root / "head-2.log"
            pids = {p for node in cluster.nodes for p in mod.tree(node.proc.pid)}  # type: ignore[union-attr]
        assert not [p for p in pids if cluster._ours(p)], "a Ray process was left running"
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert len(blocks) == 3  # the refused head, then the head and the worker of the second start
