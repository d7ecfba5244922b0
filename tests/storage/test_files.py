"""File and directory names of Kafka's layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage import files


def test_segment_file_names():
    assert files.file_name_prefix(42) == "00000000000000000042"
    assert files.log_file_path(Path("d"), 42) == Path("d/00000000000000000042.log")
    assert files.offset_index_file_path(Path("d"), 0, ".swap").name == "00000000000000000000.index.swap"
    assert files.time_index_file_path(Path("d"), 2**63 - 1).name == "09223372036854775807.timeindex"
    with pytest.raises(ValueError):
        files.file_name_prefix(-1)


def test_parsing_names():
    assert files.base_offset_from_file_name("00000000000000001234.log.deleted") == 1234
    with pytest.raises(ValueError):
        files.base_offset_from_file_name("leader-epoch-checkpoint")
    assert files.is_log_file("00000000000000000000.log")
    assert not files.is_log_file("00000000000000000000.log.swap")
    assert files.is_index_file("00000000000000000000.timeindex")
    assert not files.is_index_file("partition.metadata")
    assert files.strip_suffix("1.log.swap", ".swap") == "1.log"


def test_partition_directory_names():
    assert files.log_dir_name("orders", 3) == "orders-3"
    assert files.parse_log_dir_name("my-topic-12") == ("my-topic", 12)
    for bad in ("orders", "orders-", "-3", "orders-x"):
        with pytest.raises(ValueError):
            files.parse_log_dir_name(bad)
