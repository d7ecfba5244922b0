"""FindCoordinator (key 10): which broker coordinates a consumer group or a transaction.

Kafka hashes the group id (key_type 0) or transactional id (key_type 1) onto a partition
of `__consumer_offsets` / `__transaction_state` and answers that partition's leader, as
the metadata this broker follows says; a partition without a leader gets
COORDINATOR_NOT_AVAILABLE (the client retries). When this broker is still loading that
partition (just elected, or `__consumer_offsets` just created by this very request), the
answer waits for the load, up to 5 s, so the group's next request finds it ready. Transactions have no coordinator in pylog
yet: a transactional id gets this broker. v4+ asks for
several keys at once (`coordinator_keys`) and gets one entry per key. v5 only lets the
client understand TRANSACTION_ABORTABLE (KIP-890), which this broker never answers here.
v6 adds share coordinator keys (key_type 2, "groupId:topicId:partition", KIP-932): before
v6, or malformed, INVALID_REQUEST as in Kafka; a well-formed one COORDINATOR_NOT_AVAILABLE,
since pylog has no share coordinator (Kafka would create `__share_group_state` and answer
its leader). From v4 the entries' error message is empty (Kafka sets none, and the field's
default is ""), but for an unknown key type, which Kafka refuses as it reads the request:
INVALID_REQUEST with that error's default message.

Served even before a client uses groups: librdkafka switches LZ4 compression on only
for brokers that advertise FindCoordinator (its feature map ties LZ4 to this API).
"""

from __future__ import annotations

import asyncio
import logging

from protocol.error_codes import ErrorCode
from protocol.messages import FindCoordinatorResponse

from pylog.coordinator import OFFSETS_TOPIC
from pylog.metadata import parse_kafka_uuid

log = logging.getLogger("pylog.find_coordinator")

GROUP, TRANSACTION, SHARE = 0, 1, 2
SHARE_KEY_VERSION = 6
LOAD_WAIT_S = 5.0


def make_handler(broker):
    async def handle(request, context):
        if request.key_type == GROUP:
            # Kafka creates __consumer_offsets on the first group lookup, before the group's
            # first JoinGroup, so that the first SyncGroup is not slowed by 50 new partitions.
            try:
                await broker.offset_store.ensure_topic()
            except Exception as e:   # answered below: no leader for the group's partition
                log.warning("creating %s failed: %s", OFFSETS_TOPIC, e)
            keys = request.coordinator_keys if context.api_version >= 4 else [request.key]
            await wait_loaded(broker, keys)
        host, port = broker.advertised_address()
        version = context.api_version
        if version >= 4:
            coordinators = [coordinator(broker, key, request.key_type, host, port, version)
                            for key in request.coordinator_keys]
            unknown_key_type = request.key_type not in (GROUP, TRANSACTION, SHARE)
            for entry in coordinators:
                entry.error_message = ErrorCode.INVALID_REQUEST.message if unknown_key_type else ""
            return FindCoordinatorResponse(coordinators=coordinators)
        entry = coordinator(broker, request.key, request.key_type, host, port, version)
        # below v4 Kafka puts the error's name in the message, success included: "NONE"
        message = "NONE" if entry.error_code == ErrorCode.NONE else entry.error_message
        return FindCoordinatorResponse(error_code=entry.error_code, error_message=message,
                                       node_id=entry.node_id, host=entry.host, port=entry.port)

    return handle


def coordinator(broker, key: str, key_type: int, host: str, port: int,
                version: int) -> FindCoordinatorResponse.Coordinator:
    if key_type == SHARE and version >= SHARE_KEY_VERSION and is_share_partition_key(key):
        return FindCoordinatorResponse.Coordinator(key=key, node_id=-1, host="", port=-1,
                                                   error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE)
    if key_type not in (GROUP, TRANSACTION):
        return FindCoordinatorResponse.Coordinator(key=key, node_id=-1, host="", port=-1,
                                                   error_code=ErrorCode.INVALID_REQUEST,
                                                   error_message=ErrorCode.INVALID_REQUEST.message)
    if key_type == GROUP:
        leader = group_coordinator_node(broker, key)
        if leader is None:
            return FindCoordinatorResponse.Coordinator(key=key, node_id=-1, host="", port=-1,
                                                       error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE,
                                                       error_message="The coordinator is not available.")
        node_id, host, port = leader
    return FindCoordinatorResponse.Coordinator(key=key, node_id=node_id if key_type == GROUP else broker.node_id,
                                               host=host, port=port, error_code=ErrorCode.NONE, error_message=None)


def is_share_partition_key(key: str) -> bool:
    """Kafka's SharePartitionKey.validate: "groupId:topicId:partition"."""
    parts = key.split(":")
    if len(parts) != 3 or not parts[0].strip():
        return False
    try:
        parse_kafka_uuid(parts[1])
        int(parts[2])
    except ValueError:
        return False
    return True


async def wait_loaded(broker, group_ids, timeout_s: float = LOAD_WAIT_S) -> None:
    """Wait (bounded) while this broker is loading the `__consumer_offsets` partitions of
    `group_ids`, so that the client's next request finds its group loaded rather than
    COORDINATOR_LOAD_IN_PROGRESS. A partition led elsewhere, or a load that takes longer,
    is answered as it is: clients retry either."""
    from pylog.coordinator.partitions import LoadState   # imported with the coordinator, on first use
    partitions = broker.group_coordinator.partitions
    indexes = {broker.offset_store.partition_for(group_id) for group_id in group_ids}
    deadline = asyncio.get_running_loop().time() + timeout_s
    while any(partitions.state(i) is LoadState.LOADING for i in indexes):
        if asyncio.get_running_loop().time() > deadline:
            return
        await asyncio.sleep(0.005)


def group_coordinator_node(broker, group_id: str) -> tuple[int, str, int] | None:
    """(node id, host, port) of the leader of the group's `__consumer_offsets` partition
    (Kafka's coordinator of that group), or None while it has no leader."""
    topic = broker.metadata.topics.get(OFFSETS_TOPIC)
    if topic is None:
        return None
    image = broker.metadata_image()
    registration = image.topics[topic.topic_id].partitions.get(broker.offset_store.partition_for(group_id))
    if registration is None or registration.leader < 0:
        return None
    if registration.leader == broker.node_id:
        return (broker.node_id, *broker.advertised_address())
    leader = image.brokers.get(registration.leader)
    listener = broker.config.listener_endpoint().listener_name
    endpoint = leader and leader.endpoint_or_first(listener)
    if leader is None or leader.fenced or endpoint is None:
        return None
    return leader.broker_id, endpoint.host, endpoint.port
