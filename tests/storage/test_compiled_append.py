"""storage/_append.c against the Python code it stands in for.

`storage._append.append_batch` does Log.append's common case in C and returns None,
having changed nothing, for every other case (see the C file's opening comment). So:

- twin logs, one appending through the extension and one through Python alone, get the
  same operations (appends of every kind, good and bad, rolls, truncations, flushes,
  reopens, clock jumps) and must answer alike after each: the same AppendInfo or the same
  error, the same offsets, segments, index entries, in-memory index copies and, at the
  end, byte-identical files;
- each case the C code leaves to Python is called directly and must change nothing: not
  the produced buffer, not a file, not a field of the log;
- a write that fails leaves both paths' logs as they were.

The extension is built wherever a C compiler is found at install time; this file fails,
rather than skips, when it is missing on such a machine.
"""

from __future__ import annotations

import os
import random
import shutil
import sysconfig
import tempfile
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import storage.log as log_module
from protocol.records import Compression, build_batch
from storage.config import LogConfig
from storage.log import Log

COMPILED = log_module.compiled_append
NOW_MS = 1_700_000_000_000
# fsyncs prove nothing here: a tmpfs when there is one (as in test_log_state_machine.py)
SCRATCH_DIR = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def _c_compiler_found() -> bool:
    compiler = (sysconfig.get_config_var("CC") or "").split()
    return bool(compiler) and shutil.which(compiler[0]) is not None


def test_the_extension_is_built_where_it_can_be():
    if os.environ.get("PYLOG_PURE_PYTHON"):
        assert COMPILED is None
    elif _c_compiler_found():
        assert COMPILED is not None, "storage._append was not built although a C compiler is present"


needs_extension = pytest.mark.skipif(
    COMPILED is None, reason="storage._append off (PYLOG_PURE_PYTHON) or not built: see the test above")


def batch(records: int = 3, value_bytes: int = 100, *, timestamp_ms: int = NOW_MS, timestamp_step_ms: int = 1,
          seed: int = 0, **options) -> bytearray:
    rng = random.Random(seed)
    rows = [(None, rng.randbytes(value_bytes), (), timestamp_ms + i * timestamp_step_ms) for i in range(records)]
    return bytearray(build_batch(rows, **options))


def snapshot(log: Log) -> dict:
    """What an append may change: the log's and its active segment's fields, the index
    entries and copies, and every file's bytes."""
    segment = log.active_segment
    offset_index, time_index = segment._offset_index, segment._time_index
    state = {
        "log": (log.log_start_offset, log.log_end_offset, log.recovery_point, log._last_now_ms, log._roll_bounds),
        "segment": (segment.base_offset, segment.size_bytes, segment._bytes_since_last_index_entry, segment._max_timestamp),
        "producers": log._producer_state._map_end_offset,
        "files": {path.name: path.read_bytes() for path in sorted(log.dir.iterdir()) if path.is_file()},
    }
    if offset_index is not None:
        copy = offset_index._relative_offsets
        state["offset_index"] = (
            offset_index.entries, offset_index._last_offset, list(offset_index),
            None if copy is None else (list(copy), list(offset_index._batch_base_offsets), list(offset_index._batch_sizes)),
        )
    if time_index is not None:
        state["time_index"] = (time_index.entries, time_index.last_entry(), list(time_index))
    return state


# ---------------------------------------------------------------------------------------
# Twin logs


