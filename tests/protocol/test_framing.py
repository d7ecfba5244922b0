"""FrameReader: any chunking of a stream yields the same frames; bad sizes fail at once."""

from __future__ import annotations

import struct
import sys
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.errors import InvalidFrame, ProtocolError
from protocol.framing import DEFAULT_MAX_FRAME_BYTES, FrameReader, frame, frame_parts

PREFIX = struct.Struct(">i")


def stream_of(payloads: list[bytes]) -> bytes:
    return b"".join(frame(p) for p in payloads)


def read_in_chunks(stream: bytes, cuts: list[int], wrap=bytes, drain_each_feed=True) -> list[bytes]:
    """Feed `stream` cut at `cuts`, collecting frames after every feed or only at the end."""
    reader = FrameReader()
    out: list[bytes] = []
    bounds = [0, *sorted(cuts), len(stream)]
    for start, end in zip(bounds, bounds[1:]):
        reader.feed(wrap(stream[start:end]))
        if drain_each_feed:
            out.extend(reader.frames())
    out.extend(reader.frames())
    assert reader.next_frame() is None
    return [bytes(f) for f in out]


PAYLOADS = [b"", b"a", b"hello", bytes(range(256)) * 3, b"\x00\x00\x00\x04", b"x" * 70_000, b""]


# ---------------------------------------------------------------------------------------
# Framing any chunking


def test_whole_stream_yields_every_frame():
    reader = FrameReader()
    reader.feed(stream_of(PAYLOADS))
    assert list(reader.frames()) == PAYLOADS
    assert reader.next_frame() is None
    assert reader.buffered_bytes == 0


def test_one_byte_at_a_time_yields_the_same_frames():
    stream = stream_of(PAYLOADS)
    assert read_in_chunks(stream, list(range(1, len(stream)))) == PAYLOADS


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview])
@pytest.mark.parametrize("drain_each_feed", [True, False])
def test_input_types_and_draining_styles(wrap, drain_each_feed):
    stream = stream_of(PAYLOADS)
    cuts = list(range(0, len(stream), 997))
    assert read_in_chunks(stream, cuts, wrap, drain_each_feed) == PAYLOADS


@settings(max_examples=300, deadline=None)
@given(
    payloads=st.lists(st.binary(max_size=600), max_size=12)
    | st.lists(st.sampled_from([b"", b"x" * 5000, bytes(range(256)) * 40]), max_size=5),
    data=st.data(),
    wrap=st.sampled_from([bytes, bytearray, memoryview]),
    drain_each_feed=st.booleans(),
)
def test_any_chunking_yields_the_same_frames(payloads, data, wrap, drain_each_feed):
    stream = stream_of(payloads)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=40))
    assert read_in_chunks(stream, cuts, wrap, drain_each_feed) == payloads


@settings(max_examples=100, deadline=None)
@given(payloads=st.lists(st.binary(max_size=300), min_size=1, max_size=8), data=st.data())
def test_one_frame_per_feed_caller(payloads, data):
    """A caller that takes at most one frame after each feed still gets them all, in order."""
    stream = stream_of(payloads)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=20)))
    reader = FrameReader()
    out = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)]):
        reader.feed(stream[start:end])
        if (f := reader.next_frame()) is not None:
            out.append(f)
    out.extend(reader.frames())
    assert out == payloads


def test_zero_length_frame():
    reader = FrameReader()
    reader.feed(b"\x00\x00\x00")
    assert reader.next_frame() is None
    reader.feed(b"\x00")
    assert reader.next_frame() == b""
    assert reader.next_frame() is None
    assert reader.buffered_bytes == 0


def test_frame_split_across_many_feeds():
    payload = bytes(range(256)) * 4096  # 1 MiB
    stream = frame(payload)
    reader = FrameReader()
    chunk = 64 * 1024
    fed = 0
    for start in range(0, len(stream), chunk):
        piece = stream[start : start + chunk]
        reader.feed(piece)
        fed += len(piece)
        if fed < len(stream):
            assert reader.next_frame() is None
            assert reader.buffered_bytes <= fed  # holds what arrived, nothing more
    assert reader.next_frame() == payload
    assert reader.next_frame() is None
    assert reader.buffered_bytes == 0


