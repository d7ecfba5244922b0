"""`replication-offset-checkpoint` (pylog/high_watermarks.py): created empty at start, the
high watermark of every partition written every `replica.high.watermark.checkpoint.interval.ms`
and at a clean shutdown, in Kafka's checkpoint format."""

from __future__ import annotations

import time

from protocol.records import build_batch
from pylog.testing import EmbeddedBroker
from storage.log_validator import AppendOrigin
from tests.integration.support import wait_until

FILE = "replication-offset-checkpoint"


def append(broker: EmbeddedBroker, topic: str, index: int, count: int) -> None:
    def run():
        now = int(time.time() * 1000)
        partition = broker.broker.partition(topic, index)
        for i in range(count):
            partition.append(bytearray(build_batch([(b"k", b"v%d" % i, (), now)], timestamp_ms=now)), now,
                             AppendOrigin.CLIENT)
    broker.call(run)


def test_created_empty_written_periodically_and_at_shutdown(tmp_path):
    broker = EmbeddedBroker(tmp_path, config={"replica.high.watermark.checkpoint.interval.ms": 200}).start()
    try:
        path = tmp_path / FILE
        assert path.read_bytes() == b""      # as Kafka's checkpoint files are created
        broker.call(lambda: broker.broker.create_topic("orders", 2))
        append(broker, "orders", 0, 3)
        append(broker, "orders", 1, 5)
        # the housekeeping tick is 1 s: the next one after 200 ms writes the file
        wait_until(lambda: path.read_text() == "0\n2\norders 0 3\norders 1 5\n", 10, "a periodic checkpoint")
        append(broker, "orders", 1, 2)
    finally:
        broker.stop()
    assert (tmp_path / FILE).read_text() == "0\n2\norders 0 3\norders 1 7\n"


def test_the_default_interval_is_kafkas(tmp_path):
    with EmbeddedBroker(tmp_path) as broker:
        assert broker.broker.config.replica_high_watermark_checkpoint_interval_ms == 5000
