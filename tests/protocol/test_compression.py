"""Compression codecs: round trips, Kafka's framings, foreign encoders, bad input, bombs."""

import gzip
import os
import zlib

import cramjam
import lz4.frame
import pytest
import snappy
import zstandard
from kafka import codec as kafka_codec

from protocol.compression import XERIAL_MAGIC, Compression, compress, decompress
from protocol.errors import CorruptRecord, InvalidRecord

CODECS = list(Compression)
COMPRESSING = [codec for codec in Compression if codec is not Compression.NONE]

# Compressible text, an incompressible stretch, and more than one 32/64 KiB block.
PAYLOAD = b"record-value-" * 9000 + os.urandom(70_000) + b"tail"


def test_codec_ids_are_kafkas():
    assert [(c.name, int(c)) for c in Compression] == [
        ("NONE", 0), ("GZIP", 1), ("SNAPPY", 2), ("LZ4", 3), ("ZSTD", 4)]


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("data", [b"", b"x", PAYLOAD], ids=["empty", "one-byte", "large"])
def test_round_trip(codec, data):
    compressed = compress(codec, data)
    assert isinstance(compressed, bytes)
    assert decompress(codec, compressed) == data
    assert decompress(int(codec), memoryview(compressed)) == data


@pytest.mark.parametrize("codec", COMPRESSING)
def test_compressible_data_shrinks(codec):
    data = b"abcdefgh" * 10_000
    assert len(compress(codec, data)) < len(data) // 10


def test_gzip_is_a_standard_gzip_member():
    assert gzip.decompress(compress(Compression.GZIP, PAYLOAD)) == PAYLOAD
    assert compress(Compression.GZIP, b"x")[:2] == b"\x1f\x8b"


def test_gzip_reads_concatenated_members():
    assert decompress(Compression.GZIP, gzip.compress(b"ab") + gzip.compress(b"cd")) == b"abcd"


def test_snappy_writes_xerial_framing_like_the_java_producer():
    compressed = compress(Compression.SNAPPY, PAYLOAD)
    assert compressed[:16] == XERIAL_MAGIC + b"\x00\x00\x00\x01" + b"\x00\x00\x00\x01"
    # kafka-python's decoder understands xerial framing; so must ours.
    assert kafka_codec.snappy_decode(compressed) == PAYLOAD
    # Chunks hold at most 32 KiB of input each, like snappy-java's default.
    first_chunk_bytes = int.from_bytes(compressed[16:20], "big")
    first_chunk = compressed[20:20 + first_chunk_bytes]
    assert len(snappy.decompress(first_chunk)) == 32 * 1024


def test_snappy_reads_raw_blocks_as_librdkafka_may_write_them():
    raw = snappy.compress(PAYLOAD)                      # python-snappy, no framing
    assert raw[:8] != XERIAL_MAGIC
    assert decompress(Compression.SNAPPY, raw) == PAYLOAD
    assert decompress(Compression.SNAPPY, kafka_codec.snappy_encode(PAYLOAD, False)) == PAYLOAD


def test_snappy_reads_xerial_from_kafka_python():
    assert decompress(Compression.SNAPPY, kafka_codec.snappy_encode(PAYLOAD)) == PAYLOAD


def test_lz4_writes_a_frame_with_independent_blocks():
    compressed = compress(Compression.LZ4, PAYLOAD)
    info = lz4.frame.get_frame_info(compressed)
    assert info["block_linked"] is False          # Kafka's Java reader requires this
    assert info["block_size"] == 64 * 1024
    assert lz4.frame.decompress(compressed) == PAYLOAD
    assert kafka_codec.lz4_decode(compressed) == PAYLOAD


def test_lz4_header_checksum_is_right():
    # python-lz4 checks the header checksum byte; a frame of nothing is all header.
    empty_frame = compress(Compression.LZ4, b"")
    assert lz4.frame.decompress(empty_frame) == b""
    assert empty_frame == lz4.frame.compress(
        b"", block_size=lz4.frame.BLOCKSIZE_MAX64KB, block_linked=False,
        content_checksum=False, block_checksum=False, store_size=False)


@pytest.mark.parametrize("options", [
    {"block_linked": True},
    {"block_linked": False, "content_checksum": True, "block_checksum": True},
    {"store_size": True, "block_size": lz4.frame.BLOCKSIZE_MAX4MB},
])
def test_lz4_reads_frames_of_other_writers(options):
    assert decompress(Compression.LZ4, lz4.frame.compress(PAYLOAD, **options)) == PAYLOAD


def test_lz4_reads_kafka_python_and_concatenated_frames():
    assert decompress(Compression.LZ4, kafka_codec.lz4_encode(PAYLOAD)) == PAYLOAD
    two_frames = lz4.frame.compress(b"first ") + lz4.frame.compress(b"second")
    assert decompress(Compression.LZ4, two_frames) == b"first second"


