"""The fixtures pylog registers with pytest (`kafka_broker`, `kafka_cluster`), `pylog.Broker`, and
`pylog cluster`, used the way a user would."""

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

import pylog
from protocol.messages import MetadataRequest
from tests.pylog.wire import RawClient

METADATA = 3


def test_kafka_broker_fixture_round_trip(kafka_broker):
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap_servers)
    for i in range(10):
        producer.send("fixture-topic", value=b"m%d" % i)
    producer.flush()
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=kafka_broker.bootstrap_servers, auto_offset_reset="earliest",
                             consumer_timeout_ms=5000)
    consumer.assign([TopicPartition("fixture-topic", 0)])
    values = [message.value for _, message in zip(range(10), consumer)]
    consumer.close()
    assert values == [b"m%d" % i for i in range(10)]


def test_factory_applies_broker_configs(kafka_broker_factory):
    broker = kafka_broker_factory(config={"num.partitions": 3})
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
    assert producer.partitions_for("three-partitions") == {0, 1, 2}
    producer.close()


def internal_topic_partitions(bootstrap_servers: str) -> dict[str, int]:
    """Partitions of the two coordinator topics, each created by the Metadata request that
    names it (as a client's first FindCoordinator would create it)."""
    client = RawClient(bootstrap_servers.split(",")[0])
    try:
        topics = client.request(METADATA, 12, MetadataRequest(topics=[
            MetadataRequest.MetadataRequestTopic(name=name) for name in ("__consumer_offsets", "__transaction_state")
        ], allow_auto_topic_creation=True)).topics
    finally:
        client.close()
    assert all(topic.error_code == 0 for topic in topics), topics
    return {topic.name: len(topic.partitions) for topic in topics}


def test_a_test_broker_has_five_partitions_per_coordinator_topic(kafka_broker):
    assert internal_topic_partitions(kafka_broker.bootstrap_servers) == {
        "__consumer_offsets": 5, "__transaction_state": 5}


def test_a_config_goes_over_the_test_defaults(kafka_broker_factory):
    broker = kafka_broker_factory(config={"offsets.topic.num.partitions": 2})
    assert internal_topic_partitions(broker.bootstrap_servers) == {
        "__consumer_offsets": 2, "__transaction_state": 5}


def test_without_test_defaults_a_broker_has_kafkas_fifty(kafka_broker_factory):
    broker = kafka_broker_factory(test_defaults={})
    assert internal_topic_partitions(broker.bootstrap_servers) == {
        "__consumer_offsets": 50, "__transaction_state": 50}


def test_pylog_broker_is_the_embedded_broker():
    with pylog.Broker() as broker:
        host, port = broker.bootstrap_servers.rsplit(":", 1)
        assert host == "127.0.0.1" and int(port) > 0
        assert broker.data_dir.exists()
    assert not broker.data_dir.exists()  # a temporary directory is removed on stop


def test_kafka_cluster_fixture_is_three_brokers_and_a_controller(kafka_cluster):
    producer = KafkaProducer(bootstrap_servers=kafka_cluster.bootstrap_servers, acks="all")
    metadata = producer.partitions_for("on-a-cluster")   # auto-created: one partition, RF 1
    producer.send("on-a-cluster", value=b"x").get(30)
    producer.close()
    assert metadata == {0}
    assert sorted(kafka_cluster.running_brokers()) == [1, 2, 3]
    assert kafka_cluster.controller.running
    assert kafka_cluster.leader("on-a-cluster", 0) in (1, 2, 3)
    assert internal_topic_partitions(kafka_cluster.bootstrap_servers) == {
        "__consumer_offsets": 5, "__transaction_state": 5}


def test_pylog_cluster_command_prints_its_bootstrap_list_and_stops_on_sigterm(tmp_path):
    import signal
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-m", "pylog", "cluster", "--brokers", "2", "--data-dir",
                                str(tmp_path / "nodes")], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("pylog cluster ready: controller 127.0.0.1:"), line
        bootstrap = line.split("bootstrap servers ", 1)[1].strip()
        assert len(bootstrap.split(",")) == 2
        producer = KafkaProducer(bootstrap_servers=bootstrap)
        producer.send("cli-cluster", value=b"y").get(30)
        producer.close()
        assert sorted(p.name for p in (tmp_path / "nodes").iterdir() if p.is_dir()) == [
            "broker-1", "broker-2", "controller"]
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
