"""Compression codecs of record batches: ids, and Kafka's framing of each codec.

A compressed magic-2 batch keeps its 61-byte header in clear and replaces the
records that follow it by one compressed blob of all of them, concatenated. The
codec id lives in bits 0-2 of the batch attributes:

    id  codec    framing inside the batch (what Kafka's Java producer writes)
    0   none     the records as they are
    1   gzip     one gzip member (RFC 1952) -- DEFLATE with a gzip header and trailer
    2   snappy   xerial "snappy-java" stream, see below; raw snappy is also read
    3   lz4      one LZ4 frame (the standard frame format, not bare LZ4 blocks)
    4   zstd     one Zstandard frame (RFC 8878); magic 2 only

Snappy, xerial framing (all integers big-endian):

    offset  size  field
    0       8     magic  82 53 4E 41 50 50 59 00  ("\\x82SNAPPY\\x00")
    8       4     version              (1)
    12      4     minimum compatible   (1)
    16      ...   chunks until the end: int32 length, then that many bytes of one raw
                  snappy block, each block compressing at most 32 KiB of input

Java clients write this framing; librdkafka and kafka-python can also write a raw
snappy block (a varint of the uncompressed length, then the compressed data), so the
reader accepts both, telling them apart by the magic. The version fields are not
checked, as other readers do not check them either (some writers get their byte
order wrong).

LZ4 frame, as written here (little-endian; it matches Kafka's own writer):

    04 22 4D 18   frame magic
    60            FLG: version 01, independent blocks, no checksums, no content size
    40            BD: blocks of at most 64 KiB of input
    82            header checksum (second byte of xxHash32 of FLG BD)
    blocks        uint32 size, then the block; the size's top bit set means the block
                  is stored uncompressed (when LZ4 would make it larger)
    00 00 00 00   end mark

Independent blocks matter: Kafka's Java reader refuses frames whose blocks refer
back to earlier blocks. Reading accepts any valid frame (linked blocks, checksums,
content size, several frames one after another).

Decompression bombs
-------------------
A few kilobytes of zstd or gzip can stand for gigabytes. `decompress(..., max_bytes=N)`
refuses to produce more than N bytes: gzip is inflated in bounded steps; snappy
declares each block's length up front; for LZ4 and zstd the frame's block headers are
walked first (cheap: a few per 64-128 KiB) to add up how much the frame can produce,
and a frame that could produce more than N plus one maximum-size block (4 MiB) is
refused before any of it is decompressed. After decoding, the real size is held to N.

Errors: a malformed, truncated or over-limit blob raises `CorruptRecord`, whatever
the underlying library would have raised. An id outside 0-4 raises `InvalidRecord`.
"""

from __future__ import annotations

import struct
import zlib
from enum import IntEnum

from protocol.errors import BufferUnderflow, CorruptRecord, InvalidRecord, InvalidVarint
from protocol.primitives import INT32, read_uvarint


