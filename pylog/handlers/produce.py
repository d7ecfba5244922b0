"""Produce (key 0): append record batches to partitions.

Per partition: the batches are validated by header (magic 2, lengths, CRC-32C, counts;
storage does this before writing), stamped with offsets and the leader epoch in place,
and written as they came. No record is decoded, except on compacted topics, where every
record must have a key (Kafka refuses keyless records there with INVALID_RECORD).

acks: 0 gets no response at all; 1 and -1 (all) are answered once the append is done:
with one replica the high watermark moves at once. Other values: INVALID_REQUIRED_ACKS.

An idempotent producer's retry of a batch the log already holds is a duplicate:
storage recognises it from the producer's last five batches and pylog answers with the
offset the batch got the first time, writing nothing.
"""

from __future__ import annotations

import logging

from protocol.error_codes import ErrorCode
from protocol.errors import ProtocolError
from protocol.messages import ProduceResponse
from protocol.primitives import INT32
from protocol.records import LOG_OVERHEAD, iter_batch_headers, iter_records
from pylog.clock import now_ms
from pylog.errors import BrokerError, error_code_for

log = logging.getLogger("pylog.produce")

PartitionResponse = ProduceResponse.PartitionProduceResponse


def make_handler(broker):
    async def handle(request, context):
        acks = request.acks
        now = now_ms()
        responses = []
        for topic_data in request.topic_data:
            partition_responses = []
            for data in topic_data.partition_data:
                if acks not in (0, 1, -1):
                    code = ErrorCode.INVALID_REQUIRED_ACKS
                    partition_responses.append(PartitionResponse(index=data.index, error_code=code))
                    continue
                partition_responses.append(append_partition(broker, topic_data.name, data, request, now))
            responses.append(ProduceResponse.TopicProduceResponse(name=topic_data.name,
                                                                  partition_responses=partition_responses))
        if acks == 0:
            return None
        return ProduceResponse(responses=responses)

    return handle


def append_partition(broker, topic: str, data, request, now: int) -> PartitionResponse:
    partition = broker.partition(topic, data.index)
    if partition is None:
        if topic not in broker.metadata.topics and broker.maybe_auto_create(topic) is not None:
            partition = broker.partition(topic, data.index)
        if partition is None:
            return PartitionResponse(index=data.index, error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    records = data.records
    if records is None or len(records) == 0:
        return PartitionResponse(index=data.index, error_code=ErrorCode.INVALID_RECORD,
                                 error_message="no record batches in the request")
    if request.transactional_id is not None:
        return PartitionResponse(index=data.index, error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                                 error_message="transactions are not supported yet")
    if len(records) >= LOG_OVERHEAD and INT32.unpack_from(records, 8)[0] + LOG_OVERHEAD < len(records):
        # Kafka: "Produce requests with version 3 are only allowed to contain exactly one record batch"
        return PartitionResponse(index=data.index, error_code=ErrorCode.INVALID_RECORD,
                                 error_message="a produce request carries exactly one record batch per partition")
    try:
        if partition.config.compact:
            check_keys(records)
        info = partition.append(records, now)
    except Exception as exc:
        code = error_code_for(exc)
        if code == ErrorCode.UNKNOWN_SERVER_ERROR:
            log.exception("append to %s-%d failed", topic, data.index)
        return PartitionResponse(index=data.index, error_code=code, error_message=str(exc),
                                 log_start_offset=partition.log_start_offset)
    # A retried batch the log already holds (idempotent producer) comes back as a duplicate
    # with the offsets it got the first time: the same answer, nothing written twice.
    return PartitionResponse(index=data.index, error_code=ErrorCode.NONE, base_offset=info.first_offset,
                             log_append_time_ms=info.log_append_time_ms, log_start_offset=info.log_start_offset)


def check_keys(records) -> None:
    """Compacted topics keep the last record per key, so every record needs one."""
    try:
        for position, _ in iter_batch_headers(records):
            for record in iter_records(records, position):
                if record.key is None:
                    raise BrokerError(ErrorCode.INVALID_RECORD,
                                      "compacted topics refuse records without a key")
    except ProtocolError:
        pass  # the append's own validation reports the malformed batch