def test_frame_followed_by_the_next_frames_in_the_same_chunk_as_its_tail():
    big, small = b"B" * 100_000, [b"s1", b"", b"s3" * 10]
    stream = stream_of([big, *small])
    reader = FrameReader()
    reader.feed(stream[:50_000])
    assert reader.next_frame() is None
    reader.feed(stream[50_000:])  # the rest of `big` and all of the small frames
    assert list(reader.frames()) == [big, *small]


def test_fed_buffers_are_copied_so_the_caller_may_reuse_them():
    payload = b"p" * 10_000
    stream = frame(payload)
    scratch = bytearray(4096)  # like a BufferedProtocol's receive buffer
    reader = FrameReader()
    for start in range(0, len(stream), len(scratch)):
        piece = stream[start : start + len(scratch)]
        scratch[: len(piece)] = piece
        reader.feed(memoryview(scratch)[: len(piece)])
        scratch[:] = b"\xee" * len(scratch)  # overwritten by the next receive
    assert reader.next_frame() == payload


# ---------------------------------------------------------------------------------------
# Bad sizes


def test_max_int32_size_fails_with_only_the_prefix_fed():
    reader = FrameReader()
    with pytest.raises(InvalidFrame, match="2147483647"):
        reader.feed(PREFIX.pack(2**31 - 1))
    assert reader.buffered_bytes == 0


def test_bad_prefix_fails_on_its_fourth_byte():
    reader = FrameReader()
    prefix = PREFIX.pack(DEFAULT_MAX_FRAME_BYTES + 1)
    for b in prefix[:3]:
        reader.feed(bytes([b]))
        assert reader.next_frame() is None
    with pytest.raises(InvalidFrame):
        reader.feed(prefix[3:])


@pytest.mark.parametrize("size", [-1, -2, -(2**31)])
def test_negative_size(size):
    reader = FrameReader()
    with pytest.raises(InvalidFrame, match="negative"):
        reader.feed(PREFIX.pack(size) + b"whatever")


def test_size_over_a_custom_maximum():
    reader = FrameReader(max_frame_bytes=10)
    reader.feed(frame(b"0123456789"))
    assert reader.next_frame() == b"0123456789"
    with pytest.raises(InvalidFrame, match="exceeds the maximum of 10"):
        reader.feed(PREFIX.pack(11))


def test_invalid_frame_is_a_protocol_error_and_sticks():
    reader = FrameReader(max_frame_bytes=10)
    with pytest.raises(ProtocolError):
        reader.feed(PREFIX.pack(11))
    with pytest.raises(InvalidFrame):
        reader.next_frame()
    with pytest.raises(InvalidFrame):
        reader.feed(frame(b"ok"))
    with pytest.raises(InvalidFrame):
        list(reader.frames())


def test_frames_before_a_bad_prefix_are_still_returned():
    reader = FrameReader(max_frame_bytes=1000)
    reader.feed(frame(b"first") + frame(b"second") + PREFIX.pack(1001))
    assert reader.next_frame() == b"first"
    assert reader.next_frame() == b"second"
    with pytest.raises(InvalidFrame):
        reader.next_frame()


def test_bad_prefix_right_after_a_frame_collected_in_pieces():
    reader = FrameReader(max_frame_bytes=100_000)
    body = b"b" * 90_000
    stream = frame(body) + PREFIX.pack(-5)
    reader.feed(stream[:10])
    assert reader.next_frame() is None
    reader.feed(stream[10:])
    assert reader.next_frame() == body
    with pytest.raises(InvalidFrame):
        reader.next_frame()


def test_max_frame_bytes_must_fit_an_int32():
    with pytest.raises(ValueError):
        FrameReader(max_frame_bytes=2**31)
    with pytest.raises(ValueError):
        FrameReader(max_frame_bytes=-1)


# ---------------------------------------------------------------------------------------
# Memory