def test_zstd_interoperates_with_the_reference_library():
    compressed = compress(Compression.ZSTD, PAYLOAD)
    assert zstandard.ZstdDecompressor().decompressobj().decompress(compressed) == PAYLOAD
    for writer in (zstandard.ZstdCompressor(write_checksum=True, write_content_size=False),
                   zstandard.ZstdCompressor(level=19)):
        assert decompress(Compression.ZSTD, writer.compress(PAYLOAD)) == PAYLOAD
    assert decompress(Compression.ZSTD, kafka_codec.zstd_encode(PAYLOAD)) == PAYLOAD


# ---------------------------------------------------------------------------------------
# Bad input: only CorruptRecord comes out


def _corruptions(compressed: bytes):
    yield b""
    yield compressed[:len(compressed) // 2]                       # truncated
    yield compressed[:-1]
    yield b"\x00" * 40
    yield os.urandom(200)
    flipped = bytearray(compressed)
    flipped[len(flipped) // 3] ^= 0xFF
    yield bytes(flipped)
    yield compressed[:8] + os.urandom(100)                         # good magic, garbage after


@pytest.mark.parametrize("codec", COMPRESSING)
def test_malformed_data_raises_corrupt_record_only(codec):
    compressed = compress(codec, PAYLOAD)
    for bad in _corruptions(compressed):
        try:
            result = decompress(codec, bad)
        except CorruptRecord:
            continue
        # A format without checksums may decode a flipped byte to other data; any other
        # exception type fails the test.
        assert result != PAYLOAD


@pytest.mark.parametrize("codec", COMPRESSING)
def test_truncated_data_raises_corrupt_record(codec):
    compressed = compress(codec, PAYLOAD)
    for cut in (0, 1, len(compressed) // 2, len(compressed) - 1):
        with pytest.raises(CorruptRecord):
            decompress(codec, compressed[:cut])


def test_xerial_with_bad_chunk_lengths():
    codec = Compression.SNAPPY
    header = XERIAL_MAGIC + b"\x00\x00\x00\x01" * 2
    negative, too_long, torn_length, empty = (
        b"\xff\xff\xff\xff", b"\x7f\xff\xff\xffabc", b"\x00\x00", b"\x00\x00\x00\x00")
    for chunks in (negative, too_long, torn_length, empty):
        with pytest.raises(CorruptRecord):
            decompress(codec, header + chunks)
    assert decompress(codec, header) == b""                       # no chunks: no data


def test_unknown_codec_id():
    with pytest.raises(InvalidRecord):
        decompress(5, b"data")
    with pytest.raises(ValueError):
        compress(7, b"data")


# ---------------------------------------------------------------------------------------
# Decompression bombs

BOMB_BYTES = 16 * 1024 * 1024
LIMIT_BYTES = 1024 * 1024


@pytest.fixture(scope="module")
def bombs():
    """16 MiB of zeros, compressed by each codec (a few KiB to under a MiB)."""
    zeros = bytes(BOMB_BYTES)
    return {
        Compression.GZIP: zlib.compress(zeros, 9, wbits=31),
        Compression.SNAPPY: snappy.compress(zeros),
        Compression.LZ4: lz4.frame.compress(zeros, block_size=lz4.frame.BLOCKSIZE_MAX4MB),
        Compression.ZSTD: zstandard.ZstdCompressor(write_content_size=False).compress(zeros),
    }


@pytest.mark.parametrize("codec", COMPRESSING)
def test_bomb_is_refused_over_the_limit(codec, bombs):
    with pytest.raises(CorruptRecord, match="limit"):
        decompress(codec, bombs[codec], max_bytes=LIMIT_BYTES)


def test_xerial_bomb_is_refused_over_the_limit():
    framed = compress(Compression.SNAPPY, bytes(4 * LIMIT_BYTES))
    with pytest.raises(CorruptRecord, match="limit"):
        decompress(Compression.SNAPPY, framed, max_bytes=LIMIT_BYTES)


@pytest.mark.parametrize("codec", CODECS)
def test_limit_is_exact(codec):
    data = PAYLOAD[:300_000]
    compressed = compress(codec, data)
    assert decompress(codec, compressed, max_bytes=len(data)) == data
    with pytest.raises(CorruptRecord, match="limit"):
        decompress(codec, compressed, max_bytes=len(data) - 1)


def test_zstd_frame_walker_matches_cramjam_on_raw_and_rle_blocks():
    # Level 1 on zeros makes RLE blocks; random data makes raw blocks.
    for data in (bytes(500_000), os.urandom(300_000)):
        frame = bytes(cramjam.zstd.compress(data, level=1))
        assert decompress(Compression.ZSTD, frame, max_bytes=len(data)) == data
