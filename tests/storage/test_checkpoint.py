"""Checkpoint files: Kafka's exact text format, atomic replacement, strict parsing."""

from __future__ import annotations

import pytest

from storage.checkpoint import OffsetCheckpointFile, read_checkpoint_file, write_checkpoint_file
from storage.errors import CorruptCheckpoint


def test_offset_checkpoint_format(tmp_path):
    checkpoint = OffsetCheckpointFile(tmp_path / "recovery-point-offset-checkpoint")
    checkpoint.write({("orders", 1): 998, ("orders", 0): 1234, ("my-topic.v2", 10): 0})
    # in the mapping's order: the caller gives Kafka's (storage/manager.py)
    assert checkpoint.path.read_text() == "0\n3\norders 1 998\norders 0 1234\nmy-topic.v2 10 0\n"
    assert checkpoint.read() == {("orders", 1): 998, ("orders", 0): 1234, ("my-topic.v2", 10): 0}
    assert not (tmp_path / "recovery-point-offset-checkpoint.tmp").exists()


def test_missing_and_empty_files_read_as_no_entries(tmp_path):
    assert OffsetCheckpointFile(tmp_path / "absent").read() == {}
    (tmp_path / "empty").write_text("")
    assert OffsetCheckpointFile(tmp_path / "empty").read() == {}
    OffsetCheckpointFile(tmp_path / "none").write({})
    assert (tmp_path / "none").read_text() == "0\n0\n"


def test_create_if_missing_makes_an_empty_file_and_leaves_one_that_exists(tmp_path):
    checkpoint = OffsetCheckpointFile(tmp_path / "cleaner-offset-checkpoint")
    checkpoint.create_if_missing()
    assert checkpoint.path.read_bytes() == b"" and checkpoint.read() == {}
    checkpoint.write({("t", 0): 5})
    checkpoint.create_if_missing()
    assert checkpoint.read() == {("t", 0): 5}


def test_reads_files_written_by_kafka(tmp_path):
    # Kafka writes the same three parts; a trailing newline or its absence both parse.
    (tmp_path / "cp").write_text("0\n2\n__consumer_offsets 7 42\nt 0 5")
    assert OffsetCheckpointFile(tmp_path / "cp").read() == {("__consumer_offsets", 7): 42, ("t", 0): 5}


@pytest.mark.parametrize(
    "text",
    ["1\n0\n", "x\n0\n", "0\ntwo\n", "0\n2\nt 0 5\n", "0\n1\nt 0\n", "0\n1\nt zero 5\n", "0\n1\nt 0 5 6\n"],
)
def test_malformed_files_raise(tmp_path, text):
    (tmp_path / "cp").write_text(text)
    with pytest.raises(CorruptCheckpoint):
        OffsetCheckpointFile(tmp_path / "cp").read()


def test_write_replaces_atomically(tmp_path, monkeypatch):
    path = tmp_path / "cp"
    write_checkpoint_file(path, 0, ["a 0 1"])
    (tmp_path / "cp.tmp").write_text("junk from an earlier crash")

    import os

    def crash(*args):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        write_checkpoint_file(path, 0, ["a 0 2"])
    monkeypatch.undo()
    assert read_checkpoint_file(path, 0) == ["a 0 1"]  # the old file is intact
    write_checkpoint_file(path, 0, ["a 0 3"])
    assert read_checkpoint_file(path, 0) == ["a 0 3"]
