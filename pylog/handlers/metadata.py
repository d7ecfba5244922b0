"""Metadata (key 3): the brokers, the controller, the cluster id, and topics with partitions.

Versions: v0 asks for all topics with an empty list; v1+ with null (an empty list means
none). Producers ask for auto-creation (`allow_auto_topic_creation`, v4+; always on
before v4): when `auto.create.topics.enable` is set, an unknown topic is created with
`num.partitions` and returned at once. One node leads every partition, at leader
epoch 0, and is the only replica and the only in-sync replica.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import MetadataResponse
from pylog.metadata import TopicInfo, topic_name_problem


def make_handler(broker):
    async def handle(request, context) -> MetadataResponse:
        version = context.api_version
        if request.topics is None or (version == 0 and not request.topics):
            names = sorted(broker.metadata.topics)
            may_create = False
        else:
            names = [t.name for t in request.topics]
            may_create = request.allow_auto_topic_creation if version >= 4 else True
        topics = []
        for name in names:
            topic = broker.metadata.topics.get(name)
            if topic is None and may_create:
                topic = broker.maybe_auto_create(name)
            if topic is None:
                code = (ErrorCode.INVALID_TOPIC_EXCEPTION if name is None or topic_name_problem(name)
                        else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                topics.append(MetadataResponse.MetadataResponseTopic(error_code=code, name=name))
            else:
                topics.append(describe_topic(broker, topic))
        host, port = broker.advertised_address()
        return MetadataResponse(
            brokers=[MetadataResponse.MetadataResponseBroker(node_id=broker.node_id, host=host, port=port)],
            cluster_id=broker.cluster_id,
            controller_id=broker.node_id,
            topics=topics,
        )

    return handle


def describe_topic(broker, topic: TopicInfo) -> MetadataResponse.MetadataResponseTopic:
    node = [broker.node_id]
    partitions = []
    for index in range(topic.num_partitions):
        partition = broker.partition(topic.name, index)
        partitions.append(MetadataResponse.MetadataResponsePartition(
            partition_index=index, leader_id=broker.node_id,
            leader_epoch=partition.leader_epoch if partition else 0,
            replica_nodes=list(node), isr_nodes=list(node), offline_replicas=[]))
    return MetadataResponse.MetadataResponseTopic(
        name=topic.name, topic_id=topic.topic_id, is_internal=topic.is_internal, partitions=partitions)
