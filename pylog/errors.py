"""The one place where storage and protocol exceptions become Kafka error codes.

Handlers catch `Exception` subclasses from the layers below and call `error_code_for`;
nothing else in the broker decides which code an exception means.
"""

from __future__ import annotations

from protocol import errors as protocol_errors
from protocol.error_codes import ErrorCode
from storage import errors as storage_errors


def api_error_message(code: ErrorCode, text: str | None) -> str | None:
    """The message Kafka's `ApiError.fromThrowable` keeps of an exception's text: none for
    UNKNOWN_SERVER_ERROR or for a text that is the code's own default."""
    if code == ErrorCode.UNKNOWN_SERVER_ERROR or text == code.message:
        return None
    return text


class BrokerError(Exception):
    """A request-level failure that carries its Kafka error code."""

    def __init__(self, code: ErrorCode, message: str | None = ""):
        super().__init__(message or code.message)
        self.code = code
        # what an answer's error_message carries: the code's default text when none is given,
        # None where Kafka's answer has no message
        self.message = code.message if message == "" else message


# Checked in order: a subclass comes before its base class.
_CODES: tuple[tuple[type[BaseException], ErrorCode], ...] = (
    (storage_errors.InvalidTimestamp, ErrorCode.INVALID_TIMESTAMP),
    (storage_errors.InvalidRecords, ErrorCode.INVALID_RECORD),
    (storage_errors.CorruptBatch, ErrorCode.CORRUPT_MESSAGE),
    # also magic 0/1 message sets: Produce v3+ carries only magic-2 batches, and Kafka
    # answers the others with INVALID_RECORD too
    (storage_errors.InvalidBatch, ErrorCode.INVALID_RECORD),
    (storage_errors.RecordTooLarge, ErrorCode.MESSAGE_TOO_LARGE),
    (storage_errors.RecordBatchTooLarge, ErrorCode.RECORD_LIST_TOO_LARGE),
    (storage_errors.OffsetOutOfRange, ErrorCode.OFFSET_OUT_OF_RANGE),
    (storage_errors.InvalidConfig, ErrorCode.INVALID_CONFIG),
    (storage_errors.InvalidProducerEpoch, ErrorCode.INVALID_PRODUCER_EPOCH),
    (storage_errors.OutOfOrderSequence, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER),
    (storage_errors.InvalidTxnState, ErrorCode.INVALID_TXN_STATE),
    (storage_errors.UnsupportedCompressionType, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE),
    # Kafka's own answer to compressed data it cannot read back (see storage/errors.py)
    (storage_errors.UnreadableBatch, ErrorCode.UNKNOWN_SERVER_ERROR),
    # a stored batch whose records cannot be read whole (Kafka's CorruptRecordException and
    # InvalidRecordException): its CRC or lengths wrong, or a record malformed
    (protocol_errors.CorruptRecord, ErrorCode.CORRUPT_MESSAGE),
    (protocol_errors.InvalidRecord, ErrorCode.INVALID_RECORD),
    # the disk: a failed read or write of a log file (pylog/log_dir_failures.py)
    (OSError, ErrorCode.KAFKA_STORAGE_ERROR),
)


def error_code_for(exc: BaseException) -> ErrorCode:
    if isinstance(exc, BrokerError):
        return exc.code
    for cls, code in _CODES:
        if isinstance(exc, cls):
            return code
    return ErrorCode.UNKNOWN_SERVER_ERROR


def is_known_error(exc: BaseException) -> bool:
    """Whether `exc` is one of the failures Kafka answers with a code (as opposed to a bug,
    which deserves its traceback in the log)."""
    return isinstance(exc, BrokerError) or any(isinstance(exc, cls) for cls, _ in _CODES)
