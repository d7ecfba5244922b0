"""Walk the records of a batch without decoding them: bytes in, a few numbers out.

A broker must look at every record a producer sends (Kafka's LogValidator does): the
count must match, every record must be well formed, records on compacted topics need a
key, timestamps must lie within the topic's bounds. Decoding each record into an object
(`protocol.records.iter_records`) costs several microseconds a record; this module walks
the same bytes in one tight loop that creates no object per record and returns what the
rules need:

    RecordsScan(min_timestamp_delta, max_timestamp_delta, first_keyless_index,
                first_out_of_order_index)

and, for readers that need only what a compacted topic is about (the offsets store
replaying `__consumer_offsets`, the log cleaner building its key map), the offset delta,
key and value of each record, skipping its timestamp and headers:

    iter_key_values(data, records_count) -> (offset_delta, key, value), ...

The rules themselves (what a broker refuses, with which error) are not here: they belong
to the caller (storage/log_validator.py). The record layout is documented in
protocol/records.py ("Record layout"); each field is a zig-zag varint except the one-byte
attributes.

Two ways to read a record, because Kafka reads them two ways and a broker that answers as
Kafka does must too:

- strict (`strict_lengths=True`): a record's fields must end exactly where its length
  prefix says. Kafka reads uncompressed records this way, and compressed ones whenever it
  rebuilds the batch.
- lenient (`strict_lengths=False`): the length prefix is read and ignored; the fields are
  followed one after the other. Kafka validates a compressed batch it keeps as it came
  this way (its "skip key and value" iterator), so a wrong length prefix inside a
  compressed batch passes there.

Either way a negative key or value length means null, a negative header count or header
name length is an error, a field running past the end of the data is an error, and bytes
left after the last record are an error. Errors raise `protocol.errors.InvalidRecord`
with Kafka's wording.
"""

from __future__ import annotations

from typing import Iterator, NamedTuple

from protocol.errors import InvalidRecord

_MIN_RECORD_BODY_BYTES = 6   # attributes and five one-byte varints: the smallest record body

__all__ = ["RecordsScan", "iter_key_values", "scan_records", "skip_headers"]

# Zig-zag varints of one and two bytes, decoded with tuple lookups, additions and a
# multiplication, which the interpreter runs faster than shifts and masks (it has fast
# paths for the former on small ints, none for the latter). Zig-zag maps an unsigned v to
# v / 2 when v is even and to -(v + 1) / 2 when it is odd. A byte b < 0x80 is a whole
# varint: _ONE_BYTE[b]. A byte b >= 0x80 followed by c < 0x80 is v = (b & 0x7F) + 128 c,
# whose parity is b's: _TWO_BYTE_LOW[b] + _TWO_BYTE_STEP[b] * c, the step 64 or -64.
# Both loops below repeat these lookups inline for each field rather than call a helper:
# in them a call costs more than the decode. Longer varints go to _varint_rest.
_ONE_BYTE = tuple((b >> 1) ^ -(b & 1) for b in range(0x80))
_TWO_BYTE_LOW = (0,) * 0x80 + tuple(((b & 0x7F) >> 1) ^ -(b & 1) for b in range(0x80, 0x100))
_TWO_BYTE_STEP = (0,) * 0x80 + tuple(-64 if b & 1 else 64 for b in range(0x80, 0x100))


class RecordsScan(NamedTuple):
    """What `scan_records` found: the smallest and largest timestamp delta (0 and 0 for no
    records), the index of the first record without a key and of the first record whose
    offset delta is not its index (-1: none)."""

    min_timestamp_delta: int
    max_timestamp_delta: int
    first_keyless_index: int
    first_out_of_order_index: int


