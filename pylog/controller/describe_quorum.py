"""DescribeQuorum (key 55): the state of the KRaft quorum that keeps `__cluster_metadata`,
as its leader knows it (Kafka's `KafkaRaftClient.handleDescribeQuorumRequest`, with
`LeaderState`'s replica states). `kafka-metadata-quorum.sh describe --status` and
`--replication` print it; a broker forwards the request to the controller.

The quorum here is one voter, this controller, which is also the leader:

    leader_id, leader_epoch    this controller and the Raft epoch of its log
    high_watermark             the log end offset (a quorum of one commits what it fsynced)
    current_voters             this controller: its log end offset; its fetch and caught-up
                               times are the time of the answer (a leader is always caught up)
    observers                  every replica id >= 0 that fetched the log within the last five
                               minutes (a broker following the metadata: pylog/metadata_follower.py
                               sends its node id), with the offset it last fetched from and
                               its fetch and caught-up times (pylog/controller/quorum_observers.py)
    nodes (v2+)                the voter's endpoints, from its controller registration

The observers' states and their order: pylog/controller/quorum_observers.py.

A request must name exactly `__cluster_metadata` partition 0 and nothing else; any other
request gets UNKNOWN_TOPIC_OR_PARTITION for every partition it names (Kafka's
`RaftUtil.hasValidTopicPartition`).

The directory ids are the zero Uuid: the voters are static (`kraft.version` 0) and a pylog
broker's Fetch (v12) carries none. Runs on the controller's event loop.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeQuorumResponse
from protocol.metadata_log import METADATA_PARTITION, METADATA_TOPIC
from pylog.controller.quorum_observers import QuorumObservers

NODES_VERSION = 2                       # the first version with the voters' endpoints
NOT_HOSTED_MESSAGE = "This server does not host this topic-partition."


def describe_quorum(request, version: int, *, leader_id: int, leader_epoch: int, log_end_offset: int,
                    high_watermark: int, observers: QuorumObservers, endpoints, now_ms: int) -> DescribeQuorumResponse:
    """The answer to `request` (see the module docstring); `endpoints` are the voter's
    (name, host, port, ...) tuples."""
    topics = request.topics
    if not (len(topics) == 1 and topics[0].topic_name == METADATA_TOPIC and len(topics[0].partitions) == 1
            and topics[0].partitions[0].partition_index == METADATA_PARTITION):
        return DescribeQuorumResponse(topics=[DescribeQuorumResponse.TopicData(topic_name=t.topic_name, partitions=[
            DescribeQuorumResponse.PartitionData(partition_index=p.partition_index,
                                                 error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                                 error_message=NOT_HOSTED_MESSAGE)
            for p in t.partitions]) for t in topics])
    State = DescribeQuorumResponse.ReplicaState
    voter = State(replica_id=leader_id, log_end_offset=log_end_offset, last_fetch_timestamp=now_ms,
                  last_caught_up_timestamp=now_ms)
    partition = DescribeQuorumResponse.PartitionData(
        partition_index=METADATA_PARTITION, leader_id=leader_id, leader_epoch=leader_epoch,
        high_watermark=high_watermark, current_voters=[voter], observers=[
            State(replica_id=replica_id, log_end_offset=state.end_offset, last_fetch_timestamp=state.last_fetch_ms,
                  last_caught_up_timestamp=state.last_caught_up_ms)
            for replica_id, state in observers.active(now_ms)])
    response = DescribeQuorumResponse(topics=[DescribeQuorumResponse.TopicData(topic_name=METADATA_TOPIC,
                                                                               partitions=[partition])])
    if version >= NODES_VERSION:
        response.nodes = [DescribeQuorumResponse.Node(node_id=leader_id, listeners=[
            DescribeQuorumResponse.Listener(name=name, host=host, port=port) for name, host, port, *_ in endpoints])]
    return response
