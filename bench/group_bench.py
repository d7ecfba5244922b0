"""Consumer groups: pylog side by side with tansu, the reference Apache Kafka and the
librdkafka mock, in one run.

    python -m bench.group_bench        (or: python -m bench group)
    BENCH_VERBOSE=1 python -m bench.group_bench    (every run, not only medians)
    BENCH_QUICK=1 python -m bench.group_bench      (a smoke run: one group per row, not a figure)

Brokers (`bench/peers.py`): pylog as `python -m pylog serve --port 0`
(its `group.initial.rebalance.delay.ms` default is 0), tansu 0.6 with its in-memory engine,
Apache Kafka (`peers.start_kafka`: single-node KRaft with the JVM flags of its start script,
-Xmx1G -Xms1G -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 ...; configured by
tests.compat.reference.KafkaBroker with `group.initial.rebalance.delay.ms=0` like pylog,
where Kafka's default is 3 s, so that a new group's first join is not held 3 s),
and the librdkafka mock cluster, started here through ctypes on the library bundled with
confluent-kafka so that its group initial rebalance delay (3 s by default, like Kafka) can be
set to 0 with `rd_kafka_mock_group_initial_rebalance_delay_ms` (librdkafka has no
configuration property for it; `test.mock.num.brokers` alone leaves it at 3 s). Everything
listens on 127.0.0.1; the broker runs on one core and the clients on the other.

The client is kafka-python 3.x (`KafkaConsumer`), with its default settings against pylog
and Kafka, and against the other peers only what they need:
- tansu: `session_timeout_ms=6000`: tansu holds a new group's first JoinGroup for half of
  the session timeout, 22.5 s with kafka-python's default of 45 s;
- mock: `api_version=(2, 3, 0)`: kafka-python cannot bootstrap against the mock otherwise
  (its ApiVersions fallback reply is malformed). In the three-member group also
  `session_timeout_ms=6000`, because once a group has formed the mock holds every rebalance
  for the session timeout - 1 s (29 s with kafka-python's default of 30 s for that
  api_version), and a range assignor that waits 100 ms before the leader's SyncGroup, because
  the mock answers a SyncGroup arriving after the leader's with INVALID_REQUEST and the group
  then livelocks (`_mock_assignors()`). So the mock's settling time is ~5.1 s whatever the
  heartbeat interval: its own rebalance timer, not a measure of how fast it could be.

Printed, with ratios of pylog to tansu, to Kafka and to the mock:
1. first record: time from `KafkaConsumer(topic, group_id=<new>, bootstrap_servers=...,
   auto_offset_reset="earliest")` (the constructor, which bootstraps, included) to the first
   record returned by `poll(timeout_ms=1000)`, on a 1-partition topic pre-filled with a few
   records; median over several fresh groups. Goal for pylog: <= 0.5 s. The constructor's
   share is printed beside it.
2. settle after a leave: three consumers of one group on a 6-partition topic (created up
   front: CreateTopics for pylog and tansu, `rd_kafka_mock_topic_create` for the mock), each
   polling in its own thread; once they own 2/2/2, one of them calls `close()` (which sends
   LeaveGroup), and the time is taken from the start of that `close()` to the moment both
   others have been handed 3/3 (read from a rebalance listener's `on_partitions_assigned`, so
   the poll loop's granularity does not enter). A member learns that the group is
   rebalancing from a heartbeat response, so the settling time is bounded by the members'
   heartbeat interval, as with Kafka: the row is printed with kafka-python's default
   (`heartbeat_interval_ms=3000`) and with `heartbeat_interval_ms=300`. The remaining
   members heartbeat in step (they joined together), so the leave is placed at a random
   (seeded) point of the heartbeat period: the leaver waits a random 0..interval after being
   told, its polls cut short to end on time. The time from start to 2/2/2 is printed too,
   with how many groups saw an empty first assignment (kafka-python's leader assigning
   before it has the topic's metadata: "No partition metadata for topic", which costs one
   more rebalance that the others notice on their next heartbeat).

Each member thread polls with `poll(timeout_ms=1000)`, not with very short polls: with
kafka-python 3.0.12 a very short poll (e.g. `timeout_ms=100`) has been seen to miss a join
completion now and then, stalling a member (not reproduced while writing this: 6 groups with
100 ms polls against pylog settled normally); ~1 s polls avoid it, and the rebalance listener
time-stamps assignments whatever the poll length. Only the leaving member polls shorter, just
before its close(). kafka-python rejoins only inside poll(): after the heartbeat answer that
says "rebalancing", a member's poll thread notices at its next round (an idle consumer sleeps
retry_backoff_ms = 100 ms between rounds, an assigned one waits on its fetch up to the next
heartbeat), so with `heartbeat_interval_ms=300` the settling time is up to ~0.6 s.

Every loop is bounded in count and time, the whole run by BUDGET_S (~3 minutes); brokers and
temporary directories go on every exit path (`peers.py`'s reaper covers a crash).
"""