def scan_records(data: bytes, records_count: int, *, strict_lengths: bool = True) -> RecordsScan:
    """Walk `records_count` records laid end to end in `data` (a batch's records area, or
    its decompressed blob), which they must fill exactly.

    `data` should be `bytes`: indexing a bytes object is the cheapest way Python has to
    read one byte, and this loop reads every varint byte by byte.
    """
    # Written flat, the one- and two-byte varints inline: this runs for every record a
    # producer sends (~0.6 us a record on the project machine, most of a produce's broker
    # CPU with 100 B records). Local names for the tables: the loop reads them often. The
    # length prefix is only compared with where the fields end; the error path works out
    # what to say.
    position = 0
    end = len(data)
    low = high = 0
    first_keyless = first_out_of_order = -1
    record_start = record_end = 0
    one_byte, two_byte_low, two_byte_step = _ONE_BYTE, _TWO_BYTE_LOW, _TWO_BYTE_STEP
    try:
        for index in range(records_count):
            b = data[position]  # the record's length
            if b < 0x80:
                length = one_byte[b]
                position += 1
            else:
                c = data[position + 1]
                if c < 0x80:
                    length = two_byte_low[b] + two_byte_step[b] * c
                    position += 2
                else:
                    length, position = _varint_rest(data, position + 1, b)
            record_start = position
            record_end = position + length
            b = data[position + 1]  # the timestamp delta, after the attributes byte
            if b < 0x80:
                delta = one_byte[b]
                position += 2
            else:
                delta, position = _varint_rest(data, position + 2, b)
            if index == 0:
                low = high = delta
            elif delta > high:
                high = delta
            elif delta < low:
                low = delta
            b = data[position]  # the offset delta, which should be the index
            if b < 0x80:
                if b != index + index:
                    if first_out_of_order < 0:
                        first_out_of_order = index
                position += 1
            else:
                c = data[position + 1]
                if c < 0x80:
                    if two_byte_low[b] + two_byte_step[b] * c != index and first_out_of_order < 0:
                        first_out_of_order = index
                    position += 2
                else:
                    delta, position = _varint_rest(data, position + 1, b)
                    if delta != index and first_out_of_order < 0:
                        first_out_of_order = index
            b = data[position]  # the key's length (negative: no key)
            if b < 0x80:
                length = one_byte[b]
                position += 1
            else:
                length, position = _varint_rest(data, position + 1, b)
            if length >= 0:
                position += length
            elif first_keyless < 0:
                first_keyless = index
            b = data[position]  # the value's length (negative: no value)
            if b < 0x80:
                length = one_byte[b]
                position += 1
            else:
                c = data[position + 1]
                if c < 0x80:
                    length = two_byte_low[b] + two_byte_step[b] * c
                    position += 2
                else:
                    length, position = _varint_rest(data, position + 1, b)
            if length > 0:
                position += length
            if data[position]:  # the header count
                position = skip_headers(data, position + 1, data[position])
            else:
                position += 1
            if position != record_end and (strict_lengths or position > end):
                _raise_misfit(position, record_start, record_end, end, strict_lengths)
    except IndexError:
        if strict_lengths and record_end > end:
            _raise_misfit(position, record_start, record_end, end, strict_lengths)
        raise InvalidRecord("Incorrect declared batch size, premature EOF reached") from None
    if position != end:
        if position > end:
            raise InvalidRecord("Incorrect declared batch size, premature EOF reached")
        raise InvalidRecord("Incorrect declared batch size, records still remaining in file")
    return RecordsScan(low, high, first_keyless, first_out_of_order)


