"""The `kafka_broker` fixture that pylog registers with pytest, used the way a user would."""

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

import pylog


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


def test_pylog_broker_is_the_embedded_broker():
    with pylog.Broker() as broker:
        host, port = broker.bootstrap_servers.rsplit(":", 1)
        assert host == "127.0.0.1" and int(port) > 0
        assert broker.data_dir.exists()
    assert not broker.data_dir.exists()  # a temporary directory is removed on stop
