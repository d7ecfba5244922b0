"""Exceptions raised by the storage engine.

Storage raises its own errors; `pylog/errors.py` is the one place that turns them into
Kafka error codes (the names in brackets are the codes it will most likely choose).
Nothing here knows about the wire protocol.

    StorageError
    ├── OffsetOutOfRange        a read or a log start offset outside
    │                           [log_start_offset, log_end_offset]        [OFFSET_OUT_OF_RANGE]
    ├── InvalidBatch            an appended batch breaks the format       [INVALID_RECORD]
    │   └── CorruptBatch        its length or CRC-32C does not check out  [CORRUPT_MESSAGE]
    ├── RecordTooLarge          one batch is larger than max.message.bytes  [MESSAGE_TOO_LARGE]
    ├── RecordBatchTooLarge     one append is larger than segment.bytes   [RECORD_LIST_TOO_LARGE]
    ├── UnexpectedAppendOffset  a batch appended with its own offsets goes backwards
    ├── SegmentOffsetOverflow   an offset does not fit the segment's int32 relative offsets
    ├── CorruptIndex            an index file fails its sanity check (recovery rebuilds it)
    ├── CorruptCheckpoint       a checkpoint file that cannot be parsed
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
        self.position = position


class CorruptBatch(InvalidBatch):
    """A batch whose size or CRC-32C does not match its bytes; nothing was written."""


class RecordTooLarge(StorageError):
    """A batch larger than the topic's `max.message.bytes`; nothing was written."""

    def __init__(self, size_bytes: int, max_message_bytes: int):
        super().__init__(
            f"record batch of {size_bytes} bytes exceeds max.message.bytes={max_message_bytes}"
        )
        self.size_bytes = size_bytes
        self.max_message_bytes = max_message_bytes


class RecordBatchTooLarge(StorageError):
    """One append larger than `segment.bytes`: it could never fit in a segment."""

    def __init__(self, size_bytes: int, segment_bytes: int):
        super().__init__(f"append of {size_bytes} bytes exceeds segment.bytes={segment_bytes}")
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
    """An unknown topic config name, or a value of the wrong type or out of range."""

    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.name = name
