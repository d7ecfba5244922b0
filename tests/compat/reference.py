"""The reference Apache Kafka: its jars, and a single-node KRaft broker started from them.

`make compat` resolves Kafka's broker, tools and Java client with the Maven project in
`tests/compat/kafka/` into `tests/compat/kafka/target/lib` (one classpath, ~94 jars), and
compiles the Java programs beside it into `target/kafka-reference-1.jar`. The Kafka version
is set once, in `tests/compat/versions.properties`.

`KafkaBroker(data_dir).start()` runs `kafka.Kafka` as one process holding both roles
(`process.roles=broker,controller`, node id 1) on 127.0.0.1:

- two free ports, one for clients (PLAINTEXT) and one for the controller listener (KRaft
  needs its own); a restart on the same data directory keeps both;
- the storage is formatted with `kafka.tools.StorageTool format` on the first start only
  (a formatted directory has `meta.properties`; formatting it again is refused);
- the internal topics' replication factors are 1, and `group.initial.rebalance.delay.ms` is
  0, as pylog's default (Kafka's is 3 s), so group tests wait for neither;
- these settings and the next are `SAME_ON_BOTH`, given to pylog too, so that both brokers
  describe the same static configs;
- the tests write records with fixed CreateTime timestamps of 2023, older than the default
  7-day `retention.ms`, so the broker's first retention check (30 s after the start, then
  every 5 minutes) would delete them under a running test; the checks are a day apart
  instead, and on Kafka the first one is a day after the start too
  (`log.initial.task.delay.ms`, which pylog accepts but does not act on);
- ready when a Metadata request on the client port lists the broker and a controller (the
  port opens before the broker is unfenced);
- `stop()` sends SIGTERM (Kafka's controlled shutdown) and waits; `kill()` is SIGKILL.

The JVM flags are `TEST_JVM_FLAGS` (a 512 MiB heap) unless given; `bench/` passes those of
Kafka's own start script instead. `start()` runs two steps a subclass may extend:
`format_storage()` (fresh directories only) and `wait_ready()` (right after the JVM's
spawn); `bench/peers.py` times and pins the broker there.
"""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

COMPAT = Path(__file__).resolve().parent
ROOT = COMPAT.parents[1]
MAVEN_PROJECT = COMPAT / "kafka"
LIB = MAVEN_PROJECT / "target" / "lib"
PROGRAMS_JAR = MAVEN_PROJECT / "target" / "kafka-reference-1.jar"
LOG4J_CONFIG = MAVEN_PROJECT / "log4j2.properties"


def versions() -> dict[str, str]:
    values = {}
    for line in (COMPAT / "versions.properties").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


KAFKA_VERSION = versions()["kafka.version"]

