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
    # (blocks below the ephemeral range, as the cluster's are: ports in it may be in
    # TIME_WAIT after other tests' connections, unbindable for a while)
    first = mod.Ports().block()
    ports = mod.Ports()
    monkeypatch.setattr(ports, "_blocks", range(first, first + 3 * mod.WORKER_PORTS,
                                               mod.WORKER_PORTS))
    monkeypatch.setattr(ports, "_next", 0)
    with socket.socket() as held:
        held.bind(("127.0.0.1", first + 5))
        assert ports.block() in (first + mod.WORKER_PORTS, first + 2 * mod.WORKER_PORTS)


@pytest.mark.parametrize("refused", ["head", "worker-1"])
def test_a_node_refused_for_its_ports_starts_the_cluster_again(
    monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    # In the first start, one node gets a port inside its own worker port range (the CI
    # failure's overlap, made on purpose): Ray refuses that node, and the cluster starts
    # again, the other node of the first start stopped.
    blocks: list[int] = []
    trap: list[int] = []  # the port handed out inside the refused node's block
    real_block, real_one = mod.Ports.block, mod.Ports.one
    victim = 1 if refused == "head" else 2  # the node's block: the first start's k-th

    def block(self: mod.Ports) -> int:
        blocks.append(real_block(self))
        return blocks[-1]

    def one(self: mod.Ports) -> int:
        if len(blocks) == victim and not trap:
            trap.append(blocks[-1] + 3)  # the node's first single port, inside its block
            return trap[0]
        return real_one(self)

    monkeypatch.setattr(mod.Ports, "block", block)
    monkeypatch.setattr(mod.Ports, "one", one)
    root = Path(tempfile.mkdtemp(prefix="wd-ray.", dir="/tmp"))  # Ray's sockets: 107 bytes
    try:
        with mod.LocalCluster(root, workers=1, object_store_mib=80) as cluster:
            assert "is trying to use a port number" in (root / f"{refused}.log").read_text()
            assert [n.log.name for n in cluster.nodes] == ["head-2.log", "worker-1-2.log"]
            assert [n.temp.name for n in cluster.nodes] == ["head-2", "worker-1-2"]
            pids = {p for node in cluster.nodes for p in mod.tree(node.proc.pid)}  # type: ignore[union-attr]
            pids |= {p for node in cluster.nodes for p in node.pids}  # the first start's too
        assert not [p for p in pids if cluster._ours(p)], "a Ray process was left running"
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert len(blocks) == victim + 2  # the first start's nodes up to the refused one, then two
