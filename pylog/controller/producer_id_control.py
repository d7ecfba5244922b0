"""The controller's producer-id rule: AllocateProducerIds (key 67, v0) hands a broker the
next block of producer ids (Kafka's `ProducerIdControlManager`).

    request   broker_id, broker_epoch
    record    ProducerIdsRecord(broker_id, broker_epoch, next_producer_id = the block's end) v0
    response  producer_id_start = the image's next_producer_id, producer_id_len = 1000

Rules: the broker must be registered with exactly that epoch, else STALE_BROKER_EPOCH
(Kafka's messages, in the log: the response has no message field); a block whose end would
pass 2^63-1 is UNKNOWN_SERVER_ERROR. Blocks never overlap because each one starts where the
image's `next_producer_id` (the last committed ProducerIdsRecord) says and the controller
commits one request at a time. The broker serves ids from its block and asks again when it
runs out.

Pure: a function of the image and the request; the QuorumController (one event loop owns the
image) serializes calls and commits the record before answering.
"""

from __future__ import annotations

import logging

from protocol.error_codes import ErrorCode
from protocol.messages import AllocateProducerIdsResponse
from protocol.metadata import ProducerIdsRecord

from pylog.controller.results import ControllerResult
from pylog.metadata_image import MetadataImage

log = logging.getLogger("pylog.controller.producer_ids")

PRODUCER_ID_BLOCK_SIZE = 1000
PRODUCER_IDS_RECORD_VERSION = 0
LONG_MAX = (1 << 63) - 1


def stale_broker_epoch_problem(image: MetadataImage, broker_id: int, broker_epoch: int) -> str | None:
    """Why (broker_id, broker_epoch) is not a registered broker's current epoch (Kafka's
    `checkBrokerEpoch` message), or None."""
    registration = image.brokers.get(broker_id)
    if registration is None:
        return f"No broker registration found for broker id {broker_id}"
    if registration.epoch != broker_epoch:
        return f"Expected broker epoch {registration.epoch}, but got broker epoch {broker_epoch}"
    return None


def allocate_producer_ids(image: MetadataImage, request) -> ControllerResult:
    """AllocateProducerIds (v0): the next block for `request.broker_id`."""
    problem = stale_broker_epoch_problem(image, request.broker_id, request.broker_epoch)
    if problem is not None:
        log.info("AllocateProducerIds from broker %d refused: %s", request.broker_id, problem)
        return ControllerResult(AllocateProducerIdsResponse(error_code=ErrorCode.STALE_BROKER_EPOCH))
    start = image.next_producer_id
    if start > LONG_MAX - PRODUCER_ID_BLOCK_SIZE:
        log.error("AllocateProducerIds: exhausted all producer ids (next block at %d)", start)
        return ControllerResult(AllocateProducerIdsResponse(error_code=ErrorCode.UNKNOWN_SERVER_ERROR))
    record = ProducerIdsRecord(broker_id=request.broker_id, broker_epoch=request.broker_epoch,
                               next_producer_id=start + PRODUCER_ID_BLOCK_SIZE)
    return ControllerResult(
        AllocateProducerIdsResponse(error_code=ErrorCode.NONE, producer_id_start=start,
                                    producer_id_len=PRODUCER_ID_BLOCK_SIZE),
        [(record, PRODUCER_IDS_RECORD_VERSION)])
