"""The fsync a segment roll leaves pending runs on a thread, not on the broker's event
loop, and the recovery point follows once it is done (pylog/log_flusher.py)."""

from __future__ import annotations

import os
import threading
import time

from protocol.records import build_batch
from pylog.testing import EmbeddedBroker
from tests.integration.support import WireClient

SEGMENT_BYTES = 1024 * 1024


def test_a_roll_is_flushed_off_the_event_loop_and_then_moves_the_recovery_point(tmp_path, monkeypatch):
    fsyncs: list[tuple[str, str]] = []  # (thread name, file name)
    real_fsync = os.fsync

    def recording_fsync(fd):
        fsyncs.append((threading.current_thread().name, os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))))
        real_fsync(fd)

    with EmbeddedBroker(tmp_path) as embedded:
        embedded.call(lambda: embedded.broker.create_topic("rolled", 1, {"segment.bytes": str(SEGMENT_BYTES)}))
        partition_log = embedded.call(lambda: embedded.broker.partition("rolled", 0).log)
        monkeypatch.setattr(os, "fsync", recording_fsync)
        batch = build_batch([(None, b"v" * 5000)], timestamp_ms=1_700_000_000_000)
        with WireClient(embedded.bootstrap_servers) as client:
            while embedded.call(lambda: partition_log.num_segments) < 2:
                assert client.produce("rolled", 0, batch, acks=1).error_code == 0
        new_base = embedded.call(lambda: partition_log.active_segment.base_offset)
        deadline = time.monotonic() + 10
        while embedded.call(lambda: partition_log.recovery_point) != new_base:
            assert time.monotonic() < deadline, "the pending flush never moved the recovery point"
            time.sleep(0.01)
        monkeypatch.undo()
        assert embedded.call(lambda: partition_log.pending_flush_offset) is None
    on_the_loop = [name for thread, name in fsyncs if thread == "pylog-broker"]
    assert on_the_loop == []
    flushed = {name for thread, name in fsyncs if thread != "pylog-broker"}
    assert {"00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex",
            f"{new_base:020d}.snapshot", "rolled-0"} <= flushed