def _appendable(data: st.DataObject) -> bytearray | bytes:
    """A records field: mostly one plain batch (the compiled case), sometimes one of
    the cases left to Python, sometimes broken."""
    kind = data.draw(st.sampled_from(
        ["plain"] * 12 + ["two batches", "producer id", "compressed", "read-only", "bad crc", "bad magic",
                         "no timestamps", "old timestamp", "empty"]
    ))
    records = data.draw(st.integers(1, 6))
    value_bytes = data.draw(st.sampled_from([0, 10, 200, 1500]))
    timestamp_ms = NOW_MS + data.draw(st.integers(0, 20_000))
    seed = data.draw(st.integers(0, 3))
    if kind == "two batches":
        return batch(records, value_bytes, timestamp_ms=timestamp_ms, seed=seed) + batch(1, 5, timestamp_ms=timestamp_ms)
    if kind == "producer id":
        return batch(records, value_bytes, timestamp_ms=timestamp_ms, producer_id=data.draw(st.sampled_from([0, 7])),
                     producer_epoch=0,
                     base_sequence=data.draw(st.integers(0, 3)))
    if kind == "compressed":
        return batch(records, value_bytes, timestamp_ms=timestamp_ms, compression=Compression.GZIP)
    if kind == "read-only":
        return bytes(batch(records, value_bytes, timestamp_ms=timestamp_ms, seed=seed))
    if kind == "empty":
        return bytearray()
    if kind == "no timestamps":
        return batch(records, value_bytes, timestamp_ms=-1, timestamp_step_ms=0, seed=seed)
    if kind == "old timestamp":
        return batch(records, value_bytes, timestamp_ms=NOW_MS - 50_000, seed=seed)
    data_bytes = batch(records, value_bytes, timestamp_ms=timestamp_ms, seed=seed)
    if kind == "bad crc":
        data_bytes[-1] ^= 0x01
    elif kind == "bad magic":
        data_bytes[16] = 1
    return data_bytes


CONFIGS = [
    # Every batch gets an index entry; tiny indexes fill and roll the segment.
    LogConfig(segment_bytes=16_384, index_interval_bytes=0, segment_index_bytes=96, file_delete_delay_ms=0),
    # Sparse entries; flush every 7 records.
    LogConfig(segment_bytes=12_000, index_interval_bytes=700, segment_index_bytes=4096, flush_messages=7),
    # Rolls by time; LogAppendTime; deleted segments linger.
    LogConfig(segment_bytes=30_000, index_interval_bytes=300, segment_index_bytes=4096, segment_ms=5_000,
              segment_jitter_ms=500, message_timestamp_type="LogAppendTime", file_delete_delay_ms=10_000),
    # Small max.message.bytes: large batches are refused.
    LogConfig(segment_bytes=20_000, index_interval_bytes=1000, segment_index_bytes=4096, max_message_bytes=3000),
    # Roomy, sparse or dense index entries: mostly the compiled path.
    LogConfig(segment_bytes=60_000, index_interval_bytes=150, segment_index_bytes=8192, segment_ms=60_000),
    LogConfig(segment_bytes=60_000, index_interval_bytes=0, segment_index_bytes=1200, segment_ms=60_000),
]


