"""Kafka's command-line tools, run from the reference Kafka's classpath.

Each `kafka-*.sh` script of a Kafka distribution runs one main class; `TOOLS` maps the
script's name to it. `ToolRunner` keeps one JVM (`dev.pylog.compat.ToolRunner`, in the
Maven project) and runs the tools in it one after another: a tool costs its own work, not a
JVM start (about 1.5 s each here). The runner swaps the tool's stdin, stdout and stderr for
buffers and turns Kafka's `Exit.exit(code)` into the command's exit code, so a command's
result is what the script would have given: `ToolResult(code, stdout, stderr)`.

A command that outlives its timeout kills the JVM (the next command starts a new one) and
fails the test with what is known.

The JVM's `java.io.tmpdir` is a directory of its own, removed when the runner closes: some
tools leave files there (Kafka's metadata shell creates a `MetadataShell*` directory per run
and never removes it).
"""

from __future__ import annotations

import base64
import os
import selectors
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from tests.compat.reference import java_command

TOOLS = {
    "kafka-topics.sh": "org.apache.kafka.tools.TopicCommand",
    "kafka-console-producer.sh": "org.apache.kafka.tools.ConsoleProducer",
    "kafka-console-consumer.sh": "org.apache.kafka.tools.consumer.ConsoleConsumer",
    "kafka-consumer-groups.sh": "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
    "kafka-share-groups.sh": "org.apache.kafka.tools.consumer.group.ShareGroupCommand",
    "kafka-configs.sh": "kafka.admin.ConfigCommand",
    "kafka-get-offsets.sh": "org.apache.kafka.tools.GetOffsetShell",
    "kafka-delete-records.sh": "org.apache.kafka.tools.DeleteRecordsCommand",
    "kafka-log-dirs.sh": "org.apache.kafka.tools.LogDirsCommand",
    "kafka-broker-api-versions.sh": "org.apache.kafka.tools.BrokerApiVersionsCommand",
    "kafka-features.sh": "org.apache.kafka.tools.FeatureCommand",
    "kafka-client-metrics.sh": "org.apache.kafka.tools.ClientMetricsCommand",
    "kafka-dump-log.sh": "kafka.tools.DumpLogSegments",
    "kafka-leader-election.sh": "org.apache.kafka.tools.LeaderElectionCommand",
    "kafka-reassign-partitions.sh": "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
    "kafka-producer-perf-test.sh": "org.apache.kafka.tools.ProducerPerformance",
    "kafka-consumer-perf-test.sh": "org.apache.kafka.tools.ConsumerPerformance",
    "kafka-metadata-quorum.sh": "org.apache.kafka.tools.MetadataQuorumCommand",
    "kafka-cluster.sh": "org.apache.kafka.tools.ClusterTool",
    "kafka-acls.sh": "org.apache.kafka.tools.AclCommand",
}

RESULT_PREFIX = b"PYLOG-TOOL-RESULT "
READY_LINE = b"PYLOG-TOOL-RUNNER-READY\n"
# tools are short-lived: a small heap, the quick-starting JIT tier
TOOL_JVM_FLAGS = ("-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djava.awt.headless=true")


@dataclass
class ToolResult:
    command: str
    code: int
    stdout: str
    stderr: str

    def check(self) -> ToolResult:
        assert self.code == 0, f"{self.command} exited with {self.code}:\n{self.stdout}\n{self.stderr}"
        return self

    @property
    def lines(self) -> list[str]:
        return [line for line in self.stdout.splitlines() if line.strip()]


class ToolTimeout(AssertionError):
    pass


class ToolRunner:
    def __init__(self):
        self.process: subprocess.Popen | None = None
        self._buffer = b""
        self.commands_run = 0
        self._tmp_dir: str | None = None

    def run(self, script: str, *args: str, stdin: str = "", timeout_s: float = 60) -> ToolResult:
        """Run `script args` (a `kafka-*.sh` name, or a main class) and return its result."""
        main_class = TOOLS.get(script, script)
        if self.process is None or self.process.poll() is not None:
            self._start()
        fields = [main_class, stdin, *args]
        line = b"\t".join(base64.b64encode(field.encode()) for field in fields) + b"\n"
        deadline = time.monotonic() + timeout_s
        try:
            self.process.stdin.write(line)
            self.process.stdin.flush()
            header = self._read_line(deadline)
            if not header.startswith(RESULT_PREFIX):
                raise AssertionError(f"tool runner said {header!r}")
            code, out_size, err_size = (int(part) for part in header[len(RESULT_PREFIX):].split())
            out = self._read_exactly(out_size, deadline)
            err = self._read_exactly(err_size, deadline)
        except ToolTimeout:
            self.close()
            raise ToolTimeout(f"{script} {' '.join(args)}: no result after {timeout_s} s") from None
        self.commands_run += 1
        return ToolResult(f"{script} {' '.join(args)}", code, out.decode(errors="replace"),
                          err.decode(errors="replace"))

    def _start(self) -> None:
        self._buffer = b""
        if self._tmp_dir is None:
            self._tmp_dir = tempfile.mkdtemp(prefix="pylog-compat-tools-")
        flags = (*TOOL_JVM_FLAGS, f"-Djava.io.tmpdir={self._tmp_dir}")
        self.process = subprocess.Popen(java_command("dev.pylog.compat.ToolRunner", jvm_flags=flags),
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        ready = self._read_line(time.monotonic() + 60)
        if ready + b"\n" != READY_LINE:
            raise AssertionError(f"tool runner did not start: {ready!r}")

    def _fill(self, deadline: float) -> None:
        fd = self.process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                raise ToolTimeout()
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise AssertionError(f"tool runner exited ({self.process.wait(5)})")
            self._buffer += chunk

    def _read_line(self, deadline: float) -> bytes:
        while b"\n" not in self._buffer:
            self._fill(deadline)
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _read_exactly(self, size: int, deadline: float) -> bytes:
        while len(self._buffer) < size:
            self._fill(deadline)
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data

    def close(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait(10)
            for stream in (self.process.stdin, self.process.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            self.process = None
        if self._tmp_dir is not None:
            shutil.rmtree(self._tmp_dir, ignore_errors=True)
            self._tmp_dir = None