def test_a_claimed_size_allocates_nothing():
    """A peer that announces 100 MiB and sends 10 bytes costs about 10 bytes."""
    reader = FrameReader()
    tracemalloc.start()
    try:
        reader.feed(PREFIX.pack(DEFAULT_MAX_FRAME_BYTES) + b"0123456789")
        assert reader.next_frame() is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024
    assert reader.buffered_bytes == 10


def test_big_bytes_chunks_are_kept_not_copied():
    """Feeding a 1 MiB body in 64 KiB `bytes` chunks stores references: the only big
    allocation is the final payload (a buffer grown by re-copying would hold 1 MiB more)."""
    payload = bytes(range(256)) * 4096
    stream = frame(payload)
    chunks = [stream[i : i + 65536] for i in range(0, len(stream), 65536)]
    reader = FrameReader()
    tracemalloc.start()
    try:
        for chunk in chunks[:-1]:
            reader.feed(chunk)
            assert reader.next_frame() is None
        during, _ = tracemalloc.get_traced_memory()
        reader.feed(chunks[-1])
        result = reader.next_frame()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result == payload
    assert during < 256 * 1024  # only the first chunk's body was copied (out of _buf)
    assert peak < len(payload) + 256 * 1024


def test_buffer_is_released_after_frames_are_consumed():
    big = b"B" * (1 << 20)
    big_frame = frame(big)
    reader = FrameReader()
    burst = stream_of([b"m" * 1000] * 2000)  # ~2 MiB of small frames in one feed
    reader.feed(burst + big_frame[:2])  # and half of the next prefix
    assert sum(1 for _ in reader.frames()) == 2000
    assert reader.buffered_bytes == 2  # only the partial prefix
    assert sys.getsizeof(reader._buf) < 1024  # the burst's capacity was let go

    rest = big_frame[2:]  # the rest of that prefix, then a 1 MiB body in small pieces
    for i in range(0, len(rest), 4096):
        reader.feed(rest[i : i + 4096])
    assert reader.next_frame() == big
    assert reader.next_frame() is None
    assert reader.buffered_bytes == 0
    assert sys.getsizeof(reader._buf) < 1024


def test_one_frame_per_feed_caller_does_not_accumulate_consumed_input():
    """A caller taking one frame per feed, fed a little more than a frame each time: the
    consumed head of the buffer is dropped, so memory follows the unconsumed bytes."""
    payloads = [bytes([i % 256]) * 20_000 for i in range(300)]
    stream = stream_of(payloads)
    step = 20_004 + 1
    reader = FrameReader()
    got: list[bytes] = []
    for start in range(0, len(stream), step):
        reader.feed(stream[start : start + step])
        if (f := reader.next_frame()) is not None:
            got.append(f)
        unconsumed = min(start + step, len(stream)) - sum(len(p) + 4 for p in got)
        assert reader.buffered_bytes <= 2 * unconsumed + 2 * 64 * 1024
    got.extend(reader.frames())
    assert got == payloads


# ---------------------------------------------------------------------------------------
# Writing


def test_frame_prefixes_a_big_endian_int32_size():
    assert frame(b"") == b"\x00\x00\x00\x00"
    assert frame(b"abc") == b"\x00\x00\x00\x03abc"
    assert frame(b"x" * 258)[:4] == b"\x00\x00\x01\x02"
    assert frame(memoryview(b"abc")) == frame(bytearray(b"abc")) == frame(b"abc")


def test_frame_parts_leaves_the_parts_alone():
    body = memoryview(b"records-bytes")
    parts = frame_parts(b"header", body)
    assert parts[0] == PREFIX.pack(len(b"header") + len(body))
    assert parts[2] is body
    assert b"".join(parts) == frame(b"header" + bytes(body))
    assert frame_parts() == [b"\x00\x00\x00\x00"]


def test_frame_round_trips_through_the_reader():
    reader = FrameReader()
    reader.feed(b"".join(frame_parts(b"a", b"b", memoryview(b"c"))) + frame(b"def"))
    assert list(reader.frames()) == [b"abc", b"def"]