class TwinLogs(RuleBasedStateMachine):
    """Two logs, `compiled` (Log.append may use the extension) and `python` (it may not),
    driven in lockstep."""

    @initialize(config=st.sampled_from(CONFIGS + CONFIGS[-2:] * 2), seed=st.integers(0, 2**16))
    def open_logs(self, config: LogConfig, seed: int):
        self.root = Path(tempfile.mkdtemp(prefix="twin-logs-", dir=SCRATCH_DIR))
        self.config, self.seed, self.now_ms = config, seed, NOW_MS
        self.compiled_appends = 0
        self.logs = {name: self._open(name) for name in ("compiled", "python")}

    def _open(self, name: str) -> Log:
        return Log.open(self.root / name, self.config, now_ms=self.now_ms, rng=random.Random(self.seed))

    def _both(self, call):
        """call(log) on both logs, with the extension on for one and off for the other;
        both must return alike or raise alike."""
        outcomes = {}
        for name, log in self.logs.items():
            previous = log_module.compiled_append
            log_module.compiled_append = self._counting if name == "compiled" else None
            try:
                outcomes[name] = ("ok", call(log))
            except Exception as exc:  # noqa: BLE001 -- compared, not swallowed
                outcomes[name] = ("error", type(exc), str(exc).replace("/compiled", "/python"))
            finally:
                log_module.compiled_append = previous
        assert outcomes["compiled"] == outcomes["python"]
        return outcomes["python"]

    def _counting(self, *args):
        info = COMPILED(*args)
        self.compiled_appends += info is not None
        return info

    @rule(data=st.data(), leader_epoch=st.sampled_from([None, 0, 5]), advance_ms=st.integers(0, 3000))
    def append(self, data, leader_epoch, advance_ms):
        self.now_ms += advance_ms
        records = _appendable(data)
        copies = {name: bytearray(records) if isinstance(records, bytearray) else records for name in self.logs}
        self._both(lambda log: log.append(copies[log.dir.name], now_ms=self.now_ms, leader_epoch=leader_epoch))
        assert copies["compiled"] == copies["python"]  # stamped alike

    @rule(count=st.integers(1, 8), seed=st.integers(0, 99))
    def append_plain_batches(self, count, seed):
        """A run of plain batches, the produce traffic the compiled path is for."""
        for i in range(count):
            self.now_ms += 5
            records = batch(1 + (seed + i) % 5, 40 * ((seed + i) % 9), timestamp_ms=self.now_ms, seed=seed + i)
            copies = {name: bytearray(records) for name in self.logs}
            self._both(lambda log: log.append(copies[log.dir.name], now_ms=self.now_ms, leader_epoch=2))
            assert copies["compiled"] == copies["python"]

    @rule()
    def roll(self):
        self._both(lambda log: log.roll(now_ms=self.now_ms).base_offset)

    @rule(fraction=st.floats(0, 1))
    def truncate(self, fraction):
        log = self.logs["python"]
        offset = log.log_start_offset + int(fraction * (log.log_end_offset - log.log_start_offset))
        self._both(lambda log: log.truncate_to(offset, now_ms=self.now_ms))

    @rule()
    def flush(self):
        self._both(lambda log: log.flush(now_ms=self.now_ms))

    @rule(advance_ms=st.integers(0, 20_000))
    def clock(self, advance_ms):
        self.now_ms += advance_ms
        self._both(lambda log: log.delete_expired_files(self.now_ms))

    @rule()
    def reopen(self):
        for log in self.logs.values():
            log.close()
        self.logs = {name: Log.open(self.root / name, self.config, now_ms=self.now_ms, had_clean_shutdown=True,
                                    recovery_point=log.recovery_point, log_start_offset=log.log_start_offset,
                                    rng=random.Random(self.seed))
                     for name, log in self.logs.items()}

    @invariant()
    def alike(self):
        if not hasattr(self, "logs"):
            return
        states = {name: snapshot(log) for name, log in self.logs.items()}
        assert states["compiled"] == states["python"]

    def teardown(self):
        if hasattr(self, "logs"):
            for log in self.logs.values():
                log.close_handlers()
            shutil.rmtree(self.root, ignore_errors=True)


