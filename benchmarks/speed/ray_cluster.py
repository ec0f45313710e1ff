"""A Ray cluster of several nodes on this machine, for the tests and the bench of ``webdedup
daft --ray-address``: a head and worker nodes on 127.0.0.1, each started with its own ``ray
start --block`` (its own CPUs, object store and temp dir), each node's peak memory sampled
(the PSS of its processes: its raylet, its workers, the head's GCS), and every process it
started stopped again, by its id, never with ``ray stop`` (which would stop other users' Ray).

    with LocalCluster(tmp, workers=2) as cluster:
        subprocess.run(["webdedup", "daft", "pages/*.parquet", "--out", "out",
                        "--ray-address", cluster.address], env=cluster.env, check=True)
    print(cluster.peaks_mib())   # {'head': 612.0, 'worker-1': 480.3, 'worker-2': 470.9}

Run alone, it starts a cluster and prints its address until Enter is pressed.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

#: No network from Ray or Daft (usage statistics), no token on 127.0.0.1.
ENV = {
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
    "DAFT_ANALYTICS_ENABLED": "0",
    "DAFT_PROGRESS_BAR": "0",
    "DO_NOT_TRACK": "1",
    # a loaded machine starts a node's Python agents slowly: its raylet waits for them
    "RAY_agent_register_timeout_ms": "180000",
}
#: Seconds to wait for the nodes to join.
START_TIMEOUT = 120.0
#: What ``ray start`` prints when a port it was given is taken.
_PORT_TAKEN = re.compile(r"port number \d+ that is used|[Aa]ddress already in use|"
                         r"[Ff]ailed to bind")


class PortTaken(RuntimeError):
    """A node exited because one of its ports was taken (the start is tried again)."""


#: Times a cluster is started again when one of its nodes lost a port to another process.
START_ATTEMPTS = 3
#: Worker ports each node gets (``--min-worker-port`` .. ``--max-worker-port``).
WORKER_PORTS = 20


def free_port() -> int:
    """A port the kernel hands out now (from its ephemeral range); free until someone binds it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ephemeral_range() -> tuple[int, int]:
    """The kernel's ephemeral port range: where :func:`free_port`'s ports come from."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(x) for x in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class Ports:
    """Every port one cluster start uses, none handed out twice.

    Single ports come from the kernel's ephemeral range; a node's block of worker ports comes
    from outside it (Ray binds them later, one by one, as it starts workers), so a port the
    kernel hands out to another component can never fall inside a block: Ray refuses to start
    a node whose ports overlap ("is trying to use a port number ... used by other components").
    """

    def __init__(self) -> None:
        self.taken: set[int] = set()
        low, high = ephemeral_range()
        if low - 10_000 >= 10 * WORKER_PORTS:
            self._blocks = range(10_000, low - WORKER_PORTS + 1, WORKER_PORTS)
        elif 65_536 - high > 10 * WORKER_PORTS:  # an ephemeral range that starts low
            self._blocks = range(high + 1, 65_536 - WORKER_PORTS + 1, WORKER_PORTS)
        else:  # no room outside it: blocks checked bindable only
            self._blocks = range(10_000, 65_536 - WORKER_PORTS + 1, WORKER_PORTS)
        self._next = (os.getpid() * 7 + int(time.monotonic() * 1000)) % len(self._blocks)

    def one(self) -> int:
        for _ in range(100):
            port = free_port()
            if port not in self.taken:
                self.taken.add(port)
                return port
        raise RuntimeError("no free port from the kernel after 100 tries")

    def block(self) -> int:
        """The first of :data:`WORKER_PORTS` ports that are bindable now and not handed out."""
        for _ in range(len(self._blocks)):
            first = self._blocks[self._next]
            self._next = (self._next + 1) % len(self._blocks)
            ports = range(first, first + WORKER_PORTS)
            if not self.taken.intersection(ports) and all(_bindable(p) for p in ports):
                self.taken.update(ports)
                return first
        raise RuntimeError(f"no {WORKER_PORTS} free worker ports outside the ephemeral range")


def tree(root: int) -> list[int]:
    """``root`` and every process below it (from ``/proc``)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def pss_kib(pid: int) -> int:
    """The proportional set size of ``pid`` (shared pages shared out), 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass
class Node:
    """One ``ray start --block`` process and what it started."""

    name: str
    cpus: int
    object_store_mib: int
    proc: subprocess.Popen[bytes] | None = None
    temp: Path = Path()  # its temp dir (Ray's session and logs), of the attempt that started
    log: Path = Path()  # what its ``ray start`` printed
    peak_kib: int = 0
    pids: set[int] = field(default_factory=set)


class LocalCluster:
    """A head and ``workers`` worker nodes on 127.0.0.1 (``cpus`` CPUs and an object store of
    ``object_store_mib`` MiB each), in temp dirs under ``root``; a context manager."""

    def __init__(
        self, root: Path, workers: int = 2, cpus: int = 1, object_store_mib: int = 256,
        ray: str | None = None,
    ) -> None:
        self.root = Path(root)
        self.ray = ray or str(Path(sys.executable).parent / "ray")
        self.nodes = [Node("head", cpus, object_store_mib)] + [
            Node(f"worker-{k}", cpus, object_store_mib) for k in range(1, workers + 1)
        ]
        self.env = os.environ | ENV
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> LocalCluster:
        self._sampler.start()  # (from the start: a node's processes are known to stop())
        for attempt in range(1, START_ATTEMPTS + 1):
            for node in self.nodes:  # (a dead node of the attempt before is not this one's)
                node.proc = None
            self.ports = Ports()
            self.port = self.ports.one()
            self.address = f"127.0.0.1:{self.port}"
            try:
                for k, node in enumerate(self.nodes):
                    self._start(node, k, attempt)
                    if k == 0:
                        self._wait_for_port()
                self._wait_for_nodes()
                break
            except PortTaken:
                # another process bound one of the ports between our pick and Ray's bind
                if attempt == START_ATTEMPTS:
                    self.stop()  # (its sampler too)
                    raise
                self._stop_nodes()
            except BaseException:
                self.stop()
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self, node: Node, k: int, attempt: int = 1) -> None:
        name = node.name if attempt == 1 else f"{node.name}-{attempt}"
        temp = node.temp = self.root / name
        temp.mkdir(parents=True, exist_ok=True)
        base = self.ports.block()  # this node's own worker ports
        one = self.ports.one
        cmd = [
            self.ray, "start", "--block", "--node-ip-address", "127.0.0.1",
            "--num-cpus", str(node.cpus), "--object-store-memory",
            str(node.object_store_mib * 1024 * 1024), "--temp-dir", str(temp),
            "--disable-usage-stats", "--node-manager-port", str(one()),
            "--object-manager-port", str(one()),
            "--min-worker-port", str(base), "--max-worker-port", str(base + WORKER_PORTS - 1),
            "--dashboard-agent-listen-port", str(one()),
            "--dashboard-agent-grpc-port", str(one()),
            "--runtime-env-agent-port", str(one()),
            "--metrics-export-port", str(one()),
        ]
        if k == 0:
            cmd += ["--head", "--port", str(self.port), "--include-dashboard", "false",
                    "--ray-client-server-port", str(one())]
        else:
            cmd += ["--address", self.address]
        node.log = self.root / f"{name}.log"
        with open(node.log, "wb") as log:  # (the node writes to its own copy of it)
            node.proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True
            )

    def _wait_for_port(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            self._check_alive()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.5)
        raise TimeoutError(f"the Ray head did not open {self.address} (see {self.root})")

    def _wait_for_nodes(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        want = len(self.nodes)
        alive = 0
        while time.monotonic() < deadline:
            self._check_alive()
            out = subprocess.run(
                [self.ray, "status", "--address", self.address],
                capture_output=True, text=True, env=self.env,
            ).stdout
            active = out.split("Active:", 1)[-1].split("Pending:", 1)[0]
            alive = len(re.findall(r"\bnode_[0-9a-f]+", active))
            if alive >= want:
                return
            time.sleep(1)
        raise TimeoutError(f"{alive} of {want} Ray nodes joined within {START_TIMEOUT:g} s")

    def _check_alive(self) -> None:
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is not None:
                log = node.log.read_text(errors="replace")[-2000:]
                error = PortTaken if _PORT_TAKEN.search(log) else RuntimeError
                raise error(f"ray start of the {node.name} exited:\n{log}")

    def _sample(self) -> None:
        while not self._stop.is_set():
            for node in self.nodes:
                proc = node.proc  # (one read: a new attempt sets it anew)
                if proc is None:
                    continue
                pids = tree(proc.pid)
                node.pids.update(pids)
                node.peak_kib = max(node.peak_kib, sum(pss_kib(p) for p in pids))
            self._stop.wait(0.5)

    def peaks_mib(self) -> dict[str, float]:
        """Each node's peak memory so far (the sum of its processes' PSS, sampled)."""
        return {n.name: round(n.peak_kib / 1024, 1) for n in self.nodes}

    def stop(self) -> None:
        """Stop every node (workers first), then any process of theirs left over."""
        self._stop.set()
        self._stop_nodes()

    def _stop_nodes(self) -> None:
        for node in reversed(self.nodes):
            if node.proc is None or node.proc.poll() is not None:
                continue
            node.pids.update(tree(node.proc.pid))
            node.proc.send_signal(signal.SIGTERM)
            try:
                node.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                node.proc.kill()
                node.proc.wait(timeout=10)
        for node in self.nodes:
            for pid in node.pids:
                if self._ours(pid):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass

    def _ours(self, pid: int) -> bool:
        """``pid`` is still one of this cluster's processes (its command line names this
        cluster's temp dirs): a number seen once may belong to another process since."""
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                return str(self.root).encode() in f.read()
        except OSError:
            return False


def main() -> None:
    import tempfile

    with LocalCluster(Path(tempfile.mkdtemp(prefix="ray-cluster."))) as cluster:
        print(cluster.address, flush=True)
        sys.stdin.readline()
        print(cluster.peaks_mib())


if __name__ == "__main__":
    main()