from __future__ import annotations

import ctypes
import glob
import logging
import os
import random
import statistics
import sys
import threading
import time
import uuid

if __package__ in (None, ""):  # `python bench/group_bench.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import peers  # noqa: E402

for _noisy in ("kafka", "aiokafka"):
    logging.getLogger(_noisy).setLevel(logging.CRITICAL)

BROKERS = ("pylog", "tansu", "kafka", "mock")
BUDGET_S = 190.0
VERBOSE = os.environ.get("BENCH_VERBOSE", "") not in ("", "0")
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")  # smoke run: one group per row

FIRST_REPS = {"pylog": 5, "tansu": 3, "kafka": 5, "mock": 5}  # tansu: every fresh group costs 3 s
FIRST_PREFILL = 5
FIRST_LIMIT_S = 15.0  # per fresh group
# groups per row; a peer's round takes ~12 s. The mock's settling time is its own rebalance timer
# (session timeout - 1 s, plus the 100 ms assignor delay): 5.10-5.11 s in every run here, so once.
SETTLE_REPS = {"pylog": 3, "tansu": 2, "kafka": 2, "mock": 1}
SETTLE_PARTITIONS = 6
SETTLE_MEMBERS = 3
JOIN_LIMIT_S = 25.0  # three members to 2/2/2
SETTLE_LIMIT_S = 15.0  # the two left to 3/3
POLL_MS = 1000
HEARTBEATS = (None, 300)  # None: kafka-python's default (3000 ms)
if QUICK:
    BUDGET_S = 150.0
    FIRST_REPS = {name: 1 for name in FIRST_REPS}
    SETTLE_REPS = {name: 1 for name in SETTLE_REPS}
    HEARTBEATS = (300,)

GOAL_FIRST_S = 0.5
PEER_SESSION_TIMEOUT_MS = 6000
MOCK_API_VERSION = (2, 3, 0)
LEAVE_SEED = 5
MOCK_LEADER_SYNC_DELAY_S = 0.1  # see _mock_assignors()


# ---------------------------------------------------------------------------------------------
# The librdkafka mock with initial rebalance delay 0 (ctypes on confluent-kafka's librdkafka)


