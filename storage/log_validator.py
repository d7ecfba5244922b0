"""Every rule a batch goes through before it is appended, in one place (Kafka's LogValidator).

Three layers of checks, in the order Kafka applies them, each a function here and nowhere
else:

1. The request (`check_produce_records`, `first_batch_attributes`): what one partition's
   `records` field of a Produce request may hold. At least one whole batch, magic 2, no
   zstd (nor a codec id Kafka does not know) before Produce v7, exactly one batch (a
   partial batch after it is dropped, as Kafka drops it). `first_batch_attributes` is the
   pass Kafka makes over every partition before anything else, to find transactional
   batches; it is also where a size prefix below 14 bytes or an impossible magic byte
   fails the whole request.
2. The format of every batch, for every append (`analyze_batches`): magic, lengths,
   CRC-32C, counts (protocol.records.validate_batch), `max.message.bytes`, a client's base
   offset 0, a follower's offsets going forward.
3. The records, for a leader's append (`validate_records`), given the append's origin
   (a client's Produce, or the broker's own coordinator):
   - a client's batch: a positive record count equal to last_offset_delta + 1, no control
     batch, a base sequence with every producer id;
   - every record well formed (protocol.record_scan): uncompressed records strictly, the
     records of a compressed batch kept as it came the lenient way Kafka reads them;
   - compacted topics: every record has a key;
   - CreateTime topics: every record's timestamp within `message.timestamp.before.max.ms`
     and `.after.max.ms` of the broker's clock (records without a timestamp, -1, pass);
     LogAppendTime topics: no batch that says LogAppendTime itself;
   - the batch's max_timestamp is set to its records' largest timestamp, as Kafka sets it;
   - `compression.type`: `producer` keeps the codec the batch came with; any other codec
     (`uncompressed` included) has the records rebuilt into a new batch of that codec,
     offsets 0..n-1, timestamps, keys, values and headers kept.

Errors are storage's (storage/errors.py); pylog/errors.py turns them into Kafka's codes.
Their texts are Kafka's where Kafka sends them to the client: the record errors and the
summary of `InvalidRecords`, and the message of a request-wide `CorruptBatch`.

Cost. The format pass reads each batch header once and the CRC runs over it in C. The
record pass walks every record once without creating an object per record
(protocol.record_scan); only a batch that breaks a per-record rule is decoded record by
record, to say which records did. A compressed batch is decompressed to be checked, and
stored as it came unless its topic asks for another codec.

Not thread-safe state: there is none; every function takes what it needs as arguments.
"""

from __future__ import annotations

from enum import Enum

from protocol.compression import Compression
from protocol.errors import CorruptRecord, InvalidRecord, ProtocolError
from protocol.primitives import INT8, INT16, INT32
from protocol.record_scan import scan_records
from protocol.records import (
    ATTRIBUTES_POSITION,
    BATCH_LENGTH_POSITION,
    COMPRESSION_MASK,
    CONTROL_BIT,
    DEFAULT_MAX_DECOMPRESSED_BYTES,
    LOG_OVERHEAD,
    MAGIC,
    MAGIC_POSITION,
    NO_TIMESTAMP,
    RECORDS_POSITION,
    TIMESTAMP_TYPE_BIT,
    BatchHeader,
    TimestampType,
    build_batch,
    iter_partial_records,
    iter_records,
    read_batch_header,
    stamp_max_timestamp,
    validate_batch,
)
from protocol.compression import decompress
from storage.config import LogConfig
from storage.errors import (
    CorruptBatch,
    InvalidBatch,
    InvalidRecords,
    InvalidTimestamp,
    RecordTooLarge,
    UnexpectedAppendOffset,
    UnreadableBatch,
    UnsupportedCompressionType,
)

__all__ = ["AppendOrigin", "analyze_batches", "check_produce_records", "first_batch_attributes",
           "validate_records"]