def iter_key_values(data: bytes, records_count: int) -> Iterator[tuple[int, bytes | None, bytes | None]]:
    """Yield (offset_delta, key, value) of the `records_count` records laid end to end in
    `data` (a batch's records area or its decompressed blob; `bytes` reads fastest); a
    null key or value is None.

    The fields are read strictly (key and value must lie inside the record's length), the
    timestamp and headers are skipped by that length; a record running past `data` or
    bytes left after the last one raise InvalidRecord. Meant for batches the log already
    validated: it checks their framing, not every header field.
    """
    position = 0
    end = len(data)
    one_byte, two_byte_low, two_byte_step = _ONE_BYTE, _TWO_BYTE_LOW, _TWO_BYTE_STEP
    try:
        for _ in range(records_count):
            b = data[position]  # the record's length
            if b < 0x80:
                length = one_byte[b]
                position += 1
            else:
                c = data[position + 1]
                if c < 0x80:
                    length = two_byte_low[b] + two_byte_step[b] * c
                    position += 2
                else:
                    length, position = _varint_rest(data, position + 1, b)
            record_end = position + length
            if length < _MIN_RECORD_BODY_BYTES or record_end > end:
                raise InvalidRecord(f"Invalid record size: expected {length} bytes of record payload, "
                                    f"but instead the buffer has only {end - position} remaining bytes.")
            b = data[position + 1]  # the timestamp delta, after the attributes byte: skipped
            if b < 0x80:
                position += 2
            elif data[position + 2] < 0x80:
                position += 3
            else:
                position = _varint_rest(data, position + 2, b)[1]
            b = data[position]  # the offset delta
            if b < 0x80:
                offset_delta = one_byte[b]
                position += 1
            else:
                c = data[position + 1]
                if c < 0x80:
                    offset_delta = two_byte_low[b] + two_byte_step[b] * c
                    position += 2
                else:
                    offset_delta, position = _varint_rest(data, position + 1, b)
            b = data[position]  # the key's length (negative: no key)
            if b < 0x80:
                length = one_byte[b]
                position += 1
            else:
                length, position = _varint_rest(data, position + 1, b)
            if length < 0:
                key = None
            else:
                key = data[position:position + length]
                position += length
            b = data[position]  # the value's length (negative: no value)
            if b < 0x80:
                length = one_byte[b]
                position += 1
            else:
                c = data[position + 1]
                if c < 0x80:
                    length = two_byte_low[b] + two_byte_step[b] * c
                    position += 2
                else:
                    length, position = _varint_rest(data, position + 1, b)
            if length < 0:
                value = None
            else:
                value = data[position:position + length]
                position += length
            if position >= record_end:   # the header count (at least one byte) is still to come
                raise InvalidRecord("Invalid record size: its key and value run past the end of its "
                                    "record payload")
            position = record_end
            yield offset_delta, key, value
    except IndexError:
        raise InvalidRecord("Incorrect declared batch size, premature EOF reached") from None
    if position != end:
        raise InvalidRecord("Incorrect declared batch size, records still remaining in file")


def _raise_misfit(position: int, record_start: int, record_end: int, end: int, strict_lengths: bool) -> None:
    """A record whose fields do not end where its length prefix says (strict), or past the data."""
    length = record_end - record_start
    if not strict_lengths or position > end and record_end <= end:
        raise IndexError
    if length < 0 or record_end > end:
        raise InvalidRecord(f"Invalid record size: expected {length} bytes of record payload, "
                            f"but instead the buffer has only {end - record_start} remaining bytes.")
    raise InvalidRecord(f"Invalid record size: expected to read {length} bytes in record payload, "
                        f"but instead read {position - record_start}")


def skip_headers(data: bytes, position: int, first_byte: int) -> int:
    """Skip a record's headers, whose count varint started with `first_byte` (already
    consumed); return the position after them, which may lie past the data (IndexError
    when a varint runs off its end). InvalidRecord for a negative count or name size."""
    if first_byte < 0x80:
        count = (first_byte >> 1) ^ -(first_byte & 1)
    else:
        count, position = _varint_rest(data, position, first_byte)
    if count < 0:
        raise InvalidRecord(f"Found invalid number of record headers {count}")
    for _ in range(count):
        name_length, position = _varint(data, position)
        if name_length < 0:
            raise InvalidRecord(f"Invalid negative header key size {name_length}")
        value_length, position = _varint(data, position + name_length)
        if value_length > 0:
            position += value_length
    return position


def _varint(data: bytes, position: int) -> tuple[int, int]:
    b = data[position]
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), position + 1
    return _varint_rest(data, position + 1, b)


def _varint_rest(data: bytes, position: int, first_byte: int) -> tuple[int, int]:
    """The rest of a varint whose first byte (>= 0x80) came just before `position`:
    (its zig-zag decoded value, the position after it). Kafka's varints take at most 10
    bytes (a varlong)."""
    result = first_byte & 0x7F
    shift = 7
    while True:
        b = data[position]
        position += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return (result >> 1) ^ -(result & 1), position
        shift += 7
        if shift > 63:
            raise InvalidRecord("Found invalid record structure: a varint longer than 10 bytes")