class _RdMock:
    """rd_kafka_new() + rd_kafka_mock_cluster_new(): a 1-broker mock whose handle we keep, so
    that the group initial rebalance delay can be set and topics created."""

    _lib = None

    @classmethod
    def lib(cls):
        if cls._lib is None:
            import confluent_kafka

            libdir = os.path.join(os.path.dirname(confluent_kafka.__file__), os.pardir, "confluent_kafka.libs")
            paths = sorted(glob.glob(os.path.join(libdir, "librdkafka*.so*")))
            if not paths:
                raise RuntimeError(f"no librdkafka in {libdir}")
            lib = ctypes.CDLL(paths[0])
            p = ctypes.c_void_p
            lib.rd_kafka_conf_new.restype = p
            lib.rd_kafka_conf_set.argtypes = [p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
            lib.rd_kafka_new.restype = p
            lib.rd_kafka_new.argtypes = [ctypes.c_int, p, ctypes.c_char_p, ctypes.c_size_t]
            lib.rd_kafka_destroy.argtypes = [p]
            lib.rd_kafka_mock_cluster_new.restype = p
            lib.rd_kafka_mock_cluster_new.argtypes = [p, ctypes.c_int]
            lib.rd_kafka_mock_cluster_destroy.argtypes = [p]
            lib.rd_kafka_mock_cluster_bootstraps.restype = ctypes.c_char_p
            lib.rd_kafka_mock_cluster_bootstraps.argtypes = [p]
            lib.rd_kafka_mock_topic_create.argtypes = [p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
            lib.rd_kafka_mock_group_initial_rebalance_delay_ms.argtypes = [p, ctypes.c_int32]
            cls._lib = lib
        return cls._lib

    def __init__(self, broker_cpus: set[int] | None):
        lib = self.lib()
        self._rk = self._mc = None
        err = ctypes.create_string_buffer(512)
        previous = os.sched_getaffinity(0) if broker_cpus else None
        try:
            peers.pin(0, broker_cpus)  # the mock's threads inherit this thread's affinity
            conf = lib.rd_kafka_conf_new()
            lib.rd_kafka_conf_set(conf, b"log_level", b"0", err, 512)
            self._rk = lib.rd_kafka_new(0, conf, err, 512)  # RD_KAFKA_PRODUCER; takes conf
            if not self._rk:
                raise RuntimeError(f"rd_kafka_new: {err.value.decode(errors='replace')}")
            self._mc = lib.rd_kafka_mock_cluster_new(self._rk, 1)
            if not self._mc:
                self.close()
                raise RuntimeError("rd_kafka_mock_cluster_new failed")
        finally:
            if previous:
                os.sched_setaffinity(0, previous)
        self.bootstrap = lib.rd_kafka_mock_cluster_bootstraps(self._mc).decode()
        lib.rd_kafka_mock_group_initial_rebalance_delay_ms(self._mc, 0)

    def create_topic(self, name: str, partitions: int) -> None:
        code = self.lib().rd_kafka_mock_topic_create(self._mc, name.encode(), partitions, 1)
        if code:
            raise RuntimeError(f"rd_kafka_mock_topic_create({name}) error {code}")

    def close(self) -> None:
        lib = self.lib()
        mc, self._mc = self._mc, None
        rk, self._rk = self._rk, None
        if mc:
            lib.rd_kafka_mock_cluster_destroy(mc)
        if rk:
            lib.rd_kafka_destroy(rk)


def start_mock0(broker_cpus: set[int] | None = None) -> tuple[peers.BrokerHandle, _RdMock]:
    started = time.perf_counter()
    mock = _RdMock(broker_cpus)
    handle = peers.BrokerHandle("mock", mock.bootstrap, None, _closer=mock.close)
    handle.spawn["mock cluster created"] = (time.perf_counter() - started) * 1000
    return handle, mock


# ---------------------------------------------------------------------------------------------
# Helpers


def _short(error: object, width: int = 120) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b:
        return "n/a"
    return f"{a / b:.2f}x" if a / b >= 0.1 else f"{a / b:.2g}x"


def _s(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


class Budget:
    def __init__(self, seconds: float):
        self.deadline = time.perf_counter() + seconds

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def exhausted(self, need: float) -> bool:
        return self.left() < need


def _mock_assignors() -> tuple:
    """kafka-python's default assignors, the range one made to wait MOCK_LEADER_SYNC_DELAY_S
    before the leader's SyncGroup goes out.

    The librdkafka mock completes a sync as soon as the leader's SyncGroup has arrived with
    an assignment for every member, and answers a SyncGroup that comes after that with
    INVALID_REQUEST (a real broker answers it with the member's assignment). kafka-python
    treats that as fatal for the join, rejoins, and the mock starts a new rebalance of
    session timeout - 1 s, where the race is lost again: the three-member group livelocks
    (seen here: 25 s without a 2/2/2). Letting the other members' SyncGroups go first avoids it.
    """
    from kafka.coordinator.assignors.range import RangePartitionAssignor
    from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

    class LateSyncRangeAssignor(RangePartitionAssignor):
        @classmethod
        def assign(cls, cluster, members):
            time.sleep(MOCK_LEADER_SYNC_DELAY_S)
            return super().assign(cluster, members)

    return (LateSyncRangeAssignor, RoundRobinPartitionAssignor)


def _client_kwargs(name: str, heartbeat_ms: int | None = None, group_of_three: bool = False) -> dict:
    kwargs: dict = {}
    if name == "tansu" or (name == "mock" and group_of_three):
        kwargs["session_timeout_ms"] = PEER_SESSION_TIMEOUT_MS
    if name == "mock" and group_of_three:
        kwargs["partition_assignment_strategy"] = _mock_assignors()
    if name == "mock":
        kwargs["api_version"] = MOCK_API_VERSION
    if heartbeat_ms is not None:
        kwargs["heartbeat_interval_ms"] = heartbeat_ms
    return kwargs


def _create_topic(name: str, handle: peers.BrokerHandle, mock: _RdMock | None, topic: str,
                  partitions: int) -> None:
    if mock is not None:
        mock.create_topic(topic, partitions)
        return
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(bootstrap_servers=handle.bootstrap, request_timeout_ms=10_000)
    try:
        admin.create_topics([NewTopic(topic, partitions, 1)], timeout_ms=10_000)
    finally:
        admin.close()


def _fill(bootstrap: str, topic: str, partitions: int, per_partition: int) -> None:
    """A few records in every partition, with confluent-kafka (acks=all, delivery awaited)."""
    from confluent_kafka import Producer

    errors: list[str] = []
    producer = Producer({"bootstrap.servers": bootstrap, "log_level": 0, "acks": "all", "linger.ms": 0,
                         "broker.address.family": "v4", "message.timeout.ms": 10_000})
    for p in range(partitions):
        for i in range(per_partition):
            producer.produce(topic, f"record {p}/{i}".encode(), partition=p,
                             on_delivery=lambda err, msg: err is not None and errors.append(str(err)))
    left = producer.flush(12)
    if errors or left:
        raise RuntimeError(f"pre-fill of {topic}: {errors[0] if errors else f'{left} undelivered'}")


# ---------------------------------------------------------------------------------------------
# 1. new group consumer to first record


def first_record(name: str, bootstrap: str, topic: str, limit: float) -> tuple[float, float, str | None]:
    """(seconds to the first record, seconds in the constructor, error) for one fresh group."""
    from kafka import KafkaConsumer

    group = f"first-{uuid.uuid4().hex[:12]}"
    consumer = None
    started = time.perf_counter()
    try:
        consumer = KafkaConsumer(topic, group_id=group, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                                 **_client_kwargs(name))
        built = time.perf_counter() - started
        deadline = started + limit
        for _ in range(int(limit * 1000 / POLL_MS) + 5):
            records = consumer.poll(timeout_ms=POLL_MS)
            if records:
                return time.perf_counter() - started, built, None
            if time.perf_counter() > deadline:
                break
        return time.perf_counter() - started, built, f"no record in {limit:.0f} s"
    except Exception as exc:
        return time.perf_counter() - started, 0.0, f"{type(exc).__name__}: {_short(exc)}"
    finally:
        if consumer is not None:
            try:
                consumer.close(timeout_ms=5000)
            except Exception:
                pass


# ---------------------------------------------------------------------------------------------
# 2. settling after a member leaves


class _Member(threading.Thread):
    """A KafkaConsumer subscribed with a rebalance listener, polling in its own thread until
    told to close (then timing its close()) or to stop."""

    def __init__(self, index: int, name: str, bootstrap: str, topic: str, group: str,
                 heartbeat_ms: int | None, deadline: float):
        super().__init__(name=f"member-{index}", daemon=True)
        self.index = index
        self.broker = name
        self.bootstrap = bootstrap
        self.topic = topic
        self.group = group
        self.heartbeat_ms = heartbeat_ms
        self.deadline = deadline
        self.lock = threading.Lock()
        self.assigned: tuple[float, frozenset[int]] | None = None  # (when, partitions), latest
        self.history: list[tuple[float, str, int]] = []  # (when, "assigned"/"revoked", count)
        self.leave = threading.Event()
        self.leave_pause = 0.0  # seconds between noticing `leave` and calling close()
        self.stop = threading.Event()
        self.close_started: float | None = None
        self.close_ended: float | None = None
        self.error: str | None = None  # fatal: the member stopped
        self.poll_errors: list[str] = []  # raised by poll(); the member carried on
        self.polls = 0

    def run(self) -> None:
        from kafka import ConsumerRebalanceListener, KafkaConsumer
        from kafka.errors import KafkaError

        member = self

        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                with member.lock:
                    member.history.append((time.perf_counter(), "revoked", len(revoked)))

            def on_partitions_assigned(self, assigned):
                now = time.perf_counter()
                parts = frozenset(tp.partition for tp in assigned if tp.topic == member.topic)
                with member.lock:
                    member.assigned = (now, parts)
                    member.history.append((now, "assigned", len(parts)))

        consumer = None
        try:
            consumer = KafkaConsumer(group_id=self.group, bootstrap_servers=self.bootstrap,
                                     auto_offset_reset="earliest",
                                     **_client_kwargs(self.broker, self.heartbeat_ms, group_of_three=True))
            consumer.subscribe([self.topic], listener=Listener())
            # bounded: one iteration per POLL_MS until the deadline, plus the short polls that lead
            # up to the leave (at most leave_pause / 1 ms of them, in practice a handful)
            limit = int((self.deadline - time.perf_counter()) * 1000 / POLL_MS) + 10 + 5000
            leave_at = None
            for _ in range(max(limit, 1)):
                now = time.perf_counter()
                if self.stop.is_set() or now > self.deadline:
                    break
                if self.leave.is_set() and leave_at is None:
                    leave_at = now + self.leave_pause
                if leave_at is not None and now >= leave_at:
                    self.close_started = time.perf_counter()
                    consumer.close(timeout_ms=5000)  # LeaveGroup
                    self.close_ended = time.perf_counter()
                    consumer = None
                    return
                timeout_ms = POLL_MS if leave_at is None else max(1, min(POLL_MS, int((leave_at - now) * 1000)))
                try:
                    consumer.poll(timeout_ms=timeout_ms)
                except KafkaError as exc:  # e.g. the mock's INVALID_REQUEST to a late SyncGroup
                    self.poll_errors.append(f"{type(exc).__name__}: {_short(exc, 60)}")
                    if len(self.poll_errors) > 20:
                        raise
                    time.sleep(0.05)
                self.polls += 1
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {_short(exc)}"
        finally:
            if consumer is not None:
                try:
                    consumer.close(timeout_ms=5000)
                except Exception:
                    pass

    def current(self) -> tuple[float, frozenset[int]] | None:
        with self.lock:
            return self.assigned


def _spread(members: list[_Member], want: int) -> tuple[float, str] | None:
    """(time of the latest assignment, "a/b/c") if every member owns `want` partitions and
    together all of them, else None."""
    snaps = [m.current() for m in members]
    if any(s is None for s in snaps):
        return None
    parts = [s[1] for s in snaps]
    union = frozenset().union(*parts)
    if all(len(p) == want for p in parts) and len(union) == SETTLE_PARTITIONS:
        return max(s[0] for s in snaps), "/".join(str(len(p)) for p in parts)
    return None


def _describe(members: list[_Member]) -> str:
    out = []
    for m in members:
        snap = m.current()
        out.append(f"m{m.index}:{len(snap[1]) if snap else '-'}" + (f"({m.error})" if m.error else ""))
    return " ".join(out)


def settle_after_leave(name: str, bootstrap: str, topic: str, heartbeat_ms: int | None, budget: Budget,
                       pause: float = 0.0) -> dict:
    """One group: start 3 members, wait for 2/2/2, close one, wait for 3/3. Returns a dict with
    `join` (s from start to 2/2/2), `settle` (s from the start of close() to 3/3), `close`
    (s that close() took), `error`."""
    group = f"settle-{uuid.uuid4().hex[:12]}"
    started = time.perf_counter()
    hard_deadline = started + min(JOIN_LIMIT_S + SETTLE_LIMIT_S + 5, max(budget.left(), 1))
    members = [_Member(i, name, bootstrap, topic, group, heartbeat_ms, hard_deadline)
               for i in range(SETTLE_MEMBERS)]
    result: dict = {"join": None, "settle": None, "close": None, "error": None, "empty": False}
    try:
        for m in members:
            m.start()
        join_deadline = started + min(JOIN_LIMIT_S, hard_deadline - started)
        spread = None
        while time.perf_counter() < join_deadline:
            spread = _spread(members, SETTLE_PARTITIONS // SETTLE_MEMBERS)
            if spread is not None or any(m.error for m in members):
                break
            time.sleep(0.005)
        if spread is None:
            result["error"] = f"no 2/2/2 in {time.perf_counter() - started:.0f} s ({_describe(members)})"
            return result
        result["join"] = spread[0] - started
        result["empty"] = any(n == 0 for m in members for _, kind, n in list(m.history) if kind == "assigned")
        leaver, rest = members[0], members[1:]
        # leave at a random phase of the heartbeats (they tick in step after a join): the leaver
        # waits `pause` after noticing the request, with polls cut short to end on time
        leaver.leave_pause = pause
        leaver.leave.set()
        settle_deadline = time.perf_counter() + min(SETTLE_LIMIT_S, max(hard_deadline - time.perf_counter(), 0))
        done = None
        while time.perf_counter() < settle_deadline:
            if leaver.close_started is not None:
                done = _spread(rest, SETTLE_PARTITIONS // len(rest))
                if done is not None and done[0] > leaver.close_started:
                    break
                done = None
            if any(m.error for m in members):
                break
            time.sleep(0.005)
        if leaver.close_ended is not None:
            result["close"] = leaver.close_ended - leaver.close_started
        if done is None:
            result["error"] = (f"no 3/3 within {SETTLE_LIMIT_S:.0f} s of the leave ({_describe(rest)})"
                               if leaver.close_started is not None else "the leaving member never closed")
            return result
        result["settle"] = done[0] - leaver.close_started
        return result
    finally:
        for m in members:
            m.stop.set()
        for m in members:
            m.join(8)
        result["poll_errors"] = [e for m in members for e in m.poll_errors]
        stuck = [m.name for m in members if m.is_alive()]
        if stuck and result["error"] is None:
            result["error"] = f"threads still running: {', '.join(stuck)}"
        if VERBOSE:
            for m in members:
                base = started
                result.setdefault("history", []).append(
                    f"m{m.index} polls={m.polls} " + " ".join(f"{w - base:.2f}:{k[0]}{n}" for w, k, n in m.history))


# ---------------------------------------------------------------------------------------------


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def run() -> list[str]:
    import kafka

    lines: list[str] = []
    budget = Budget(BUDGET_S)
    broker_cpus, client_cpus = peers.pinning()
    previous_affinity = os.sched_getaffinity(0) if client_cpus else None
    peers.pin(0, client_cpus)
    peers.start_reaper()
    handles: dict[str, peers.BrokerHandle] = {}
    mocks: dict[str, _RdMock] = {}
    failed: dict[str, str] = {}
    first: dict[str, list[tuple[float, float]]] = {n: [] for n in BROKERS}
    first_errors: dict[str, list[str]] = {n: [] for n in BROKERS}
    first_fresh: dict[str, float] = {}  # the first group a fresh broker sees (pylog creates __consumer_offsets)
    settle: dict[tuple[str, int | None], list[dict]] = {}
    first_topic = "group-bench-first"
    settle_topics = {hb: f"group-bench-settle-{hb or 'default'}" for hb in HEARTBEATS}
    lines.append(f"kafka-python {kafka.__version__}; brokers on core {sorted(broker_cpus or [])},"
                 f" clients on core {sorted(client_cpus or [])}. pylog: client defaults. tansu: session_timeout_ms="
                 f"{PEER_SESSION_TIMEOUT_MS} (it holds a new group's first JoinGroup for half the session timeout)."
                 f" mock: initial rebalance delay set to 0 ms, api_version={MOCK_API_VERSION}, and in the 3-member"
                 f" group session_timeout_ms={PEER_SESSION_TIMEOUT_MS} too (once a group has been formed, the mock"
                 f" holds every rebalance for session timeout - 1 s: 29 s with kafka-python's default for that"
                 f" api_version) and a range assignor that waits {MOCK_LEADER_SYNC_DELAY_S * 1000:.0f} ms before"
                 f" the leader's SyncGroup (the mock answers a SyncGroup that comes after the leader's with"
                 f" INVALID_REQUEST, and kafka-python's rejoin then livelocks the group). kafka: client defaults;"
                 f" the broker has group.initial.rebalance.delay.ms=0 (pylog's default; Kafka's is 3000)")
    try:
        for name in BROKERS:
            try:
                if name == "mock":
                    handles[name], mocks[name] = start_mock0(broker_cpus)
                elif name == "tansu":
                    handles[name] = peers.start_tansu(broker_cpus)
                elif name == "kafka":
                    handles[name] = peers.start_kafka(broker_cpus)
                else:
                    handles[name] = peers.start_pylog_serve(broker_cpus)
                h = handles[name]
                _create_topic(name, h, mocks.get(name), first_topic, 1)
                for topic in settle_topics.values():
                    _create_topic(name, h, mocks.get(name), topic, SETTLE_PARTITIONS)
                _fill(h.bootstrap, first_topic, 1, FIRST_PREFILL)
            except Exception as exc:
                failed[name] = _short(exc)
        active = [n for n in BROKERS if n in handles and n not in failed]

        # 1. first record, interleaved (rep 1 on every broker, then rep 2, ...)
        for rep in range(max(FIRST_REPS.values())):
            for name in active:
                if rep >= FIRST_REPS[name] or budget.exhausted(60):
                    continue
                seconds, built, error = first_record(name, handles[name].bootstrap, first_topic,
                                                     min(FIRST_LIMIT_S, max(budget.left() - 50, 1)))
                if error:
                    first_errors[name].append(error)
                else:
                    first[name].append((seconds, built))
                    if rep == 0:
                        first_fresh[name] = seconds

        # 2. settle after a leave
        rng = random.Random(LEAVE_SEED)
        for rep in range(max(SETTLE_REPS.values())):
            for hb in HEARTBEATS:
                for name in active:
                    if rep >= SETTLE_REPS[name] or budget.exhausted(10 if name == "pylog" else 15):
                        continue
                    pause = rng.uniform(0, (hb or 3000) / 1000)
                    res = settle_after_leave(name, handles[name].bootstrap, settle_topics[hb], hb, budget, pause)
                    settle.setdefault((name, hb), []).append(res)

        # ---- report
        def nr(name: str) -> str:
            return f"{name} failed to start: {failed[name]}" if name in failed else f"{name} not run"

        cells, med = [], {}
        for name in BROKERS:
            if name not in active:
                cells.append(nr(name))
                continue
            runs = first[name]
            med[name] = _median([r[0] for r in runs])
            built = _median([r[1] for r in runs])
            text = f"{name} {_s(med[name])}" if runs else f"{name} n/a"
            if runs:
                text += f" (constructor {built * 1000:.0f} ms; {len(runs)} groups"
                text += f", range {min(r[0] for r in runs):.2f}-{max(r[0] for r in runs):.2f} s"
                if name in first_fresh:
                    text += f"; the broker's first group {first_fresh[name]:.2f} s"
                text += ")"
            if first_errors[name]:
                text += f" [{len(first_errors[name])} failed: {first_errors[name][0]}]"
            cells.append(text)
        ok = None if med.get("pylog") is None else med["pylog"] <= GOAL_FIRST_S
        lines.append(
            f"new group consumer -> first record (kafka-python defaults, poll(timeout_ms={POLL_MS}),"
            f" 1-partition topic with {FIRST_PREFILL} records, median of fresh groups): " + " | ".join(cells)
            + f" | pylog/tansu {_ratio(med.get('pylog'), med.get('tansu'))}"
            + f" pylog/kafka {_ratio(med.get('pylog'), med.get('kafka'))}"
            + f" pylog/mock {_ratio(med.get('pylog'), med.get('mock'))}"
            + f" | goal pylog <= {GOAL_FIRST_S} s {'n/a' if ok is None else 'MET' if ok else 'MISSED'}")

        for hb in HEARTBEATS:
            cells, med = [], {}
            for name in BROKERS:
                if name not in active:
                    cells.append(nr(name))
                    continue
                runs = settle.get((name, hb), [])
                good = [r for r in runs if r["settle"] is not None]
                bad = [r for r in runs if r["settle"] is None]
                med[name] = _median([r["settle"] for r in good])
                text = f"{name} {_s(med[name])}"
                if good:
                    joins = [r["join"] for r in good]
                    closes = [r["close"] for r in good if r["close"] is not None]
                    empty = sum(1 for r in runs if r.get("empty"))
                    text += (f" (range {min(r['settle'] for r in good):.2f}-{max(r['settle'] for r in good):.2f} s,"
                             f" {len(good)} groups; start->2/2/2 {_s(_median(joins))}"
                             + (f", {empty} with an empty first assignment" if empty else "")
                             + (f"; close() {_median(closes) * 1000:.0f} ms" if closes else "") + ")")
                if bad:
                    text += f" [{len(bad)} failed: {bad[0]['error']}]"
                perr = [e for r in runs for e in r.get("poll_errors", [])]
                if perr:
                    text += f" [poll() raised {len(perr)}x, member carried on: {perr[0]}]"
                cells.append(text)
            label = "default heartbeat_interval_ms (3000)" if hb is None else f"heartbeat_interval_ms={hb}"
            lines.append(
                f"3-member group, 6 partitions, one member close()s (LeaveGroup) -> other two own 3/3,"
                f" {label}: " + " | ".join(cells)
                + f" | pylog/tansu {_ratio(med.get('pylog'), med.get('tansu'))}"
                + f" pylog/kafka {_ratio(med.get('pylog'), med.get('kafka'))}"
                + f" pylog/mock {_ratio(med.get('pylog'), med.get('mock'))}")
            if VERBOSE:
                for name in active:
                    for r in settle.get((name, hb), []):
                        lines.append(f"    {name}: " + ", ".join(
                            f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                            for k, v in r.items() if k not in ("history", "poll_errors")))
                        for h in r.get("history", []):
                            lines.append(f"      {h}")
        lines.append(f"  (timed from the start of close() to the second 3/3 on_partitions_assigned; the leave comes at"
                     f" a random point of the heartbeat period. Settling is bounded by the remaining members' heartbeat"
                     f" interval: they learn of the rebalance from a heartbeat answer (pylog, tansu, kafka); the mock"
                     f" instead holds every rebalance of a formed group for session timeout - 1 s. Members poll with"
                     f" poll(timeout_ms={POLL_MS}) in threads, since very short polls have been seen to miss a join"
                     f" completion with kafka-python {kafka.__version__}. An empty first assignment: the kafka-python"
                     f" leader assigned before it had the topic's metadata (\"No partition metadata\"), which costs"
                     f" one more rebalance, noticed by the others on their next heartbeat)")
        return lines
    finally:
        peers.close_all(handles, lines)
        peers.pin(0, previous_affinity)  # back to the cores this process had


if __name__ == "__main__":
    _started = time.perf_counter()
    for _line in run():
        print(_line, flush=True)
    print(f"# {time.perf_counter() - _started:.1f} s", flush=True)
