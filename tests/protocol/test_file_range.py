"""A records field holding a FileRange: spliced into a response frame, read into anything else."""

from __future__ import annotations

import os

from protocol import codec, headers
from protocol.file_range import FileRange, SplicedFrame
from protocol.messages import FetchResponse
from protocol.records import build_batch


def _fetch_response(records_a, records_b) -> FetchResponse:
    def partition(index, records):
        return FetchResponse.PartitionData(partition_index=index, error_code=0, high_watermark=7,
                                           last_stable_offset=7, log_start_offset=0,
                                           aborted_transactions=None, records=records)
    return FetchResponse(error_code=0, session_id=0, responses=[
        FetchResponse.FetchableTopicResponse(topic="t", partitions=[partition(0, records_a), partition(1, records_b)])])


def test_a_spliced_frame_is_the_frame_of_the_same_bytes(tmp_path):
    batches = [build_batch([(None, b"v%d" % i * 50)], base_offset=i, timestamp_ms=1_000) for i in range(3)]
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(b"".join(batches))
    fd = os.open(path, os.O_RDONLY)
    try:
        first = FileRange(fd, 0, len(batches[0]))
        rest = FileRange(fd, len(batches[0]), len(batches[1]) + len(batches[2]))
        for version in (4, 11, 12, 16):   # classic and compact lengths
            frame = headers.encode_response_frame(5, 1, version, _fetch_response(first, rest))
            expected = headers.encode_response_frame(
                5, 1, version, _fetch_response(batches[0], batches[1] + batches[2]))
            assert type(frame) is SplicedFrame and type(expected) is SplicedFrame
            assert [r for _, r in frame.splices] == [first, rest]
            assert frame.spliced_bytes == sum(len(b) for b in batches)
            assert not expected.splices
            assert frame.whole() == bytes(expected)
            assert len(bytes(frame)) + frame.spliced_bytes == len(expected)
            # into a plain bytearray the ranges are read in
            assert codec.encode(_fetch_response(first, rest), version) == codec.encode(
                _fetch_response(batches[0], batches[1] + batches[2]), version)
    finally:
        os.close(fd)


def test_read_gives_the_range_and_a_short_file_gives_what_it_has(tmp_path):
    path = tmp_path / "segment"
    path.write_bytes(bytes(range(256)) * 4)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert FileRange(fd, 10, 100).read() == (bytes(range(256)) * 4)[10:110]
        assert FileRange(fd, 1000, 100).read() == (bytes(range(256)) * 4)[1000:]
    finally:
        os.close(fd)
