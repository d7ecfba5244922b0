"""Message codec speed: pylog's `protocol.codec` against kafka-python 3.x, same run.

    python -m bench.protocol_bench        (or `python -m bench protocol`)

For each case below both libraries encode the same message content and decode the
same bytes, and each line gives the rate of both and their ratio (pylog / kafka-python;
above 1.0x means pylog is faster). The cases:

    produce v9 / v7     ProduceRequest, one topic, one partition, 1 MiB of records
    fetch v12 / v11     FetchResponse, one topic, one partition, 1 MiB of records
    metadata v12/v9/v5  MetadataResponse, 3 brokers, 100 topics x 4 partitions (RF 3)

Records are opaque to both codecs (a length-prefixed byte string), so they are 1 MiB of
seeded random bytes rather than a real record batch. Header encoding is not included:
only the message body, at the given version.

Before timing, each case checks that the bytes pylog encodes equal the bytes
kafka-python encodes, and that each library decodes the other's bytes to the same
content (after mapping kafka-python's representation onto pylog's: zero UUID <-> None,
authorized-operations bit set <-> int32, bytes vs memoryview). A case that fails the
check is reported and not timed.

Method: `time.perf_counter` around batches of calls, the batch size calibrated to
~30 ms; batches of the two libraries alternate (so drift hits both alike), each
rate is the median of 7 batches and the ratio the median of the 7 paired ratios
(the machine is shared; this cancels load that comes and goes). The garbage
collector is off inside a batch and collected between batches, as `timeit` does.
MB/s counts encoded message bytes, 1 MB = 10^6 bytes. Both rates of a line come
from the same run (on this kind of machine medians move ~20% between runs, ratios much less).

Note what the numbers mean for the records-heavy cases: pylog decodes a `records`
field to a memoryview slice of the input (no copy), kafka-python copies it into
`bytes`; so their decode rates measure per-message overhead plus (for kafka-python)
a 1 MiB copy.
"""

from __future__ import annotations

import gc
import importlib
import os
import random
import statistics
import sys
import time
import uuid

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from protocol import codec
from protocol.messages.fetch_response import FetchResponse
from protocol.messages.metadata_response import MetadataResponse
from protocol.messages.produce_request import ProduceRequest
from protocol.schema import NEW, ZERO_UUID, Array, Struct, in_versions

try:
    from kafka.protocol.consumer import FetchResponse as KFetchResponse
    from kafka.protocol.metadata import MetadataResponse as KMetadataResponse
    from kafka.protocol.producer import ProduceRequest as KProduceRequest
except ImportError as error:  # pragma: no cover - kafka-python is a test dependency
    KAFKA_IMPORT_ERROR: ImportError | None = error
else:
    KAFKA_IMPORT_ERROR = None

MIB = 1 << 20
BATCH_SECONDS = 0.03
BATCHES = 7
INT32_MIN = -(1 << 31)

# pylog field name -> kafka-python field name, where kafka-python patches the schema
# (MetadataResponse: both authorized-operations fields become a "bitfield" named so).
KP_NAMES = {
    "topic_authorized_operations": "authorized_operations",
    "cluster_authorized_operations": "authorized_operations",
}


# ---------------------------------------------------------------------------------------
# The messages


def _records(size: int = MIB) -> bytes:
    return random.Random(20240601).randbytes(size)


def produce_request(records: bytes) -> ProduceRequest:
    return ProduceRequest(
        transactional_id=None,
        acks=-1,
        timeout_ms=30000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name="bench-topic",
                partition_data=[ProduceRequest.PartitionProduceData(index=0, records=records)],
            )
        ],
    )


def fetch_response(records: bytes) -> FetchResponse:
    return FetchResponse(
        throttle_time_ms=0,
        error_code=0,
        session_id=123456,
        responses=[
            FetchResponse.FetchableTopicResponse(
                topic="bench-topic",
                partitions=[
                    FetchResponse.PartitionData(
                        partition_index=0,
                        error_code=0,
                        high_watermark=1_000_000,
                        last_stable_offset=1_000_000,
                        log_start_offset=0,
                        aborted_transactions=[],
                        preferred_read_replica=-1,
                        records=records,
                    )
                ],
            )
        ],
    )