# Kafka's smallest legal size prefix of anything in a record set: a magic-0 message.
_MIN_SIZE_PREFIX = 14
_ZSTD_MIN_PRODUCE_VERSION = 7
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
# compression.type value -> the codec a leader writes (absent: `producer`, keep the batch's)
_TARGET_CODEC = {"uncompressed": int(Compression.NONE), "gzip": int(Compression.GZIP),
                 "snappy": int(Compression.SNAPPY), "lz4": int(Compression.LZ4),
                 "zstd": int(Compression.ZSTD)}


class AppendOrigin(Enum):
    """Who appends as leader: a client's Produce request, or the broker's own coordinator
    writing its internal topic. The client rules apply to the first only, as in Kafka."""

    CLIENT = "client"
    COORDINATOR = "coordinator"


# ---------------------------------------------------------------------------------------
# 1. The request


def first_batch_attributes(records) -> int | None:
    """The attributes of the first whole batch in a partition's records, None if there is
    none. CorruptBatch (with Kafka's message as `detail`) for a size prefix below 14 or a
    magic byte other than 0-2: Kafka fails the whole Produce request then."""
    size = _next_batch_size(records, 0)
    if size is None:
        return None
    return INT16.unpack_from(records, ATTRIBUTES_POSITION)[0] if records[MAGIC_POSITION] == MAGIC else 0


def check_produce_records(records, produce_version: int) -> int:
    """Kafka's checks of one partition's records in a Produce request; return the size of
    the one batch it holds (bytes after it are a partial batch, which Kafka ignores)."""
    first_size = _next_batch_size(records, 0)
    if first_size is None:
        raise InvalidBatch(f"Produce requests with version {produce_version} must have at least one "
                           f"record batch per partition")
    if records[MAGIC_POSITION] != MAGIC:
        raise InvalidBatch(f"Produce requests with version {produce_version} are only allowed to "
                           f"contain record batches with magic version 2")
    attributes, = INT16.unpack_from(records, ATTRIBUTES_POSITION)
    codec = attributes & COMPRESSION_MASK
    if produce_version < _ZSTD_MIN_PRODUCE_VERSION:
        if codec > Compression.ZSTD:
            # Kafka reads the codec to look for zstd, and an id it does not know throws (an
            # UNKNOWN_SERVER_ERROR for the whole request); from v7 the CRC is checked first.
            raise UnreadableBatch(f"Unknown compression type id: {codec}")
        if codec == Compression.ZSTD:
            raise UnsupportedCompressionType(f"Produce requests with version {produce_version} are not allowed "
                                             f"to use ZStandard compression")
    if _next_batch_size(records, first_size) is not None:
        raise InvalidBatch(f"Produce requests with version {produce_version} are only allowed to "
                           f"contain exactly one record batch per partition")
    return first_size


def _next_batch_size(records, position: int) -> int | None:
    """Size of the whole batch at `position`, None if the bytes end before it does."""
    remaining = len(records) - position
    if remaining < LOG_OVERHEAD:
        return None
    size_prefix, = INT32.unpack_from(records, position + BATCH_LENGTH_POSITION)
    if size_prefix < _MIN_SIZE_PREFIX:
        raise CorruptBatch(f"Record size {size_prefix} is less than the minimum record overhead "
                           f"({_MIN_SIZE_PREFIX})", position)
    if remaining <= MAGIC_POSITION:
        return None
    magic, = INT8.unpack_from(records, position + MAGIC_POSITION)
    if not 0 <= magic <= MAGIC:
        raise CorruptBatch(f"Invalid magic found in record: {magic}", position)
    return size_prefix + LOG_OVERHEAD if remaining >= size_prefix + LOG_OVERHEAD else None


# ---------------------------------------------------------------------------------------
# 2. The format of every batch