# tests: a small heap, the collector of Kafka's start script
TEST_JVM_FLAGS = ("-Xmx512m", "-Xms512m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                  "-Djava.awt.headless=true")
# bin/kafka-server-start.sh (KAFKA_HEAP_OPTS) and bin/kafka-run-class.sh (KAFKA_JVM_PERFORMANCE_OPTS)
START_SCRIPT_JVM_FLAGS = ("-Xmx1G", "-Xms1G", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                          "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
                          "-XX:MaxInlineLevel=15", "-Djava.awt.headless=true")


# broker configs both brokers of the compat tests get (see the module docstring)
SAME_ON_BOTH = {
    "num.partitions": "1",
    "offsets.topic.replication.factor": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "group.initial.rebalance.delay.ms": "0",
    "log.retention.check.interval.ms": "86400000",
    "log.initial.task.delay.ms": "86400000",
}


def classpath() -> str:
    """Kafka's jars and the compiled programs; fails with the command that makes them."""
    server_jar = LIB / f"kafka_2.13-{KAFKA_VERSION}.jar"
    if not server_jar.is_file() or not PROGRAMS_JAR.is_file():
        raise RuntimeError(f"the reference Kafka {KAFKA_VERSION} is not resolved ({server_jar} missing): "
                           "`make compat` resolves it (`make kafka-reference` alone)")
    return os.pathsep.join([str(PROGRAMS_JAR), str(LIB / "*")])


def java_command(main_class: str, *args: str, jvm_flags=TEST_JVM_FLAGS, log_dir: Path | None = None,
                 log_to_file: bool = False) -> list[str]:
    """`java ... main_class args` with Kafka's classpath and the compat log4j2 config."""
    command = ["java", *jvm_flags, f"-Dlog4j2.configurationFile={LOG4J_CONFIG}"]
    if log_dir is not None:
        command.append(f"-Dkafka.logs.dir={log_dir}")
    if log_to_file:
        command += ["-Dpylog.compat.log.level=INFO", "-Dpylog.compat.log.appender=FILE"]
    return [*command, "-cp", classpath(), main_class, *args]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def free_ports(count: int) -> list[int]:
    """`count` distinct free ports: the system may hand back a port just closed, and Kafka
    refuses two listeners on one port."""
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def random_cluster_id() -> str:
    """What `kafka-storage.sh random-uuid` prints: a UUID in URL-safe Base64, unpadded, and,
    like Kafka's Uuid.randomUuid, never starting with "-" (a command line would take it for
    an option)."""
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id


class KafkaBroker:
    """One Kafka 4.x KRaft node (broker and controller) in its own process."""

    def __init__(self, data_dir: Path, *, config: dict | None = None, jvm_flags=TEST_JVM_FLAGS):
        self.data_dir = Path(data_dir)
        self.log_dir = self.data_dir.parent / f"{self.data_dir.name}-logs"
        self.overrides = dict(config or {})
        self.jvm_flags = tuple(jvm_flags)
        self.host = "127.0.0.1"
        self.port: int | None = None
        self.controller_port: int | None = None
        self.process: subprocess.Popen | None = None
        self.cluster_id = random_cluster_id()
        self.ready_ms: float | None = None  # spawn to ready, of the last start

    @property
    def bootstrap_servers(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def properties_path(self) -> Path:
        return self.data_dir.parent / f"{self.data_dir.name}-server.properties"

    def server_properties(self) -> dict[str, str]:
        properties = {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.voters": f"1@{self.host}:{self.controller_port}",
            "listeners": f"PLAINTEXT://{self.host}:{self.port},CONTROLLER://{self.host}:{self.controller_port}",
            "advertised.listeners": f"PLAINTEXT://{self.host}:{self.port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": str(self.data_dir),
            **SAME_ON_BOTH,
        }
        properties.update({key: str(value) for key, value in self.overrides.items()})
        return properties

    def start(self, timeout_s: float = 90) -> KafkaBroker:
        assert self.process is None or self.process.poll() is not None, "already running"
        self.write_properties()
        if not self.formatted:
            self.format_storage()
        started = time.monotonic()
        self.spawn()
        self.wait_ready(timeout_s)
        self.ready_ms = (time.monotonic() - started) * 1000
        return self

    @property
    def formatted(self) -> bool:
        return (self.data_dir / "meta.properties").exists()

    def write_properties(self) -> None:
        """Pick the two ports (first start only) and write server.properties."""
        if self.port is None:
            self.port, self.controller_port = free_ports(2)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.properties_path.write_text(
            "".join(f"{key}={value}\n" for key, value in self.server_properties().items()), encoding="utf-8")

    def format_command(self) -> list[str]:
        return java_command("kafka.tools.StorageTool", "format", "-t", self.cluster_id,
                            "-c", str(self.properties_path), jvm_flags=("-Xmx256m",), log_dir=self.log_dir)

    def spawn(self) -> None:
        """Start the `kafka.Kafka` JVM on the written properties; `wait_ready` then waits for it."""
        with open(self.log_dir / "stdout.log", "ab") as output:
            self.process = subprocess.Popen(
                # its own temporary directory: a killed JVM leaves the native libraries it
                # unpacked there (lz4, snappy) behind
                java_command("kafka.Kafka", str(self.properties_path),
                             jvm_flags=(*self.jvm_flags, f"-Djava.io.tmpdir={self.log_dir}"),
                             log_dir=self.log_dir, log_to_file=True),
                stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def format_storage(self) -> None:
        result = subprocess.run(self.format_command(), capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"StorageTool format failed ({result.returncode}): {result.stdout}{result.stderr}")

    def wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        last_error = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Kafka exited with {self.process.returncode} during start; "
                                   f"log:\n{self.log_tail()}")
            try:
                if self.metadata_lists_broker():
                    return
            except OSError as e:
                last_error = e
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"Kafka not ready after {timeout_s} s ({last_error}); log:\n{self.log_tail()}")

    def metadata_lists_broker(self) -> bool:
        """Readiness: a Metadata answer names a broker and a controller (the port opens before
        the broker is unfenced). OSError while the port is not yet open."""
        from tests.integration.support import WireClient

        with WireClient(self.bootstrap_servers, timeout_s=5) as client:
            metadata = client.metadata(topics=[], version=1)
        return bool(metadata.brokers) and metadata.controller_id >= 0

    def stop(self, timeout_s: float = 60) -> int | None:
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)

    def log_tail(self, lines: int = 60) -> str:
        text = ""
        for name in ("stdout.log", "server.log"):
            path = self.log_dir / name
            if path.exists():
                text += f"--- {name}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) + "\n"
        return text


# a cluster's internal topics: Kafka's own defaults (3 replicas, 2 in sync), and no group delay
CLUSTER_PROPERTIES = {
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "share.coordinator.state.topic.replication.factor": "3",
    "share.coordinator.state.topic.min.isr": "2",
}


class KafkaClusterNode(KafkaBroker):
    """One node of a `KafkaCluster`: broker and controller, one voter of the quorum."""

    def __init__(self, data_dir: Path, node_id: int, voters: str, cluster_id: str, **kwargs):
        super().__init__(data_dir, **kwargs)
        self.node_id = node_id
        self.voters = voters
        self.cluster_id = cluster_id

    def server_properties(self) -> dict[str, str]:
        properties = super().server_properties()
        properties.update(CLUSTER_PROPERTIES)
        properties.update({"node.id": str(self.node_id), "controller.quorum.voters": self.voters})
        properties.update({key: str(value) for key, value in self.overrides.items()})
        return properties

    def metadata_lists_broker(self) -> bool:
        """Readiness of a node: its own Metadata answer lists it (registered and unfenced) and
        a controller."""
        from tests.integration.support import WireClient

        with WireClient(self.bootstrap_servers, timeout_s=5) as client:
            metadata = client.metadata(topics=[], version=1)
        return any(b.node_id == self.node_id for b in metadata.brokers) and metadata.controller_id >= 0


