"""InitProducerId (key 22): give an idempotent producer its id and epoch.

kafka-python 3.x producers are idempotent by default, so this is part of the basic set.
A new producer gets a fresh id at epoch 0. A producer that sends its current id and
epoch (v3+, after a sequence error it cannot resolve, KIP-360) gets the same id with
the epoch bumped, which resets its sequences; at the largest epoch it gets a new id.

Transactional producers (a non-null transactional id) need the transaction
coordinator, which pylog does not have yet: they get COORDINATOR_NOT_AVAILABLE.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import InitProducerIdResponse

MAX_EPOCH = 32767


def make_handler(broker):
    async def handle(request, context):
        if request.transactional_id is not None:
            return InitProducerIdResponse(error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if request.producer_id >= 0 and 0 <= request.producer_epoch < MAX_EPOCH - 1:
            return InitProducerIdResponse(producer_id=request.producer_id,
                                          producer_epoch=request.producer_epoch + 1)
        return InitProducerIdResponse(producer_id=broker.metadata.next_producer_id(), producer_epoch=0)

    return handle