def analyze_batches(view: memoryview, config: LogConfig, *, origin: AppendOrigin | None,
                    expected_offset: int | None, partition: str) -> tuple[list[tuple[int, BatchHeader]], bool]:
    """(position, header) of every batch in `view`, each checked, and whether any has a
    producer id. `expected_offset` (a follower's append) is the log end offset the batches'
    own offsets must not go below. Raises before anything is written."""
    headers: list[tuple[int, BatchHeader]] = []
    position, end = 0, view.nbytes
    max_message_bytes = config.max_message_bytes
    with_producer_ids = False
    while position < end:
        try:
            header = validate_batch(view, position)
        except CorruptRecord as exc:
            raise CorruptBatch(str(exc), position) from exc
        except ProtocolError as exc:
            codec = INT16.unpack_from(view, position + ATTRIBUTES_POSITION)[0] & COMPRESSION_MASK
            if codec > Compression.ZSTD:
                # Kafka fails to name the codec and answers UNKNOWN_SERVER_ERROR
                raise UnreadableBatch(f"Unknown compression type id: {codec}") from exc
            raise InvalidBatch(str(exc), position) from exc
        if origin is AppendOrigin.CLIENT and header.base_offset != 0:
            raise InvalidBatch(f"The baseOffset of the record batch in the append to {partition} should be 0, "
                               f"but it is {header.base_offset}", position)
        size_bytes = header.batch_length + LOG_OVERHEAD
        if size_bytes > max_message_bytes:
            raise RecordTooLarge(size_bytes, max_message_bytes)
        if expected_offset is not None:
            if header.base_offset < expected_offset:
                raise UnexpectedAppendOffset(
                    f"batch with offsets [{header.base_offset}, {header.last_offset}] appended below the "
                    f"expected offset {expected_offset}", header.base_offset, header.last_offset)
            expected_offset = header.next_offset
        if header.producer_id >= 0:
            with_producer_ids = True
        headers.append((position, header))
        position += size_bytes
    return headers, with_producer_ids


# ---------------------------------------------------------------------------------------
# 3. The records of a leader's append


def validate_records(view: memoryview, headers: list[tuple[int, BatchHeader]], config: LogConfig, *,
                     origin: AppendOrigin, now_ms: int, partition: str
                     ) -> tuple[memoryview, list[tuple[int, BatchHeader]]]:
    """Check the records of every batch (see the module docstring); return the batches to
    write: `view` itself with max timestamps set in place (it must be writable), or a new
    buffer when `compression.type` had batches rebuilt, with their headers."""
    target_codec = _TARGET_CODEC.get(config.compression_type)
    rebuilt: list[bytes | None] | None = None
    checked = []
    for index, (position, header) in enumerate(headers):
        if origin is AppendOrigin.CLIENT:
            _check_client_batch(header, position, partition)
        codec = header.attributes & COMPRESSION_MASK
        in_place = target_codec is None or target_codec == codec
        records_area = view[position + RECORDS_POSITION:position + header.batch_length + LOG_OVERHEAD]
        if codec == Compression.NONE:
            data = bytes(records_area)
        else:
            try:
                data = decompress(codec, records_area, DEFAULT_MAX_DECOMPRESSED_BYTES)
            except ProtocolError as exc:
                raise UnreadableBatch(f"Failed to decompress record stream: {exc}") from exc
        strict_lengths = codec == Compression.NONE or not in_place
        try:
            scan = scan_records(data, header.records_count, strict_lengths=strict_lengths)
        except InvalidRecord as exc:
            raise InvalidBatch(str(exc), position) from exc
        _check_timestamps_and_keys(view, position, header, scan.min_timestamp_delta, scan.max_timestamp_delta,
                                   scan.first_keyless_index, config, now_ms, partition, strict_lengths)
        if codec != Compression.NONE and in_place and scan.first_out_of_order_index >= 0:
            # Kafka would have to rebuild the batch from the partial records it read, and fails;
            # it gets there only when no record broke a rule (those are refused first).
            raise UnreadableBatch(f"the compressed records of the batch at position {position} have offset "
                                  f"deltas that are not 0..{header.records_count - 1}")
        if in_place:
            header = _set_max_timestamp(view, position, header, scan.max_timestamp_delta, config)
        else:
            if rebuilt is None:
                rebuilt = [None] * len(headers)
            rebuilt[index] = _rebuild(view, position, header, target_codec, config, now_ms)
        checked.append((position, header))
    if rebuilt is None:
        return view, checked
    return _join(view, checked, rebuilt, config)


