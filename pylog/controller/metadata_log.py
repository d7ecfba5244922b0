"""The metadata log on disk: the `__cluster_metadata-0` partition directory of a controller,
or a broker's copy of it (Kafka's `KafkaMetadataLog` over a `UnifiedLog`).

Where it lives: `<metadata.log.dir>/__cluster_metadata-0/` (`metadata.log.dir`, else the
first of `log.dirs`; `partition_dir`). The directory is an ordinary storage `Log` (the
segments `<offset>.log` / `.index` / `.timeindex`, the producer snapshots, the
`leader-epoch-checkpoint` holding the Raft epochs and their start offsets), plus:

    partition.metadata   "version: 0" / "topic_id: AAAAAAAAAAAAAAAAAAAAAQ" (the topic id of
                         `__cluster_metadata`, Uuid 0...01), no newline after the last line
    quorum-state         Raft's election state, Kafka's JSON (data_version 0, static voters),
                         one line, no newline:
                         {"clusterId":"","leaderId":1,"leaderEpoch":3,"votedId":-1,
                          "appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}

Batches are exactly Kafka's (protocol/metadata_log.py): one data batch per `append`, its
PartitionLeaderEpoch the Raft epoch; control batches for Raft's own records. A controller
starts each term with `start_epoch`: the epoch is one above the larger of quorum-state's and
the log's latest, quorum-state is rewritten first (so a crash never reuses an epoch), then a
LeaderChange control batch (leader, voters, granting voters) opens the epoch at the log end.

Rules:
- offsets are the log's own: an append goes at `log_end_offset`; `append_fetched` (a broker
  copy) keeps the offsets the controller gave, which must continue the copy's end.
- a quorum of one commits on local durability: `append`, `append_control` and
  `append_fetched` fsync the segment and the directory before returning, so everything in
  the log is committed (the high watermark is the log end offset).
- nothing is ever deleted by retention (pylog writes no metadata snapshots yet); only
  `truncate_to` removes batches (a broker copy that diverged from the controller's).

Crash behaviour: the log is opened without trusting a clean shutdown, so every segment is
re-validated and a torn or corrupt tail (a batch half written when the process died) is cut
off; that batch was never acknowledged, since acknowledgement follows the fsync.
quorum-state and partition.metadata are replaced whole (temp file, fsync, rename, directory
fsync).

Concurrency: one owner (the controller's or the broker's event loop) calls every method;
not thread-safe. `wait_for_append` lets coroutines of that loop wait for the log to grow
(a long-polling Fetch).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Iterator

from protocol.messages import LeaderChangeMessage
from protocol.metadata_log import (
    METADATA_PARTITION,
    METADATA_TOPIC,
    METADATA_TOPIC_ID,
    MetadataEntry,
    build_control_batch,
    build_metadata_batch,
    read_metadata_batch,
)
from protocol.records import BatchHeader, iter_batch_headers, validate_batch
from protocol.schema import Message
from pylog.metadata import read_partition_metadata, write_partition_metadata
from storage.checkpoint import write_file_atomically
from storage.config import LogConfig
from storage.log import Log

QUORUM_STATE_FILE = "quorum-state"
QUORUM_STATE_DATA_VERSION = 0       # static voters (controller.quorum.voters), kraft.version 0
# Kafka's KafkaRaftClient.MAX_BATCH_SIZE_BYTES: the largest batch the metadata log takes
MAX_BATCH_SIZE_BYTES = 8 * 1024 * 1024
NO_EPOCH = 0


def partition_dir(metadata_log_dir: Path) -> Path:
    """The `__cluster_metadata-0` directory under a controller's or broker's metadata log dir."""
    return Path(metadata_log_dir) / f"{METADATA_TOPIC}-{METADATA_PARTITION}"


def metadata_log_config() -> LogConfig:
    """The settings Kafka gives its metadata log: 8 MiB batches, no retention."""
    return LogConfig(max_message_bytes=MAX_BATCH_SIZE_BYTES, retention_ms=-1, retention_bytes=-1)


class MetadataLog:
    """The `__cluster_metadata-0` log of one node (see the module docstring)."""

    def __init__(self, log: Log):
        self.log = log
        self.dir = log.dir
        self._quorum_epoch = read_quorum_state(self.dir).get("leaderEpoch", NO_EPOCH)
        self._appended: asyncio.Event | None = None

    @classmethod
    def open(cls, dir: Path, *, now_ms: int) -> MetadataLog:
        """Open (creating if needed) the partition directory `dir` (`partition_dir(...)`):
        every segment is validated and a torn tail cut off; `partition.metadata` is written
        if missing. Read the batches back with `batches()`."""
        dir = Path(dir)
        log = Log.open(dir, metadata_log_config(), now_ms=now_ms, had_clean_shutdown=False)
        if read_partition_metadata(dir) != METADATA_TOPIC_ID:
            write_partition_metadata(dir, METADATA_TOPIC_ID)
        return cls(log)

    def close(self) -> None:
        self.log.close()

    # -- state --

    @property
    def log_end_offset(self) -> int:
        return self.log.log_end_offset

    @property
    def log_start_offset(self) -> int:
        return self.log.log_start_offset

    @property
    def high_watermark(self) -> int:
        """Everything written is committed (see "Rules")."""
        return self.log.log_end_offset

    @property
    def epoch(self) -> int:
        """The current Raft epoch: quorum-state's, or the latest in the log if that is higher
        (a broker copy has no quorum-state of its own); 0 before any."""
        latest = self.log.latest_epoch
        return max(self._quorum_epoch, latest if latest is not None else NO_EPOCH)

    @property
    def is_empty(self) -> bool:
        """True when the log holds no metadata record (control batches aside)."""
        return not any(not header.is_control for header, _ in self.batches())

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int]:
        """(the largest epoch <= `epoch` in the log, where it ended); (-1, -1) if unknown."""
        return self.log.end_offset_for_epoch(epoch)

    # -- writing --

    def start_epoch(self, leader_id: int, voters: list[int], now_ms: int) -> int:
        """Begin this controller's term: bump the epoch in quorum-state, then append the
        LeaderChange control batch. Returns the new epoch."""
        epoch = self.epoch + 1
        write_quorum_state(self.dir, leader_id=leader_id, leader_epoch=epoch, voters=voters)
        self._quorum_epoch = epoch
        granting = [LeaderChangeMessage.Voter(voter_id=v) for v in voters]
        message = LeaderChangeMessage(leader_id=leader_id, voters=list(granting), granting_voters=granting)
        self.append_control(message, now_ms=now_ms)
        return epoch

    def append(self, records: list[tuple[Message, int]], now_ms: int) -> int:
        """Append one data batch of (record, version) at the log end, in the current epoch;
        fsynced before returning. Returns the batch's last offset."""
        batch = build_metadata_batch(records, base_offset=self.log_end_offset, leader_epoch=self.epoch,
                                     append_time_ms=now_ms)
        return self._write(batch, now_ms)

    def append_control(self, message: Message, now_ms: int) -> int:
        """Append one control batch holding `message` (a Raft control record)."""
        batch = build_control_batch([message], base_offset=self.log_end_offset, leader_epoch=self.epoch,
                                    append_time_ms=now_ms)
        return self._write(batch, now_ms)

    def append_fetched(self, batches, now_ms: int) -> int:
        """Append whole batches fetched from the controller, keeping their offsets and epochs
        (a broker's copy). A trailing partial batch is ignored. Returns the new log end
        offset. Raises storage's errors (bad CRC, offsets not continuing the log)."""
        view = memoryview(batches)
        end = 0
        for position, header in iter_batch_headers(view):
            validate_batch(view, position)
            end = position + header.size_bytes
        if end == 0:
            return self.log_end_offset
        self._write(view[:end], now_ms)
        return self.log_end_offset

    def _write(self, batches, now_ms: int) -> int:
        info = self.log.append(batches, now_ms=now_ms, assign_offsets=False)
        self.log.flush(now_ms=now_ms)
        if self._appended is not None:
            self._appended.set()
            self._appended = None
        return info.last_offset

    def truncate_to(self, offset: int, now_ms: int) -> bool:
        """Remove every batch at or after `offset` (whole batches); fsynced. False if there
        was nothing to remove."""
        removed = self.log.truncate_to(offset, now_ms=now_ms)
        if removed:
            self.log.flush(now_ms=now_ms)
        return removed

    # -- reading --

    def read_batches(self, from_offset: int, max_bytes: int) -> bytes:
        """The bytes of the whole batches from the one holding `from_offset`, at most
        `max_bytes` of them but at least one batch; b"" at the log end. Raises storage's
        OffsetOutOfRange outside [log start, log end]."""
        result = self.log.read(from_offset, max_bytes, min_one_batch=True)
        if result.size_bytes == 0:
            return b""
        data = result.read_bytes()
        end = 0
        for position, header in iter_batch_headers(data):
            end = position + header.size_bytes
        return data[:end]

    def batches(self, from_offset: int = 0) -> Iterator[tuple[BatchHeader, list[MetadataEntry]]]:
        """(header, entries) of every batch from the one holding `from_offset` to the end,
        decoded (protocol/metadata_log.py `read_metadata_batch`)."""
        offset = max(from_offset, self.log_start_offset)
        end = self.log_end_offset
        while offset < end:
            data = self.read_batches(offset, 1 << 20)
            if not data:
                return
            for position, _ in iter_batch_headers(data):
                header, entries = read_metadata_batch(data, position)
                offset = header.base_offset + header.last_offset_delta + 1
                yield header, entries

    async def wait_for_append(self, offset: int, timeout_s: float) -> bool:
        """Wait (at most `timeout_s`) until the log end is beyond `offset`; True if it is."""
        if self.log_end_offset > offset:
            return True
        if self._appended is None:
            self._appended = asyncio.Event()
        try:
            async with asyncio.timeout(timeout_s):
                await self._appended.wait()
        except asyncio.TimeoutError:
            pass
        return self.log_end_offset > offset