class KafkaCluster:
    """Kafka 4.x KRaft cluster of `nodes` combined nodes (broker and controller each, node
    ids 1..N), every one a voter of the quorum: `controller.quorum.voters` lists each node's
    controller port, and every data directory is formatted with the same cluster id.

        with KafkaCluster(tmp_path / "kafka", config={"min.insync.replicas": "2"}) as cluster:
            cluster.kill(cluster.leader("orders", 0))   # SIGKILL
            cluster.restart(node_id)                    # same ports, same data

    - Ports are picked once, at construction (2 free ports per node), so a restarted node
      keeps its address and the voters list stays true.
    - `start()` formats the fresh directories in parallel (one StorageTool JVM each), spawns
      every node, then waits until each node's own Metadata lists it: a KRaft quorum of
      three needs two voters up before any broker can register, so they start together.
    - Internal topics get Kafka's defaults (replication factor 3, min.insync.replicas 2);
      `group.initial.rebalance.delay.ms` is 0 as for `KafkaBroker`. `config` applies to
      every node.
    - `kill(node_id)` sends SIGKILL, `stop(node_id)` SIGTERM (controlled shutdown),
      `restart(node_id)` starts a stopped or killed node again (stopping it first).
    - `close()` stops every node (SIGTERM, then SIGKILL after the timeout).
    One caller drives a cluster; nothing here is thread-safe.
    """

    def __init__(self, data_dir: Path, nodes: int = 3, *, config: dict | None = None,
                 jvm_flags=TEST_JVM_FLAGS):
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.cluster_id = random_cluster_id()
        ports = free_ports(2 * nodes)
        voters = ",".join(f"{i + 1}@127.0.0.1:{ports[2 * i + 1]}" for i in range(nodes))
        self.nodes: dict[int, KafkaClusterNode] = {}
        for i in range(nodes):
            node = KafkaClusterNode(self.data_dir / f"node-{i + 1}", i + 1, voters, self.cluster_id,
                                    config=config, jvm_flags=jvm_flags)
            node.port, node.controller_port = ports[2 * i], ports[2 * i + 1]
            self.nodes[i + 1] = node

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(node.bootstrap_servers for node in self.nodes.values())

    def running_nodes(self) -> list[int]:
        return [node_id for node_id, node in self.nodes.items()
                if node.process is not None and node.process.poll() is None]

    def start(self, timeout_s: float = 120) -> KafkaCluster:
        formats = []
        for node in self.nodes.values():
            node.write_properties()
            if not node.formatted:
                formats.append((node, subprocess.Popen(node.format_command(), stdout=subprocess.PIPE,
                                                       stderr=subprocess.STDOUT, text=True)))
        for node, process in formats:
            output, _ = process.communicate(timeout=120)
            if process.returncode != 0:
                raise RuntimeError(f"StorageTool format of node {node.node_id} failed "
                                   f"({process.returncode}): {output}")
        try:
            for node in self.nodes.values():
                node.spawn()
            for node in self.nodes.values():
                node.wait_ready(timeout_s)
        except BaseException:
            self.close()
            raise
        return self

    def kill(self, node_id: int) -> None:
        self.nodes[node_id].kill()

    def stop(self, node_id: int, timeout_s: float = 60) -> None:
        self.nodes[node_id].stop(timeout_s)

    def restart(self, node_id: int, timeout_s: float = 120) -> None:
        node = self.nodes[node_id]
        node.stop()
        node.write_properties()
        node.spawn()
        node.wait_ready(timeout_s)

    def leader(self, topic: str, partition: int, timeout_s: float = 30.0) -> int:
        """The node id of the partition's current leader, waiting while it has none."""
        from tests.integration.support import WireClient

        deadline = time.monotonic() + timeout_s
        while True:
            for node_id in self.running_nodes():
                try:
                    with WireClient(self.nodes[node_id].bootstrap_servers, timeout_s=5) as client:
                        metadata = client.metadata(topics=[topic])
                except OSError:
                    continue
                for found in metadata.topics:
                    for p in found.partitions:
                        if p.partition_index == partition and p.leader_id >= 0:
                            return p.leader_id
            if time.monotonic() > deadline:
                raise TimeoutError(f"{topic}-{partition} has no leader")
            time.sleep(0.05)

    def close(self, timeout_s: float = 60) -> None:
        for node in self.nodes.values():
            if node.process is not None and node.process.poll() is None:
                node.process.send_signal(signal.SIGTERM)
        for node in self.nodes.values():
            node.stop(timeout_s)

    def __enter__(self) -> KafkaCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