def _check_client_batch(header: BatchHeader, position: int, partition: str) -> None:
    first, last = header.base_offset, header.base_offset + header.last_offset_delta
    count_from_offsets = last - first + 1
    if count_from_offsets <= 0:
        raise InvalidBatch(f"Batch has an invalid offset range: [{first}, {last}] in topic partition "
                           f"{partition}", position)
    if header.records_count <= 0:
        raise InvalidBatch(f"Invalid reported count for record batch: {header.records_count} in topic "
                           f"partition {partition}", position)
    if count_from_offsets != header.records_count:
        raise InvalidBatch(f"Inconsistent batch offset range [{first}, {last}] and count of records "
                           f"{header.records_count} in topic partition {partition}", position)
    if header.attributes & CONTROL_BIT:
        raise InvalidBatch(f"Clients are not allowed to write control records in topic partition {partition}",
                           position)
    if header.producer_id >= 0 and header.base_sequence < 0:
        raise InvalidBatch(f"Invalid sequence number {header.base_sequence} in record batch with producerId "
                           f"{header.producer_id} in topic partition {partition}", position)


def _check_timestamps_and_keys(view, position: int, header: BatchHeader, min_delta: int, max_delta: int,
                               first_keyless: int, config: LogConfig, now_ms: int, partition: str,
                               strict_lengths: bool) -> None:
    """The per-record rules, decided from the scan's numbers; only a batch that may break
    one is decoded, to name the records that do, read as the scan read them."""
    suspect = config.compact and first_keyless >= 0
    batch_log_append_time = header.attributes & TIMESTAMP_TYPE_BIT
    if config.log_append_time:
        suspect = suspect or batch_log_append_time
    elif header.records_count:
        if batch_log_append_time:
            lowest = highest = header.max_timestamp
        else:
            lowest, highest = header.base_timestamp + min_delta, header.base_timestamp + max_delta
        suspect = (suspect or now_ms - lowest > config.message_timestamp_before_max_ms
                   or highest - now_ms > config.message_timestamp_after_max_ms)
    if suspect:
        _raise_record_errors(view, position, config, now_ms, partition, strict_lengths)


def _raise_record_errors(view, position: int, config: LogConfig, now_ms: int, partition: str,
                         strict_lengths: bool) -> None:
    """Name the records that break a rule. Kafka names them from the records it checked:
    whole ones (DefaultRecord), or for a compressed batch it keeps as it came the partial
    ones of its lenient reading (PartialDefaultRecord: key and value skipped, their sizes
    shown as read)."""
    before_ms, after_ms = config.message_timestamp_before_max_ms, config.message_timestamp_after_max_ms
    errors: list[tuple[int, str]] = []
    any_timestamp_error = False
    batch_log_append_time = read_batch_header(view, position).timestamp_type is TimestampType.LOG_APPEND_TIME
    if strict_lengths:
        records, has_key, text = iter_records(view, position), _has_key, _java_record_text
    else:
        records, has_key, text = iter_partial_records(view, position), _has_key_size, _java_partial_record_text
    for index, record in enumerate(records):
        if config.compact and not has_key(record):
            errors.append((index, f"Compacted topic cannot accept message without key in topic partition "
                                  f"{partition}"))
        elif not config.log_append_time:
            timestamp = record.timestamp
            if timestamp != NO_TIMESTAMP and (now_ms - timestamp > before_ms or timestamp - now_ms > after_ms):
                any_timestamp_error = True
                errors.append((index, f"Timestamp {timestamp} of message with offset {record.offset} is out of "
                                      f"range. The timestamp should be within [{_java_long(now_ms - before_ms)}, "
                                      f"{_java_long(now_ms + after_ms)}]"))
        elif batch_log_append_time:
            any_timestamp_error = True
            errors.append((index, f"Invalid timestamp type in message {text(record)}. Producer "
                                  f"should not set timestamp type to LogAppendTime."))
    if not errors:
        return
    if any_timestamp_error:
        raise InvalidTimestamp("One or more records have been rejected due to invalid timestamp", errors)
    shown = ", ".join(f"RecordError(batchIndex={index}, message='{message}')" for index, message in errors[:3])
    raise InvalidRecords(f"One or more records have been rejected due to {len(errors)} record errors in total, "
                         f"and only showing the first three errors at most: [{shown}]", errors)


