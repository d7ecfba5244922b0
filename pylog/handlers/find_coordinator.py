"""FindCoordinator (key 10): which broker coordinates a consumer group or a transaction.

Kafka hashes the group id (key_type 0) or transactional id (key_type 1) onto a partition
of `__consumer_offsets` / `__transaction_state` and answers that partition's leader. A
single pylog node leads every partition, so the answer is always this node. v4+ asks for
several keys at once (`coordinator_keys`) and gets one entry per key.

Served even before a client uses groups: librdkafka switches LZ4 compression on only
for brokers that advertise FindCoordinator (its feature map ties LZ4 to this API).
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import FindCoordinatorResponse

GROUP, TRANSACTION = 0, 1


def make_handler(broker):
    async def handle(request, context):
        if request.key_type == GROUP:
            # Kafka creates __consumer_offsets on the first group lookup, before the group's
            # first JoinGroup, so that the first SyncGroup is not slowed by 50 new partitions.
            broker.offset_store.ensure_topic()
        host, port = broker.advertised_address()
        if context.api_version >= 4:
            coordinators = [coordinator(broker, key, request.key_type, host, port) for key in request.coordinator_keys]
            return FindCoordinatorResponse(coordinators=coordinators)
        entry = coordinator(broker, request.key, request.key_type, host, port)
        # below v4 Kafka puts the error's name in the message, success included: "NONE"
        message = "NONE" if entry.error_code == ErrorCode.NONE else entry.error_message
        return FindCoordinatorResponse(error_code=entry.error_code, error_message=message,
                                       node_id=entry.node_id, host=entry.host, port=entry.port)

    return handle


def coordinator(broker, key: str, key_type: int, host: str, port: int) -> FindCoordinatorResponse.Coordinator:
    if key_type not in (GROUP, TRANSACTION):
        return FindCoordinatorResponse.Coordinator(key=key, node_id=-1, host="", port=-1,
                                                   error_code=ErrorCode.INVALID_REQUEST,
                                                   error_message=f"unknown coordinator key type {key_type}")
    return FindCoordinatorResponse.Coordinator(key=key, node_id=broker.node_id, host=host, port=port,
                                               error_code=ErrorCode.NONE, error_message=None)