TwinLogs.TestCase.settings = settings(
    max_examples=60 if COMPILED is not None else 1,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TestTwinLogs = needs_extension(TwinLogs.TestCase)


@needs_extension
def test_twin_logs_take_the_compiled_path(tmp_path):
    """A plain run through TwinLogs' operations, where most appends are compiled (so the
    comparisons above are not all between two Python appends)."""
    machine = TwinLogs()
    machine.open_logs(config=CONFIGS[-2], seed=1)
    try:
        for i in range(200):
            machine.now_ms += 10
            records = batch(1 + i % 4, 50 * (i % 7), timestamp_ms=machine.now_ms, seed=i)
            copies = {name: bytearray(records) for name in machine.logs}
            machine._both(lambda log: log.append(copies[log.dir.name], now_ms=machine.now_ms, leader_epoch=3))
            machine.alike()
        assert machine.compiled_appends >= 150
    finally:
        machine.teardown()


@needs_extension
@pytest.mark.parametrize(
    "records",
    [
        pytest.param(lambda now: batch(3, timestamp_ms=-1, timestamp_step_ms=0), id="no timestamps (-1)"),
        pytest.param(lambda now: batch(3, timestamp_ms=-5, timestamp_step_ms=0), id="timestamps below -1"),
        pytest.param(lambda now: batch(3, timestamp_ms=now - 60_000), id="older than the segment's max"),
        pytest.param(lambda now: batch(1, 0, timestamp_ms=now), id="one empty record"),
        pytest.param(lambda now: batch(40, 1, timestamp_ms=now), id="many records"),
        pytest.param(lambda now: batch(2, 5000, timestamp_ms=now), id="over the index interval"),
    ],
)
def test_twin_logs_agree_on_edge_batches(records):
    """Batches the compiled path takes but a random run may not reach: each is appended
    to ready twin logs (one must go through C) and compared."""
    machine = TwinLogs()
    machine.open_logs(config=CONFIGS[-2], seed=1)
    try:
        for i in range(4):  # ready: the first appends of a segment go through Python
            machine.append_plain_batches(count=1, seed=i)
        compiled_before = machine.compiled_appends
        for leader_epoch in (None, 7):
            machine.now_ms += 10
            data = records(machine.now_ms)
            copies = {name: bytearray(data) for name in machine.logs}
            machine._both(lambda log: log.append(copies[log.dir.name], now_ms=machine.now_ms, leader_epoch=leader_epoch))
            assert copies["compiled"] == copies["python"]
            machine.alike()
        assert machine.compiled_appends == compiled_before + 2
    finally:
        machine.teardown()


# ---------------------------------------------------------------------------------------
# The cases left to Python change nothing


def _ready_log(path: Path, config: LogConfig | None = None, appends: int = 3) -> Log:
    """A log whose next plain append would take the compiled path (`assert_ready`)."""
    log = Log.open(path, config or LogConfig(index_interval_bytes=100, segment_index_bytes=4096), now_ms=NOW_MS)
    for i in range(appends):
        log.append(batch(seed=i), now_ms=NOW_MS)
    return log


def assert_ready(log: Log) -> None:
    """The log-wide conditions of the compiled path hold: what is left to Python in a
    test below is left for the reason that test gives."""
    assert not log.closed and not log._pending_deletes
    assert log._roll_bounds is not None and log.active_segment.size_bytes > 0
    assert log.active_segment._max_timestamp is not None


def assert_left_to_python(log: Log, records, now_ms=NOW_MS, leader_epoch=None):
    before = snapshot(log)
    original = bytes(records) if isinstance(records, (bytes, bytearray)) else None
    assert COMPILED(log, records, now_ms, leader_epoch) is None
    assert snapshot(log) == before
    if original is not None:
        assert bytes(records) == original


@needs_extension
def test_a_ready_log_takes_the_compiled_path(tmp_path):
    log = _ready_log(tmp_path / "log")
    assert_ready(log)
    records = batch(seed=9)
    info = COMPILED(log, records, NOW_MS + 1, 4)
    assert info is not None and info.first_offset == 9 and info.last_offset == 11 and info.batch_count == 1
    assert records[:8] == (9).to_bytes(8, "big") and records[12:16] == (4).to_bytes(4, "big")
    log.close()


def _bad(mutate) -> bytearray:
    records = batch()
    mutate(records)
    return records


@needs_extension
@pytest.mark.parametrize(
    "records",
    [
        pytest.param(bytes(batch()), id="read-only buffer"),
        pytest.param(batch() + batch(), id="two batches"),
        pytest.param(batch()[:-1], id="truncated"),
        pytest.param(batch() + b"\0", id="trailing byte"),
        pytest.param(batch(producer_id=3, producer_epoch=0, base_sequence=0), id="producer id"),
        pytest.param(batch(producer_id=0, producer_epoch=0, base_sequence=0), id="producer id 0"),
        pytest.param(_bad(lambda b: b.__setitem__(-1, b[-1] ^ 1)), id="bad crc"),
        pytest.param(_bad(lambda b: b.__setitem__(16, 1)), id="magic 1"),
        pytest.param(_bad(lambda b: b.__setitem__(slice(8, 12), (48).to_bytes(4, "big"))), id="batch_length 48"),
        pytest.param(_bad(lambda b: b.__setitem__(slice(57, 61), (-1).to_bytes(4, "big", signed=True))), id="records_count -1"),
        pytest.param(_bad(lambda b: b.__setitem__(slice(23, 27), (-1).to_bytes(4, "big", signed=True))), id="last_offset_delta -1"),
        pytest.param(_bad(lambda b: b.__setitem__(22, 5)), id="codec 5"),
        pytest.param(bytearray(60), id="shorter than a header"),
        pytest.param(bytearray(), id="empty"),
        pytest.param(memoryview(batch()).cast("B")[::2], id="not contiguous"),
        pytest.param("text", id="not bytes"),
    ],
)
def test_batches_left_to_python(tmp_path, records):
    log = _ready_log(tmp_path / "log")
    assert_ready(log)
    assert_left_to_python(log, records)
    log.close()


@needs_extension
@pytest.mark.parametrize(
    "now_ms, leader_epoch",
    [(None, None), (float(NOW_MS), None), (2**63, None), (NOW_MS, 2**31), (NOW_MS, -(2**31) - 1), (NOW_MS, "1")],
)
def test_arguments_left_to_python(tmp_path, now_ms, leader_epoch):
    log = _ready_log(tmp_path / "log")
    assert_ready(log)
    assert_left_to_python(log, batch(), now_ms, leader_epoch)
    log.close()


@needs_extension
@pytest.mark.parametrize(
    "config, records",
    [
        pytest.param(LogConfig(message_timestamp_type="LogAppendTime"), batch(), id="LogAppendTime stamps the batch"),
        pytest.param(LogConfig(flush_messages=10), batch(), id="the append reaches flush.messages"),
        pytest.param(LogConfig(max_message_bytes=1000), batch(12), id="a batch over max.message.bytes"),
        pytest.param(LogConfig(segment_bytes=1400), batch(), id="the batch would not fit segment.bytes"),
    ],
)
def test_configs_left_to_python(tmp_path, config, records):
    log = _ready_log(tmp_path / "log", config)
    assert_ready(log)
    assert_left_to_python(log, records)
    log.close()


@needs_extension
@pytest.mark.parametrize("crossed", ["max_offset", "index_check_position", "max_timestamp_ms", "max_now_ms"])
def test_crossed_roll_bounds_left_to_python(tmp_path, crossed):
    """Any bound crossed: Python runs the exact roll checks (and maybe rolls)."""
    log = _ready_log(tmp_path / "log")
    assert_ready(log)
    limits = {
        "max_offset": log.log_end_offset + 1,       # the batch's last offset is end + 2
        "index_check_position": log.active_segment.size_bytes,
        "max_timestamp_ms": NOW_MS + 1,             # the batch's max timestamp is NOW_MS + 2
        "max_now_ms": NOW_MS - 1,
    }
    log._roll_bounds = log._roll_bounds._replace(**{crossed: limits[crossed]})
    assert_left_to_python(log, batch())
    log._roll_bounds = log._roll_bounds._replace(**{crossed: limits[crossed] + 1})  # one more: not crossed
    assert COMPILED(log, batch(), NOW_MS, None) is not None
    log.close()


@needs_extension
@pytest.mark.parametrize("full", ["offset index", "time index"])
def test_full_indexes_with_generous_bounds(full):
    """The roll bounds normally send an append near a full index to Python; with bounds
    that do not, the C checks of a full index must still do what the Python ones do."""
    machine = TwinLogs()
    config = LogConfig(segment_bytes=100_000, index_interval_bytes=0, segment_index_bytes=48)  # 6 / 4 entries
    machine.open_logs(config=config, seed=1)
    try:
        for i in range(12):
            machine.now_ms += 0 if full == "offset index" else 1  # a time entry per batch, or none
            for log in machine.logs.values():
                bounds = log._roll_bounds or log.active_segment.roll_bounds(config.max_segment_ms)
                log._roll_bounds = bounds._replace(index_check_position=2**40)
            records = batch(2, 30, timestamp_ms=NOW_MS if full == "offset index" else machine.now_ms, seed=i)
            copies = {name: bytearray(records) for name in machine.logs}
            machine._both(lambda log: log.append(copies[log.dir.name], now_ms=machine.now_ms))
            machine.alike()
        index = machine.logs["python"].active_segment
        assert (index.offset_index if full == "offset index" else index.time_index).is_full()
        assert machine.compiled_appends >= 6
    finally:
        machine.teardown()


@needs_extension
def test_log_states_left_to_python(tmp_path):
    fresh = Log.open(tmp_path / "fresh", LogConfig(), now_ms=NOW_MS)
    assert fresh.active_segment.size_bytes == 0
    fresh._roll_bounds = fresh.active_segment.roll_bounds(fresh.config.max_segment_ms)
    assert_left_to_python(fresh, batch())  # a segment's first batch starts its segment.ms clock
    fresh.close()

    log = _ready_log(tmp_path / "bounds")
    log._roll_bounds = None
    assert_left_to_python(log, batch())  # roll bounds not computed yet
    log.close()

    log = _ready_log(tmp_path / "deleting", LogConfig(file_delete_delay_ms=60_000, index_interval_bytes=100))
    log.roll(now_ms=NOW_MS)
    for i in range(2):
        log.append(batch(seed=5 + i), now_ms=NOW_MS)
    assert log.delete_segments_below(9, now_ms=NOW_MS) == 1
    assert log._pending_deletes
    assert_left_to_python(log, batch())  # deletions pending
    log.close()

    log = _ready_log(tmp_path / "reopened")
    log.close()
    log = Log.open(tmp_path / "reopened", LogConfig(index_interval_bytes=100), now_ms=NOW_MS, had_clean_shutdown=True)
    log.active_segment._max_timestamp = None  # as after a load, before anything asked for it
    log._roll_bounds = log.active_segment.roll_bounds(log.config.max_segment_ms)
    assert_left_to_python(log, batch())  # the segment's max timestamp not read yet
    log.close()

    class MyLog(Log):
        __slots__ = ()

    log = _ready_log(tmp_path / "subclass")
    log.__class__ = MyLog
    assert_left_to_python(log, batch())  # only the exact classes bound
    log.__class__ = Log
    log.close()

    log = _ready_log(tmp_path / "closed")
    log.close()
    assert COMPILED(log, batch(), NOW_MS, None) is None


# ---------------------------------------------------------------------------------------
# A failed write


@pytest.mark.parametrize("path", [pytest.param("compiled", marks=needs_extension), "python"])
def test_a_failed_write_changes_nothing(tmp_path, monkeypatch, path):
    monkeypatch.setattr(log_module, "compiled_append", COMPILED if path == "compiled" else None)
    log = _ready_log(tmp_path / "log")
    segment = log.active_segment
    read_only = os.open(segment.log_path, os.O_RDONLY)
    writable, segment._fd = segment._fd, read_only
    try:
        before = snapshot(log)
        with pytest.raises(OSError):
            log.append(batch(seed=7), now_ms=NOW_MS)
        after = snapshot(log)
        assert after == {**before, "log": after["log"]}  # (Python sets _last_now_ms first)
        assert after["log"][:3] == before["log"][:3]
    finally:
        segment._fd = writable
        os.close(read_only)
    info = log.append(batch(seed=8), now_ms=NOW_MS)  # and the log goes on
    assert info.first_offset == 9
    log.close()