def metadata_response(topics: int = 100, partitions: int = 4, brokers: int = 3) -> MetadataResponse:
    rng = random.Random(7)
    m = MetadataResponse
    return m(
        throttle_time_ms=0,
        brokers=[
            m.MetadataResponseBroker(node_id=b, host=f"broker-{b}.example.internal", port=9092, rack=f"rack-{b}")
            for b in range(brokers)
        ],
        cluster_id="Jd5rBfWzQDa3c4WqGpl-3A",
        controller_id=0,
        topics=[
            m.MetadataResponseTopic(
                error_code=0,
                name=f"bench-topic-{t:03d}",
                topic_id=uuid.UUID(int=rng.getrandbits(128)),
                is_internal=False,
                partitions=[
                    m.MetadataResponsePartition(
                        error_code=0,
                        partition_index=p,
                        leader_id=(t + p) % brokers,
                        leader_epoch=5,
                        replica_nodes=[(t + p + r) % brokers for r in range(brokers)],
                        isr_nodes=[(t + p + r) % brokers for r in range(brokers)],
                        offline_replicas=[],
                    )
                    for p in range(partitions)
                ],
                topic_authorized_operations=INT32_MIN,  # "not requested", as brokers answer by default
            )
            for t in range(topics)
        ],
        cluster_authorized_operations=INT32_MIN,
    )


# ---------------------------------------------------------------------------------------
# Translating between the two libraries' objects (for building and for checking)


def _present(cls: type[Struct], version: int):
    return [f for f in cls.FIELDS if in_versions(version, f.versions)]


def to_kafka_python(obj: Struct, kcls, version: int):
    """Build kafka-python's object with the same content as pylog's `obj` at `version`."""
    values = {}
    for f in _present(type(obj), version):
        name = KP_NAMES.get(f.name, f.name)
        kfield = kcls.fields[name]
        v = getattr(obj, f.name)
        if in_versions(version, f.tagged_versions) and v == f.default_value():
            continue  # kafka-python writes a tagged field whenever it is given one; pylog only if not default
        t = f.type
        if isinstance(t, Array) and isinstance(t.element, type):
            v = None if v is None else [to_kafka_python(x, kfield.data_class, version) for x in v]
        elif isinstance(t, type):
            v = None if v is None else to_kafka_python(v, kfield.data_class, version)
        elif f.name in KP_NAMES:
            v = None if v == INT32_MIN else {b for b in range(32) if (v >> b) & 1}
        values[name] = v
    return kcls(**values)


def plain(obj, cls: type[Struct], version: int, kafka_python: bool = False):
    """Content of `obj` (pylog's or, with kafka_python=True, kafka-python's) as nested
    dicts of the fields on the wire at `version`, in pylog's representation."""
    if obj is None:
        return None
    out = {}
    for f in _present(cls, version):
        v = getattr(obj, KP_NAMES.get(f.name, f.name) if kafka_python else f.name)
        t = f.type
        if isinstance(t, Array):
            if v is not None:
                v = [plain(x, t.element, version, kafka_python) for x in v] if isinstance(t.element, type) else list(v)
        elif isinstance(t, type):
            if v is None and kafka_python and f.default is NEW:
                v = t()  # kafka-python leaves an absent tagged struct None; pylog gives its default
                out[f.name] = plain(v, t, version)
                continue
            v = plain(v, t, version, kafka_python)
        elif t == "uuid":
            v = ZERO_UUID if v is None else v
        elif t in ("bytes", "records"):
            v = None if v is None else bytes(v)
        elif kafka_python and f.name in KP_NAMES:
            if v is None:
                v = INT32_MIN
            else:
                v = sum(1 << b for b in v)
                v = v - (1 << 32) if v >= 1 << 31 else v
        out[f.name] = v
    return out


def check_same_work(cls, message, kcls, kmessage, version: int) -> list[str]:
    """Problems found comparing the two libraries on this message (empty: none)."""
    problems = []
    ours = bytes(codec.encode(message, version))
    theirs = bytes(kmessage.encode(version=version))
    if ours != theirs:
        at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        problems.append(f"encodings differ ({len(ours)} vs {len(theirs)} bytes, first difference at byte {at})")
    expected = plain(message, cls, version)
    if plain(codec.decode(cls, theirs, version), cls, version) != expected:
        problems.append("pylog decodes kafka-python's bytes to different content")
    if plain(kcls.decode(ours, version=version), cls, version, kafka_python=True) != expected:
        problems.append("kafka-python decodes pylog's bytes to different content")
    return problems