def _java_long(value: int) -> int:
    """`value` as Java's long arithmetic leaves it (Kafka's bounds wrap past Long.MAX_VALUE)."""
    return (value - _LONG_MIN) % 2**64 + _LONG_MIN


def _java_record_text(record) -> str:
    key = 0 if record.key is None else len(record.key)
    value = 0 if record.value is None else len(record.value)
    return f"DefaultRecord(offset={record.offset}, timestamp={record.timestamp}, key={key} bytes, value={value} bytes)"


def _has_key(record) -> bool:
    return record.key is not None


def _has_key_size(record) -> bool:   # a PartialRecord: a negative size is a null key
    return record.key_size >= 0


def _java_partial_record_text(record) -> str:
    return (f"PartialDefaultRecord(offset={record.offset}, timestamp={record.timestamp}, key={record.key_size} bytes, "
            f"value={record.value_size} bytes)")


def _set_max_timestamp(view, position: int, header: BatchHeader, max_delta: int,
                       config: LogConfig) -> BatchHeader:
    """A CreateTime topic's batch carries its records' largest timestamp as max_timestamp,
    whatever the producer wrote there (Kafka sets it on every leader append); the CRC is
    recomputed when it changes. LogAppendTime batches are stamped later, on append."""
    if config.log_append_time:
        return header
    if header.attributes & TIMESTAMP_TYPE_BIT:
        max_timestamp = header.max_timestamp   # every record of the batch has that timestamp
    else:
        max_timestamp = max(NO_TIMESTAMP, header.base_timestamp + max_delta) if header.records_count else NO_TIMESTAMP
    if max_timestamp == header.max_timestamp and not header.attributes & TIMESTAMP_TYPE_BIT:
        return header
    stamp_max_timestamp(view, position, TimestampType.CREATE_TIME, max_timestamp)
    return read_batch_header(view, position)


def _rebuild(view, position: int, header: BatchHeader, codec: int, config: LogConfig, now_ms: int) -> bytes:
    """The batch's records in a new batch of `codec` (the topic's compression.type)."""
    records = list(iter_records(view, position))
    log_append_time = config.log_append_time
    return build_batch(
        [(record.key, record.value, record.headers, record.timestamp) for record in records],
        compression=Compression(codec), producer_id=header.producer_id, producer_epoch=header.producer_epoch,
        base_sequence=header.base_sequence, is_transactional=header.is_transactional,
        timestamp_type=TimestampType.LOG_APPEND_TIME if log_append_time else TimestampType.CREATE_TIME,
        timestamp_ms=now_ms if log_append_time else None)


def _join(view, checked, rebuilt, config: LogConfig) -> tuple[memoryview, list[tuple[int, BatchHeader]]]:
    """One buffer of the batches to write, the rebuilt ones in place of their originals."""
    out = bytearray()
    headers = []
    for (position, header), new_batch in zip(checked, rebuilt):
        start = len(out)
        if new_batch is None:
            out += view[position:position + header.batch_length + LOG_OVERHEAD]
        else:
            if len(new_batch) > config.max_message_bytes:
                raise RecordTooLarge(len(new_batch), config.max_message_bytes)
            out += new_batch
            header = read_batch_header(out, start)
        headers.append((start, header))
    return memoryview(out), headers
