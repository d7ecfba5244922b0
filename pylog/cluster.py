"""A pylog cluster on this machine: one controller process and N broker processes.

    from pylog import Cluster

    with Cluster(brokers=3) as cluster:             # free ports, a temporary directory
        producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks="all")
        leader = cluster.leader("orders", 0)         # node id of the partition's leader
        cluster.kill(leader)                         # SIGKILL: no controlled shutdown
        cluster.restart(leader)                      # same node id, port and data

Every node is its own `pylog serve` process, as in a Kafka cluster of separate nodes: the
controller (`process.roles=controller`, node id 3000, Kafka's convention of controller
ids apart from broker ids) keeps `__cluster_metadata`; brokers 1..N
(`process.roles=broker`) register with it, follow its log and replicate from each other
over Kafka's protocol. Killing any broker leaves the controller and the others up.

    <data_dir>/controller/       the controller's metadata log
    <data_dir>/broker-<id>/      each broker's log directory

`stop(node_id)` sends SIGTERM: a controlled shutdown (the broker's leaderships move first).
`kill(node_id)` sends SIGKILL. `pause(node_id)` / `resume(node_id)` send SIGSTOP / SIGCONT. `restart(node_id)` starts a stopped or killed node again on
the port it had (stopping it first if it runs). `leader(topic, partition)` asks a live
broker's Metadata. `close()` (or leaving the `with`) stops every node and removes a data
directory the cluster created.

`pylog cluster --brokers 3 [--data-dir DIR]` runs the same from the command line and prints
the bootstrap list. Not thread-safe: one caller drives a Cluster.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from protocol import headers
from protocol.messages import MetadataRequest, RequestHeader

from pylog.metadata import random_kafka_uuid

CONTROLLER_NODE_ID = 3000
READY_PREFIX = "pylog ready on "
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 60.0


class NodeProcess:
    """One `pylog serve` child process and what is needed to start it again."""

    def __init__(self, node_id: int, data_dir: Path, overrides: dict[str, str], log_path: Path):
        self.node_id = node_id
        self.data_dir = data_dir
        self.overrides = overrides
        self.log_path = log_path
        self.port = 0
        self.process: subprocess.Popen | None = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        self.spawn()
        self.port = self._wait_ready()

    def spawn(self) -> None:
        """Start the process; `wait_ready` then waits for its ready line."""
        command = [sys.executable, "-m", "pylog", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                   "--data-dir", str(self.data_dir)]
        for key, value in self.overrides.items():
            command += ["--override", f"{key}={value}"]
        log_file = open(self.log_path, "ab")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log_file,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})
        log_file.close()

    def wait_ready(self) -> None:
        self.port = self._wait_ready()

    def _wait_ready(self) -> int:
        found: list[str] = []
        reader = threading.Thread(target=self._read_stdout, args=(found,), daemon=True)
        reader.start()
        reader.join(START_TIMEOUT_S)
        if not found:
            self.process.kill()
            raise RuntimeError(f"node {self.node_id} did not start; see {self.log_path}")
        address = found[0][len(READY_PREFIX):].split()[0]
        return int(address.rsplit(":", 1)[1])

    def _read_stdout(self, found: list[str]) -> None:
        stdout = self.process.stdout
        for raw in stdout:
            line = raw.decode(errors="replace")
            if line.startswith(READY_PREFIX):
                found.append(line)
                break
        # keep draining, so the child never blocks on a full pipe
        threading.Thread(target=lambda: [None for _ in stdout], daemon=True).start()

    def signal(self, sig: int) -> None:
        if self.running:
            self.process.send_signal(sig)

    def wait(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Cluster:
    def __init__(self, brokers: int = 3, data_dir: str | Path | None = None, config: dict | None = None):
        if brokers < 1:
            raise ValueError("a cluster needs at least one broker")
        self._own_dir = data_dir is None
        self.data_dir = Path(tempfile.mkdtemp(prefix="pylog-cluster-")) if data_dir is None else Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # every node formatted with one cluster id, as kafka-storage format does it
        self.cluster_id = random_kafka_uuid()
        self.config = {"cluster.id": self.cluster_id, **{k: str(v) for k, v in (config or {}).items()}}
        self.controller = NodeProcess(CONTROLLER_NODE_ID, self.data_dir / "controller",
                                      {"process.roles": "controller", "node.id": str(CONTROLLER_NODE_ID),
                                       **self.config}, self.data_dir / "controller.log")
        self.brokers: dict[int, NodeProcess] = {}
        self._broker_count = brokers

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> Cluster:
        self.controller.start()
        for node_id in range(1, self._broker_count + 1):
            overrides = {"process.roles": "broker", "node.id": str(node_id),
                         "controller.quorum.bootstrap.servers": f"127.0.0.1:{self.controller.port}", **self.config}
            node = NodeProcess(node_id, self.data_dir / f"broker-{node_id}", overrides,
                               self.data_dir / f"broker-{node_id}.log")
            self.brokers[node_id] = node
        for node in self.brokers.values():   # all at once: they register in parallel
            node.spawn()
        for node in self.brokers.values():
            node.wait_ready()
        return self

    def close(self) -> None:
        for node in self.brokers.values():
            node.signal(signal.SIGTERM)
        for node in self.brokers.values():
            node.wait()
        self.controller.signal(signal.SIGTERM)
        self.controller.wait()
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- faults ------------------------------------------------------------------------

    def _node(self, node_id: int) -> NodeProcess:
        if node_id == CONTROLLER_NODE_ID:
            return self.controller
        return self.brokers[node_id]

    def kill(self, node_id: int) -> None:
        """SIGKILL: the node stops at once, nothing flushed, no controlled shutdown."""
        node = self._node(node_id)
        node.signal(signal.SIGKILL)
        node.wait()

    def stop(self, node_id: int) -> None:
        """SIGTERM: a controlled shutdown, then a clean stop."""
        node = self._node(node_id)
        node.signal(signal.SIGTERM)
        node.wait()

    def pause(self, node_id: int) -> None:
        """SIGSTOP: the node freezes (no heartbeats, no fetches, sockets left open), as a
        process stalled by a long GC pause or a hung disk would."""
        self._node(node_id).signal(signal.SIGSTOP)

    def resume(self, node_id: int) -> None:
        """SIGCONT: a paused node goes on where it stopped."""
        self._node(node_id).signal(signal.SIGCONT)

    def restart(self, node_id: int) -> None:
        """Start the node again with its node id, port and data (stopping it first if it runs)."""
        node = self._node(node_id)
        if node.running:
            self.stop(node_id)
        node.start()

    # -- looking ---------------------------------------------------------------------

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(f"127.0.0.1:{node.port}" for node in self.brokers.values())

    def running_brokers(self) -> list[int]:
        return [node_id for node_id, node in self.brokers.items() if node.running]

    def leader(self, topic: str, partition: int, timeout_s: float = 30.0) -> int:
        """The node id of the partition's current leader: a running broker that live
        brokers' Metadata names as leader (waiting while there is none, e.g. until the
        controller has noticed that the last one was killed)."""
        deadline = time.monotonic() + timeout_s
        while True:
            running = self.running_brokers()
            for node_id in running:
                try:
                    response = _metadata(self.brokers[node_id].port, topic)
                except OSError:
                    continue
                for found in response.topics:
                    for p in found.partitions:
                        if p.partition_index == partition and p.leader_id in running:
                            return p.leader_id
            if time.monotonic() > deadline:
                raise TimeoutError(f"{topic}-{partition} has no leader")
            time.sleep(0.05)


def _metadata(port: int, topic: str):
    """One Metadata v12 request for `topic` (no auto-creation) to 127.0.0.1:`port`."""
    header = RequestHeader(request_api_key=3, request_api_version=12, correlation_id=1, client_id="pylog-cluster")
    payload = headers.encode_request(header, MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False))
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(struct.pack(">i", len(payload)) + payload)
        size, = struct.unpack(">i", _read(sock, 4))
        _, body = headers.decode_response(3, 12, _read(sock, size))
    return body


def _read(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("connection closed")
        data += chunk
    return bytes(data)


def cluster_command(brokers: int, data_dir: str | None) -> int:
    """`pylog cluster`: run until SIGINT/SIGTERM."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    with Cluster(brokers=brokers, data_dir=data_dir) as cluster:
        print(f"pylog cluster ready: controller 127.0.0.1:{cluster.controller.port}; "
              f"bootstrap servers {cluster.bootstrap_servers}", flush=True)
        stop.wait()
    return 0