# ---------------------------------------------------------------------------------------
# Timing


def _batch(fn, n: int) -> float:
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


def _calibrate(fn) -> int:
    """Calls per batch so that a batch takes about BATCH_SECONDS."""
    fn()  # warm: compile caches, buffer pools
    n = 1
    while True:
        elapsed = _batch(fn, n)
        if elapsed >= BATCH_SECONDS / 4:
            return max(1, round(n * BATCH_SECONDS / elapsed))
        n *= 4


def compare(fn_a, fn_b) -> tuple[float, float, float]:
    """(seconds per call of fn_a, of fn_b, fn_b time / fn_a time): medians over
    alternating batches; the ratio is the median of the per-pair ratios, which
    cancels load that drifts over the run better than a ratio of medians."""
    n_a, n_b = _calibrate(fn_a), _calibrate(fn_b)
    times_a, times_b = [], []
    for _ in range(BATCHES):
        gc.collect()
        times_a.append(_batch(fn_a, n_a) / n_a)
        gc.collect()
        times_b.append(_batch(fn_b, n_b) / n_b)
    ratio = statistics.median(b / a for a, b in zip(times_a, times_b))
    return statistics.median(times_a), statistics.median(times_b), ratio


def _ops(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:.2f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f}k"
    return f"{rate:.1f}"


def _line(label: str, size: int, ours: float, theirs: float, ratio: float) -> str:
    flag = "" if ratio >= 1.0 else "   <-- pylog slower"
    shown = f"{ratio:.1f}" if ratio >= 2 else f"{ratio:.2f}"
    return (
        f"{label}: pylog {_ops(1 / ours)} ops/s {size / ours / 1e6:,.0f} MB/s, "
        f"kafka-python {_ops(1 / theirs)} ops/s {size / theirs / 1e6:,.0f} MB/s, "
        f"ratio {shown}x{flag}"
    )


# ---------------------------------------------------------------------------------------


def cases():
    """(label, pylog class, pylog message, kafka-python class, version) for every case."""
    records = _records()
    produce = produce_request(records)
    fetch = fetch_response(records)
    metadata = metadata_response()
    for v in (9, 7):
        yield f"produce v{v} 1MiB", ProduceRequest, produce, KProduceRequest, v
    for v in (12, 11):
        yield f"fetch v{v} 1MiB", FetchResponse, fetch, KFetchResponse, v
    for v in (12, 9, 5):
        yield f"metadata v{v} 100x4", MetadataResponse, metadata, KMetadataResponse, v


def run() -> list[str]:
    if KAFKA_IMPORT_ERROR is not None:
        return [f"protocol: kafka-python not importable ({KAFKA_IMPORT_ERROR}); nothing to compare against"]
    lines = []
    slower = []
    for label, cls, message, kcls, version in cases():
        kmessage = to_kafka_python(message, kcls, version)
        problems = check_same_work(cls, message, kcls, kmessage, version)
        if problems:
            lines.append(f"{label}: NOT TIMED, the libraries disagree: {'; '.join(problems)}")
            continue
        data = bytes(codec.encode(message, version))
        size = len(data)
        for op, ours, theirs in (
            ("decode", lambda: codec.decode(cls, data, version), lambda: kcls.decode(data, version=version)),
            ("encode", lambda: codec.encode(message, version), lambda: kmessage.encode(version=version)),
        ):
            result = compare(ours, theirs)
            lines.append(_line(f"{label} {op}", size, *result))
            if result[2] < 1.0:
                slower.append(f"{label} {op}")
    if slower:
        lines.append(f"protocol: pylog slower than kafka-python in: {', '.join(slower)}")
    else:
        lines.append("protocol: pylog at least as fast as kafka-python in every case")
    return lines


def _crc32c_lines() -> list[str]:
    try:
        module = importlib.import_module("bench.crc32c_bench")
    except ModuleNotFoundError as error:
        if error.name != "bench.crc32c_bench":
            raise
        return ["crc32c: bench/crc32c_bench.py not present yet; skipped"]
    return module.run()


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
    for line in _crc32c_lines():
        print(line, flush=True)