# ---------------------------------------------------------------------------------------
# quorum-state


def quorum_state_text(*, leader_id: int, leader_epoch: int, voters: list[int]) -> str:
    """quorum-state as Kafka 4.1.1 writes it for an elected leader among static voters."""
    state = {"clusterId": "", "leaderId": leader_id, "leaderEpoch": leader_epoch, "votedId": -1,
             "appliedOffset": 0, "currentVoters": [{"voterId": v} for v in voters],
             "data_version": QUORUM_STATE_DATA_VERSION}
    return json.dumps(state, separators=(",", ":"))


def write_quorum_state(dir: Path, *, leader_id: int, leader_epoch: int, voters: list[int]) -> None:
    text = quorum_state_text(leader_id=leader_id, leader_epoch=leader_epoch, voters=voters)
    write_file_atomically(Path(dir) / QUORUM_STATE_FILE, text.encode("utf-8"))


def read_quorum_state(dir: Path) -> dict:
    """quorum-state's JSON object; {} when the file is missing. A file that is not Kafka's
    JSON raises ValueError."""
    path = Path(dir) / QUORUM_STATE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    state = json.loads(text.splitlines()[0] if text else "")
    if not isinstance(state, dict) or "data_version" not in state:
        raise ValueError(f"{path} is not a quorum-state file: {text!r}")
    return state


__all__ = ["MetadataLog", "partition_dir", "metadata_log_config", "quorum_state_text", "read_quorum_state",
           "write_quorum_state"]
