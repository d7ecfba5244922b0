"""Kafka 4.1.1's own tools read the metadata log of a running pylog cluster, and find in it what
pylog's Metadata answers.

A `pylog.Cluster` of three brokers gets a topic (RF 3, a config override), loses the leader of
partition 0 (SIGKILL: the controller fences it and elects another) and gets it back. Then:

- `kafka-dump-log.sh --cluster-metadata-decoder` decodes every batch of the controller's
  `__cluster_metadata-0` segment, each valid;
- `kafka-metadata-shell.sh` on the same segment prints, for every broker, topic and partition,
  what a live broker's Metadata response says: the registered brokers and their ports, each
  partition's leader, ISR, replicas and leader epoch, and the topic's config override.
"""

from __future__ import annotations

import re

from protocol.messages import MetadataRequest
from pylog.cluster import Cluster
from tests.compat.test_kafka_reads_metadata_log import shell
from tests.integration.cluster_support import create_topic, wait_full_isr
from tests.pylog.wire import RawClient


def metadata(cluster, topic: str):
    node_id = cluster.running_brokers()[0]
    client = RawClient(f"127.0.0.1:{cluster.brokers[node_id].port}")
    try:
        return client.request(3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)],
                                                     allow_auto_topic_creation=False))
    finally:
        client.close()


def test_kafka_tools_read_what_pylogs_metadata_reports(tmp_path, kafka_tools):
    with Cluster(brokers=3, data_dir=tmp_path / "cluster") as cluster:
        create_topic(cluster, "orders", 3, 3, {"retention.ms": "86400000"})
        leader = cluster.leader("orders", 0)
        cluster.kill(leader)
        assert cluster.leader("orders", 0) != leader
        cluster.restart(leader)
        wait_full_isr(cluster, "orders", 3, 3)
        answer = metadata(cluster, "orders")
        segment = tmp_path / "cluster" / "controller" / "__cluster_metadata-0" / "00000000000000000000.log"

        dump = kafka_tools.run("kafka-dump-log.sh", "--cluster-metadata-decoder", "--files", str(segment)).check()
        batches = [line for line in dump.lines if line.startswith("baseOffset:")]
        assert batches and all("isvalid: true" in line for line in batches)
        assert any("PARTITION_CHANGE_RECORD" in line for line in dump.lines)   # the failover's

        brokers = shell(kafka_tools, segment, "tree", "/image/cluster", loaded="BrokerRegistration")
        for broker in answer.brokers:
            assert f"BrokerRegistration(id={broker.node_id}, " in brokers
            assert f"port={broker.port}" in brokers
        (topic,) = answer.topics
        for partition in topic.partitions:
            text = shell(kafka_tools, segment, "cat", f"/image/topics/byName/orders/{partition.partition_index}",
                         loaded="PartitionRegistration")
            found = dict(re.findall(r"(replicas|isr|leader|leaderEpoch)=(\[[^\]]*\]|-?\d+)", text))
            assert found["leader"] == str(partition.leader_id), text
            assert found["leaderEpoch"] == str(partition.leader_epoch), text
            assert found["isr"] == "[" + ", ".join(map(str, partition.isr_nodes)) + "]", text
            assert found["replicas"] == "[" + ", ".join(map(str, partition.replica_nodes)) + "]", text
        assert any(p.leader_epoch > 0 for p in topic.partitions)   # the failover moved an epoch
        configs = shell(kafka_tools, segment, "tree", "/image/configs", loaded="86400000").split()
        assert configs[configs.index("TOPIC:orders:") + 1:][:2] == ["retention.ms:", "86400000"]
