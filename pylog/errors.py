"""The one place where storage and protocol exceptions become Kafka error codes.

Handlers catch `Exception` subclasses from the layers below and call `error_code_for`;
nothing else in the broker decides which code an exception means.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from storage import errors as storage_errors


class BrokerError(Exception):
    """A request-level failure that carries its Kafka error code."""

    def __init__(self, code: ErrorCode, message: str = ""):
        super().__init__(message or code.message)
        self.code = code


def error_code_for(exc: BaseException) -> ErrorCode:
    if isinstance(exc, BrokerError):
        return exc.code
    if isinstance(exc, storage_errors.CorruptBatch):
        return ErrorCode.CORRUPT_MESSAGE
    if isinstance(exc, storage_errors.InvalidBatch):
        # Also magic 0/1 message sets: Produce v3+ may carry only magic-2 batches, and Kafka
        # answers those with INVALID_RECORD too.
        return ErrorCode.INVALID_RECORD
    if isinstance(exc, storage_errors.RecordTooLarge):
        return ErrorCode.MESSAGE_TOO_LARGE
    if isinstance(exc, storage_errors.RecordBatchTooLarge):
        return ErrorCode.RECORD_LIST_TOO_LARGE
    if isinstance(exc, storage_errors.OffsetOutOfRange):
        return ErrorCode.OFFSET_OUT_OF_RANGE
    if isinstance(exc, storage_errors.InvalidConfig):
        return ErrorCode.INVALID_CONFIG
    if isinstance(exc, storage_errors.InvalidProducerEpoch):
        return ErrorCode.INVALID_PRODUCER_EPOCH
    if isinstance(exc, storage_errors.OutOfOrderSequence):
        return ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    if isinstance(exc, storage_errors.InvalidTxnState):
        return ErrorCode.INVALID_TXN_STATE
    return ErrorCode.UNKNOWN_SERVER_ERROR