class Compression(IntEnum):
    """Codec ids, as stored in bits 0-2 of a record batch's attributes."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4


def _cramjam():
    """cramjam (snappy, lz4 and zstd), imported on first use: a process that meets no
    batch compressed with those three never loads it (gzip is the standard library's)."""
    import cramjam
    return cramjam


# Levels the Java producer uses by default (compression.<codec>.level).
GZIP_LEVEL = 6
ZSTD_LEVEL = 3

# The most output one block of LZ4 (4 MiB) or zstd (128 KiB) can hold: the slack
# allowed over max_bytes when a frame's size is only known as an upper bound.
_MAX_BLOCK_BYTES = 4 * 1024 * 1024

_UINT32_LE = struct.Struct("<I")


def compress(codec: Compression | int, data) -> bytes:
    """Compress `data` (any bytes-like object) the way Kafka's Java producer frames it."""
    codec = _codec(codec, ValueError)
    if codec is Compression.NONE:
        return bytes(data)
    if codec is Compression.GZIP:
        return _gzip_compress(data)
    if codec is Compression.SNAPPY:
        return _xerial_compress(data)
    if codec is Compression.LZ4:
        return _lz4_frame_compress(data)
    return bytes(_cramjam().zstd.compress(data, level=ZSTD_LEVEL))


def decompress(codec: Compression | int, data, max_bytes: int | None = None) -> bytes:
    """Decompress a batch's records blob; at most `max_bytes` of output if given.

    Raises CorruptRecord for a malformed or over-limit blob, InvalidRecord for an
    unknown codec id.
    """
    codec = _codec(codec, InvalidRecord)
    if codec is Compression.NONE:
        result = bytes(data)
    elif codec is Compression.GZIP:
        result = _gzip_decompress(data, max_bytes)
    elif codec is Compression.SNAPPY:
        result = _snappy_decompress(memoryview(data), max_bytes)
    elif codec is Compression.LZ4:
        _check_bound("lz4", _lz4_output_bound(memoryview(data)), max_bytes)
        result = _library_decompress("lz4", _cramjam().lz4.decompress, data)
    else:
        _check_bound("zstd", _zstd_output_bound(memoryview(data)), max_bytes)
        result = _library_decompress("zstd", _cramjam().zstd.decompress, data)
    if max_bytes is not None and len(result) > max_bytes:
        raise CorruptRecord(f"{codec.name.lower()} data decompresses to {len(result)} bytes, "
                            f"over the {max_bytes}-byte limit")
    return result


def _codec(codec: Compression | int, error: type[Exception]) -> Compression:
    try:
        return Compression(codec)
    except ValueError:
        raise error(f"unknown compression codec id {codec!r} (valid: 0-4)") from None


def _library_decompress(name: str, function, data) -> bytes:
    try:
        return bytes(function(data))
    # The input is untrusted and the library is native code whose exception types are
    # not a documented contract: whatever it raises means "this blob is bad".
    except Exception as error:
        raise CorruptRecord(f"{name} data is corrupt: {error}") from error


def _check_bound(name: str, bound_bytes: int, max_bytes: int | None) -> None:
    if max_bytes is not None and bound_bytes > max_bytes + _MAX_BLOCK_BYTES:
        raise CorruptRecord(f"{name} frame can inflate to {bound_bytes} bytes, "
                            f"over the {max_bytes}-byte limit")


# ---------------------------------------------------------------------------------------
# gzip


def _gzip_compress(data) -> bytes:
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def _gzip_decompress(data, max_bytes: int | None) -> bytes:
    """Inflate one or more gzip members, never holding more than max_bytes + 1 of output."""
    out = bytearray()
    remaining = data
    while True:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        # max_length 0 means "no limit"; otherwise stop one byte past the limit.
        max_length = 0 if max_bytes is None else max_bytes - len(out) + 1
        try:
            out += inflater.decompress(remaining, max_length)
        except zlib.error as error:
            raise CorruptRecord(f"gzip data is corrupt: {error}") from None
        if max_bytes is not None and len(out) > max_bytes:
            raise CorruptRecord(f"gzip data inflates past the {max_bytes}-byte limit")
        if not inflater.eof:
            raise CorruptRecord("gzip data is truncated")
        remaining = inflater.unused_data
        if not remaining:
            return bytes(out)


# ---------------------------------------------------------------------------------------
# snappy

XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = XERIAL_MAGIC + INT32.pack(1) + INT32.pack(1)
_XERIAL_HEADER_BYTES = 16
_XERIAL_BLOCK_BYTES = 32 * 1024


def _xerial_compress(data) -> bytes:
    view = memoryview(data)
    out = bytearray(_XERIAL_HEADER)
    for start in range(0, len(view), _XERIAL_BLOCK_BYTES):
        block = _cramjam().snappy.compress_raw(view[start:start + _XERIAL_BLOCK_BYTES])
        out += INT32.pack(len(block))
        out += block
    return bytes(out)


def _snappy_decompress(view: memoryview, max_bytes: int | None) -> bytes:
    if len(view) >= _XERIAL_HEADER_BYTES and view[:8] == XERIAL_MAGIC:
        return _xerial_decompress(view, max_bytes)
    _check_snappy_length(view, max_bytes)
    return _library_decompress("snappy", _cramjam().snappy.decompress_raw, view)


def _xerial_decompress(view: memoryview, max_bytes: int | None) -> bytes:
    out = bytearray()
    position = _XERIAL_HEADER_BYTES
    while position < len(view):
        if len(view) - position < 4:
            raise CorruptRecord("xerial snappy stream ends inside a chunk length")
        chunk_bytes, = INT32.unpack_from(view, position)
        start = position + 4
        position = start + chunk_bytes
        if chunk_bytes <= 0 or position > len(view):
            raise CorruptRecord(f"xerial snappy chunk length {chunk_bytes} does not fit "
                                f"the {len(view) - start} bytes left")
        block = view[start:position]
        limit = None if max_bytes is None else max_bytes - len(out)
        _check_snappy_length(block, limit)
        out += _library_decompress("snappy", _cramjam().snappy.decompress_raw, block)
    return bytes(out)


def _check_snappy_length(block: memoryview, max_bytes: int | None) -> None:
    """A raw snappy block starts with its uncompressed length as an unsigned varint."""
    try:
        length, _ = read_uvarint(block, 0)
    except (BufferUnderflow, InvalidVarint):
        raise CorruptRecord("snappy block has no valid length preamble") from None
    if max_bytes is not None and length > max_bytes:
        raise CorruptRecord(f"snappy block declares {length} bytes, "
                            f"over the {max_bytes}-byte limit")


# ---------------------------------------------------------------------------------------
# LZ4 frames

_LZ4_FRAME_MAGIC = 0x184D2204
_LZ4_FRAME_HEADER = bytes.fromhex("04224d18" "60" "40" "82")
_LZ4_END_MARK = b"\x00\x00\x00\x00"
_LZ4_BLOCK_BYTES = 64 * 1024
_LZ4_STORED_BIT = 0x80000000
_LZ4_BLOCK_MAX_BYTES = {4: 64 * 1024, 5: 256 * 1024, 6: 1024 * 1024, 7: 4 * 1024 * 1024}


def _is_skippable_frame(magic: int) -> bool:
    """LZ4 and zstd share skippable frames: magic 0x184D2A50-5F, uint32 size, payload."""
    return magic & 0xFFFFFFF0 == 0x184D2A50


def _lz4_frame_compress(data) -> bytes:
    view = memoryview(data)
    out = bytearray(_LZ4_FRAME_HEADER)
    for start in range(0, len(view), _LZ4_BLOCK_BYTES):
        chunk = view[start:start + _LZ4_BLOCK_BYTES]
        block = _cramjam().lz4.compress_block(chunk, store_size=False)
        if len(block) < len(chunk):
            out += _UINT32_LE.pack(len(block))
            out += block
        else:
            out += _UINT32_LE.pack(len(chunk) | _LZ4_STORED_BIT)
            out += chunk
    out += _LZ4_END_MARK
    return bytes(out)


def _lz4_output_bound(view: memoryview) -> int:
    """Walk the frames' block headers; return the most bytes they can decompress to."""
    size = len(view)
    bound = 0
    position = 0
    while position < size:
        magic = _read_uint32_le(view, position, size, "lz4")
        if _is_skippable_frame(magic):
            position += 8 + _read_uint32_le(view, position + 4, size, "lz4")
            continue
        if magic != _LZ4_FRAME_MAGIC:
            raise CorruptRecord(f"lz4 data does not start with a frame magic (0x{magic:08x})")
        if position + 7 > size:
            raise CorruptRecord("lz4 data ends inside a frame header")
        flags, block_descriptor = view[position + 4], view[position + 5]
        block_max_bytes = _LZ4_BLOCK_MAX_BYTES.get((block_descriptor >> 4) & 7)
        if flags >> 6 != 1 or block_max_bytes is None:
            raise CorruptRecord("lz4 frame header has an unknown version or block size")
        position += 7                                   # magic, FLG, BD, header checksum
        position += 8 if flags & 0x08 else 0            # content size
        position += 4 if flags & 0x01 else 0            # dictionary id
        block_checksum_bytes = 4 if flags & 0x10 else 0
        while True:
            block_size = _read_uint32_le(view, position, size, "lz4")
            position += 4
            if block_size == 0:                          # end mark
                break
            stored = block_size & _LZ4_STORED_BIT
            block_size &= ~_LZ4_STORED_BIT
            bound += block_size if stored else block_max_bytes
            position += block_size + block_checksum_bytes
        position += 4 if flags & 0x04 else 0            # content checksum
        if position > size:
            raise CorruptRecord("lz4 data ends inside a frame")
    return bound


def _read_uint32_le(view: memoryview, position: int, size: int, name: str) -> int:
    if position + 4 > size:
        raise CorruptRecord(f"{name} data ends inside a frame")
    return _UINT32_LE.unpack_from(view, position)[0]


# ---------------------------------------------------------------------------------------
# zstd frames

_ZSTD_FRAME_MAGIC = 0xFD2FB528
_ZSTD_BLOCK_MAX_BYTES = 128 * 1024
_ZSTD_DICTIONARY_ID_BYTES = (0, 1, 2, 4)
_ZSTD_CONTENT_SIZE_BYTES = (0, 2, 4, 8)   # single-segment frames use 1 byte for flag 0


def _zstd_output_bound(view: memoryview) -> int:
    """Walk the frames' block headers; return the most bytes they can decompress to.

    A block header is 3 bytes, little-endian: bit 0 last block, bits 1-2 type
    (0 raw, 1 RLE, 2 compressed, 3 reserved), bits 3-23 size. A raw block holds `size`
    bytes; an RLE block repeats one byte `size` times; a compressed block of `size`
    bytes decompresses to at most 128 KiB.
    """
    size = len(view)
    bound = 0
    position = 0
    while position < size:
        magic = _read_uint32_le(view, position, size, "zstd")
        if _is_skippable_frame(magic):
            position += 8 + _read_uint32_le(view, position + 4, size, "zstd")
            continue
        if magic != _ZSTD_FRAME_MAGIC:
            raise CorruptRecord(f"zstd data does not start with a frame magic (0x{magic:08x})")
        if position + 5 > size:
            raise CorruptRecord("zstd data ends inside a frame header")
        descriptor = view[position + 4]
        if descriptor & 0x08:
            raise CorruptRecord("zstd frame header has its reserved bit set")
        single_segment = descriptor & 0x20
        content_size_flag = descriptor >> 6
        position += 5
        position += 0 if single_segment else 1          # window descriptor
        position += _ZSTD_DICTIONARY_ID_BYTES[descriptor & 0x03]
        position += 1 if single_segment and content_size_flag == 0 else (
            _ZSTD_CONTENT_SIZE_BYTES[content_size_flag])
        while True:
            if position + 3 > size:
                raise CorruptRecord("zstd data ends inside a block header")
            header = view[position] | view[position + 1] << 8 | view[position + 2] << 16
            position += 3
            block_type = (header >> 1) & 0x03
            block_size = header >> 3
            if block_type == 0:
                bound += block_size
                position += block_size
            elif block_type == 1:
                bound += block_size
                position += 1
            elif block_type == 2:
                bound += _ZSTD_BLOCK_MAX_BYTES
                position += block_size
            else:
                raise CorruptRecord("zstd block has the reserved block type")
            if header & 1:                               # last block of the frame
                break
        position += 4 if descriptor & 0x04 else 0       # content checksum
        if position > size:
            raise CorruptRecord("zstd data ends inside a frame")
    return bound
