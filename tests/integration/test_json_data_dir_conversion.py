"""A data directory of pylog's single-node era (`pylog-topics.json`, `pylog-producer-ids`, no
metadata log) is converted at its first start: nothing lost.

The directory is made the way that era left it: topic logs with records, and beside them the
JSON file naming each topic's id, partition count, config overrides and leader epochs, and the
producer-id file with the next block. The first start writes those facts as metadata records
(pylog/controller/json_conversion.py), keeps the JSON file as `pylog-topics.json.converted`,
and serves the topics as they were.
"""

from __future__ import annotations

import json
import shutil

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from storage.checkpoint import write_checkpoint_file

from pylog.testing import EmbeddedBroker
from tests.integration.support import WireClient


def test_a_single_node_era_data_dir_is_converted_at_its_first_start(tmp_path):
    data = tmp_path / "data"
    with EmbeddedBroker(data) as embedded:
        topic = embedded.call(lambda: embedded.broker.create_topic("kept", 2, {"retention.ms": "86400000"}))
        producer = KafkaProducer(bootstrap_servers=embedded.bootstrap_servers)
        for i in range(20):
            producer.send("kept", value=b"v%d" % i, partition=i % 2).get(10)
        producer.close()
        epochs = embedded.call(lambda: [embedded.broker.partition("kept", p).leader_epoch for p in range(2)])
    # what the single-node era had instead of the metadata log
    shutil.rmtree(data / "__cluster_metadata-0")
    (data / "bootstrap.checkpoint").unlink()
    (data / "pylog-topics.json").write_text(json.dumps({"broker_epoch": 3, "topics": {"kept": {
        "topic_id": str(topic.topic_id), "partitions": 2, "configs": {"retention.ms": "86400000"},
        "leader_epochs": epochs}}}, indent=1, sort_keys=True) + "\n")
    write_checkpoint_file(data / "pylog-producer-ids", 0, ["5000"])

    with EmbeddedBroker(data) as embedded:
        converted = embedded.call(lambda: embedded.broker.metadata.topics["kept"])
        assert (converted.topic_id, converted.num_partitions, converted.configs) == (
            topic.topic_id, 2, {"retention.ms": "86400000"})
        assert embedded.call(lambda: embedded.broker.partition("kept", 0).log.config.retention_ms) == 86_400_000
        now = embedded.call(lambda: [embedded.broker.partition("kept", p).leader_epoch for p in range(2)])
        assert all(after >= before for after, before in zip(now, epochs))
        consumer = KafkaConsumer(bootstrap_servers=embedded.bootstrap_servers, auto_offset_reset="earliest",
                                 consumer_timeout_ms=5000)
        consumer.assign([TopicPartition("kept", 0), TopicPartition("kept", 1)])
        values = sorted(message.value for _, message in zip(range(20), consumer))
        consumer.close()
        assert values == sorted(b"v%d" % i for i in range(20))
        with WireClient(embedded.bootstrap_servers) as wire:
            assert wire.init_producer_id(version=4)[0] >= 5000   # past every id the old era handed out
    assert not (data / "pylog-topics.json").exists()
    assert json.loads((data / "pylog-topics.json.converted").read_text())["topics"]["kept"]["partitions"] == 2
    # converted once: the next start reads the metadata log
    with EmbeddedBroker(data) as embedded:
        assert embedded.call(lambda: embedded.broker.metadata.topics["kept"].topic_id) == topic.topic_id
