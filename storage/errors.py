"""Exceptions raised by the storage engine.

Storage raises its own errors; `pylog/errors.py` is the one place that turns them into
Kafka error codes (the names in brackets are the codes it will most likely choose).
Nothing here knows about the wire protocol.

    StorageError
    ├── OffsetOutOfRange        a read or a log start offset outside
    │                           [log_start_offset, log_end_offset]        [OFFSET_OUT_OF_RANGE]
    ├── InvalidBatch            an appended batch breaks the format or a rule of
    │   │                       storage/log_validator.py                   [INVALID_RECORD]
    │   ├── CorruptBatch        its length or CRC-32C does not check out  [CORRUPT_MESSAGE]
    │   └── InvalidRecords      some of its records break a rule (a key on a compacted
    │       │                   topic); carries Kafka's record errors     [INVALID_RECORD]
    │       └── InvalidTimestamp  ... a timestamp out of bounds among them [INVALID_TIMESTAMP]
    ├── UnsupportedCompressionType  zstd in a Produce request older than v7
    │                                                       [UNSUPPORTED_COMPRESSION_TYPE]
    ├── UnreadableBatch         a batch Kafka cannot read back: an unknown codec id, data
    │                           that does not decompress, or compressed records whose
    │                           offsets are not 0..n-1 where it keeps the batch as it came
    │                                                         [UNKNOWN_SERVER_ERROR, Kafka's]
    ├── RecordTooLarge          one batch is larger than max.message.bytes  [MESSAGE_TOO_LARGE]
    ├── RecordBatchTooLarge     one append is larger than the segment size [RECORD_LIST_TOO_LARGE]
    ├── UnexpectedAppendOffset  a batch appended with its own offsets goes backwards
    ├── SegmentOffsetOverflow   an offset does not fit the segment's int32 relative offsets
    ├── CorruptIndex            an index file fails its sanity check (recovery rebuilds it)
    ├── CorruptCheckpoint       a checkpoint file that cannot be parsed
    ├── CorruptSnapshot         a producer-state `.snapshot` file that fails its checks
    │                           (the log deletes it and uses an older one)
    ├── ProducerStateError      an idempotent/transactional batch refused by the
    │   │                       producer state (storage/producer_state.py); nothing written
    │   ├── InvalidProducerEpoch  its epoch is older than the producer's  [INVALID_PRODUCER_EPOCH]
    │   ├── OutOfOrderSequence  its first sequence does not follow the
    │   │                       last one appended                   [OUT_OF_ORDER_SEQUENCE_NUMBER]
    │   ├── InvalidTxnState     a non-transactional batch inside an open transaction
    │   │                                                             [INVALID_TXN_STATE]
    │   └── DuplicateSequence   a retry of one of the last five batches; carries their
    │                           ORIGINAL offsets. `Log.append` catches it and answers
    │                           with an AppendInfo(duplicate=True)      [NONE + those offsets]
    └── InvalidConfig           an unknown config name or a value out of range
                                (also a ValueError)                        [INVALID_CONFIG]
"""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every error raised by `storage`."""


class OffsetOutOfRange(StorageError):
    """An offset outside the log's valid range.

    `log_start_offset` is the first offset that can be read; `log_end_offset` is the
    offset the next appended record will get. A fetch at exactly `log_end_offset` is
    valid (and returns nothing); anything outside `[log_start_offset, log_end_offset]`
    raises this error.
    """

    def __init__(self, offset: int, log_start_offset: int, log_end_offset: int, what: str = "offset"):
        super().__init__(
            f"{what} {offset} is out of range: the log holds offsets "
            f"[{log_start_offset}, {log_end_offset}) (log start offset {log_start_offset}, "
            f"log end offset {log_end_offset})"
        )
        self.offset = offset
        self.log_start_offset = log_start_offset
        self.log_end_offset = log_end_offset


class InvalidBatch(StorageError):
    """A batch given to `Log.append` breaks the record-batch format; nothing was written.

    `position` is the byte position of the offending batch inside the appended buffer.
    The codec's own exception is kept as `__cause__`.
    """

    def __init__(self, message: str, position: int = 0):
        super().__init__(f"invalid record batch at position {position} of the append: {message}")
        self.detail = message
        self.position = position


class CorruptBatch(InvalidBatch):
    """A batch whose size or CRC-32C does not match its bytes; nothing was written."""


class InvalidRecords(InvalidBatch):
    """Records of a batch that break a per-record rule; nothing was written.

    `record_errors` lists (index of the record in its batch, Kafka's message) for every
    offending record, and `kafka_message` is the summary Kafka sends as the partition's
    error message; the Produce response carries both (record errors from Produce v8).
    """

    def __init__(self, kafka_message: str, record_errors: list[tuple[int, str]]):
        super().__init__(kafka_message)
        self.kafka_message = kafka_message
        self.record_errors = record_errors


class InvalidTimestamp(InvalidRecords):
    """At least one record's timestamp is outside the topic's bounds (or of the wrong type)."""


class UnsupportedCompressionType(StorageError):
    """A codec the request's version may not carry (zstd before Produce v7)."""


class UnreadableBatch(StorageError):
    """A batch whose records cannot be read back as Kafka keeps them (see the tree above);
    Kafka answers UNKNOWN_SERVER_ERROR, and so does pylog."""


class RecordTooLarge(StorageError):
    """A batch larger than the topic's `max.message.bytes`; nothing was written."""

    def __init__(self, size_bytes: int, max_message_bytes: int):
        super().__init__(
            f"record batch of {size_bytes} bytes exceeds max.message.bytes={max_message_bytes}"
        )
        self.size_bytes = size_bytes
        self.max_message_bytes = max_message_bytes


class RecordBatchTooLarge(StorageError):
    """One append larger than the segment size (`segment.bytes`, or `internal.segment.bytes`
    when set): it could never fit in a segment."""

    def __init__(self, size_bytes: int, segment_bytes: int):
        super().__init__(f"append of {size_bytes} bytes exceeds the segment size, {segment_bytes} bytes")
        self.size_bytes = size_bytes
        self.segment_bytes = segment_bytes


class UnexpectedAppendOffset(StorageError):
    """Batches appended with their own offsets (replication) that do not move forward."""

    def __init__(self, message: str, first_offset: int, last_offset: int):
        super().__init__(message)
        self.first_offset = first_offset
        self.last_offset = last_offset


class SegmentOffsetOverflow(StorageError):
    """An offset that cannot be stored as an int32 relative to the segment's base offset."""

    def __init__(self, base_offset: int, offset: int):
        super().__init__(
            f"offset {offset} does not fit a segment with base offset {base_offset}: "
            f"relative offsets must lie in [0, 2**31 - 1]"
        )
        self.base_offset = base_offset
        self.offset = offset


class CorruptIndex(StorageError):
    """An index file that fails its sanity check; the segment's indexes get rebuilt."""


class CorruptCheckpoint(StorageError):
    """A checkpoint file with an unknown version or a malformed line."""


class InvalidConfig(StorageError, ValueError):
    """A config value that cannot be used: an unknown name, a value of the wrong type or out
    of range. `name` is the config (None when the problem is not one name's), `reason` what
    is wrong, `value` what was given (None when the problem is not one value)."""

    def __init__(self, name: str | None, reason: str, value: object = None):
        if name is None:
            message = reason
        elif value is None:
            message = f"Invalid configuration {name}: {reason}"
        else:
            message = f"Invalid value {value!r} for configuration {name}: {reason}"
        super().__init__(message)
        self.name = name
        self.reason = reason
        self.value = value


class CorruptSnapshot(StorageError):
    """A producer-state snapshot file with a bad version, CRC or length."""


class ProducerStateError(StorageError):
    """A batch refused by the producer-state checks of a leader's append; nothing written.

    `producer_id` is the producer whose batch it was; `offset` the offset the batch would
    have had.
    """

    def __init__(self, message: str, producer_id: int, offset: int):
        super().__init__(message)
        self.producer_id = producer_id
        self.offset = offset


class InvalidProducerEpoch(ProducerStateError):
    """A batch whose producer epoch is older than the one the partition last saw (a
    zombie producer, fenced by a newer instance with the same producer id)."""


class OutOfOrderSequence(ProducerStateError):
    """A batch whose first sequence does not follow the producer's last sequence (a gap,
    or a retry too old to be recognised), or a new epoch that does not start at 0."""


class InvalidTxnState(ProducerStateError):
    """A non-transactional batch from a producer whose transaction is still open."""


class DuplicateSequence(ProducerStateError):
    """A batch with exactly the sequence range of one of the producer's last five
    batches: a retry of a batch already in the log.

    Carries where the original went: `first_offset`, `last_offset` and its max
    `timestamp_ms`. Kafka answers such a retry as a success with the original offsets and
    appends nothing; `Log.append` does the same (it returns an AppendInfo with
    `duplicate=True`), so callers of `Log.append` do not see this exception.
    """

    def __init__(
        self,
        message: str,
        producer_id: int,
        offset: int,
        *,
        first_offset: int,
        last_offset: int,
        first_sequence: int,
        last_sequence: int,
        timestamp_ms: int,
    ):
        super().__init__(message, producer_id, offset)
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.first_sequence = first_sequence
        self.last_sequence = last_sequence
        self.timestamp_ms = timestamp_ms
