"""InitProducerId (key 22): give an idempotent producer its id and epoch.

kafka-python 3.x producers are idempotent by default, so this is part of the basic set.
Without a transactional id every request gets a new producer id at epoch 0
(`ProducerIdManager`, never an id handed out before), also one that carries its current
id and epoch (v3+, after a sequence error it cannot resolve, KIP-360): such a producer
has no state on the coordinator to bump an epoch in, so Kafka's coordinator hands it a
fresh id too. The id and epoch must be both -1 or both set: one without the other is
INVALID_REQUEST. v5 only lets a transactional client understand TRANSACTION_ABORTABLE
(KIP-890): the idempotent answer is v4's.

Transactional producers (a non-null transactional id) need the transaction
coordinator, which pylog does not have yet: they get COORDINATOR_NOT_AVAILABLE.
"""

from __future__ import annotations

import logging

from protocol.error_codes import ErrorCode
from protocol.messages import InitProducerIdResponse
from pylog.producer_ids import ProducerIdsUnavailable

NO_PRODUCER_ID, NO_PRODUCER_EPOCH = -1, -1

log = logging.getLogger("pylog.init_producer_id")


def make_handler(broker):
    async def handle(request, context):
        if (request.producer_id == NO_PRODUCER_ID) != (request.producer_epoch == NO_PRODUCER_EPOCH):
            return failed(ErrorCode.INVALID_REQUEST)
        if request.transactional_id is not None:
            return failed(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        try:
            producer_id = await broker.producer_ids.generate()
        except ProducerIdsUnavailable as exc:
            # Kafka's broker answers so while its next block is not there yet; clients retry
            log.warning("no producer id to hand out yet: %s", exc)
            return failed(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
        return InitProducerIdResponse(producer_id=producer_id, producer_epoch=0)

    return handle


def failed(code: int) -> InitProducerIdResponse:
    return InitProducerIdResponse(error_code=code, producer_id=NO_PRODUCER_ID, producer_epoch=NO_PRODUCER_EPOCH)
