"""LogManager: every partition log of one data directory (`log.dirs`), and its checkpoints.

    <data dir>/
        .kafka_cleanshutdown                written last by a clean shutdown, removed at start
        recovery-point-offset-checkpoint    per partition: offsets below are on disk
        log-start-offset-checkpoint         per partition: first readable offset, when it is
                                            past the first segment's base offset; written
                                            with the other checkpoints, and at once by
                                            `write_log_start_offsets` (DeleteRecords)
        orders-0/  orders-1/  ...           one Log each (storage/log.py)
        orders-2.9f3c...-delete/            a deleted partition not yet removed
        orders-7.41ab...-stray/             a log the broker does not host, kept aside
        __cluster_metadata-0/               the KRaft metadata log: not opened here (its
                                            owner is the node's controller or metadata
                                            follower, as in Kafka)

Startup (`LogManager.open`): note whether `.kafka_cleanshutdown` exists, read both
checkpoint files (a corrupt one counts as absent: recovery then starts from offset 0,
which is slow but safe), remove leftover `-delete` directories, and open every
`<topic>-<partition>` directory as a Log, recovering it after an unclean stop. Then the
marker is removed: from now on a crash is an unclean stop. The cyclic garbage collector
is paused while the logs are opened: an open makes tens of objects per partition, all
kept, and no garbage cycles, so each collection the allocations would trigger (a full
one scans every object of the process) is work for nothing; reference counting still
frees what is dropped.

Stray logs (Kafka 4's LogManager.loadLog with `isStrayKraftReplica`): the caller's
`is_stray(topic_partition, dir)` says why a partition directory is not one the broker
hosts -- its topic is unknown, its `partition.metadata` names another topic id or none
-- and such a directory is renamed `<topic>-<partition>.<id>-stray` and left there, not
opened, not deleted; one WARNING line says so. Directories already named `-stray` are
left as they are (one WARNING line each, as Kafka's "Loaded stray log").

Shutdown (`close`): fsync and close every log, several at a time on threads of its own
(the broker passes `num.recovery.threads.per.data.dir`, as Kafka's LogManager.shutdown
uses it), write both checkpoints (recovery point = log end offset), and write the
clean-shutdown marker last, whole or not at all (`write_file_atomically`). A crash
anywhere before the marker is durable means the next start recovers.

Rolls leave the fsync of the segments they close pending: each Log tells
`flush_listener` (the broker runs the work on a thread; see "Flush policy" in
storage/log.py), and the recovery points written by the checkpoints move only once that
is done. The broker calls `write_checkpoints` periodically (Kafka's
`log.flush.offset.checkpoint.interval.ms`) and `flush_dirty_logs` / `delete_expired_files`
/ `remove_expired_producers` (every `producer.id.expiration.check.interval.ms`) from its
housekeeping, with the current time.

The entries of the two checkpoint files come in the order Kafka writes them: its LogManager
maps each directory's logs (`map` for the recovery points, a `mutable.HashMap` sized for them;
`collect` for the log start offsets, one grown from 16) and writes the map as it iterates
(`protocol.scala_order.mutable_hash_map_order`), so the files are Kafka's byte for byte.
`replication-offset-checkpoint` (pylog/high_watermarks.py) and `cleaner-offset-checkpoint`
(storage/cleaner/checkpoint.py) list their entries sorted by partition, where Kafka writes a
`mutable.AnyRefMap`'s order (open addressing, which depends on the order its partitions came
in) and an immutable Map's built from the file it read; every reader takes any order.

Creating a partition's log: `create_log` makes its directory and files, `sync_data_dir`
makes the directory's entry durable (one fsync for any number of new logs), and
`adopt_log` makes it one of the manager's logs; `get_or_create_log` does all three.

Concurrency: not thread-safe; the broker calls it from one place and serializes access
to each Log per partition. The exception is `create_log` (with `sync_data_dir`), which
creates files but only reads the manager's state: the broker creates new logs on a thread
of its pool and adopts them on its event loop. `close` spreads the logs over its threads,
one thread per log, and returns once every log is closed.
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import os
import random
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Mapping

from protocol.java_order import topic_partition_hash
from protocol.scala_order import mutable_hash_map_order
from storage import files
from storage.checkpoint import OffsetCheckpointFile, fsync_dir, write_file_atomically
from storage.config import LogConfig
from storage.errors import CorruptCheckpoint
from storage.log import Log
from storage.producer_state import DEFAULT_PRODUCER_ID_EXPIRATION_MS

logger = logging.getLogger("storage.manager")

TopicPartition = tuple[str, int]


class LogManager:
    """The logs of one data directory (see the module docstring).

    Not thread-safe: the broker calls it from one place and serializes access per
    partition.
    """

    def __init__(
        self,
        data_dir: Path,
        default_config: LogConfig,
        topic_configs: Mapping[str, LogConfig] | None,
        *,
        had_clean_shutdown: bool,
        rng: random.Random,
        producer_id_expiration_ms: int = DEFAULT_PRODUCER_ID_EXPIRATION_MS,
        flush_listener: Callable[[Log], None] | None = None,
        file_remover: Callable[[list[Path]], None] | None = None,
    ):
        """Use `LogManager.open`."""
        self.data_dir = Path(data_dir)
        self.default_config = default_config
        self._topic_configs: dict[str, LogConfig] = dict(topic_configs or {})
        self.had_clean_shutdown = had_clean_shutdown
        self._rng = rng
        self.producer_id_expiration_ms = producer_id_expiration_ms
        self.flush_listener = flush_listener
        self.file_remover = file_remover
        self._logs: dict[TopicPartition, Log] = {}
        self._closed = False
        self._recovery_points = OffsetCheckpointFile(self.data_dir / files.RECOVERY_POINT_CHECKPOINT_FILE_NAME)
        self._log_start_offsets = OffsetCheckpointFile(self.data_dir / files.LOG_START_OFFSET_CHECKPOINT_FILE_NAME)

    @classmethod
    def open(
        cls,
        data_dir: Path,
        default_config: LogConfig | None = None,
        *,
        now_ms: int,
        topic_configs: Mapping[str, LogConfig] | None = None,
        rng: random.Random | None = None,
        producer_id_expiration_ms: int = DEFAULT_PRODUCER_ID_EXPIRATION_MS,
        flush_listener: Callable[[Log], None] | None = None,
        file_remover: Callable[[list[Path]], None] | None = None,
        is_stray: Callable[[TopicPartition, Path], str | None] | None = None,
    ) -> LogManager:
        """Open (creating if needed) a data directory and every partition log in it.
        `producer_id_expiration_ms` is the broker's `producer.id.expiration.ms`;
        `flush_listener` and `file_remover` become every log's (see "Flush policy" and
        "Deletion" in storage/log.py);
        `is_stray` returns why a partition directory is a stray log, or None (see the
        module docstring)."""
        data_dir = Path(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        marker = data_dir / files.CLEAN_SHUTDOWN_FILE_NAME
        manager = cls(
            data_dir, default_config or LogConfig(), topic_configs,
            had_clean_shutdown=marker.exists(), rng=rng or random.Random(),
            producer_id_expiration_ms=producer_id_expiration_ms, flush_listener=flush_listener,
            file_remover=file_remover,
        )
        recovery_points = manager._read_checkpoint(manager._recovery_points)
        log_start_offsets = manager._read_checkpoint(manager._log_start_offsets)
        with _cyclic_gc_paused():
            manager._open_logs(now_ms, recovery_points, log_start_offsets, is_stray)
        if marker.exists():
            marker.unlink()
            fsync_dir(data_dir)
        return manager

    def _open_logs(
        self, now_ms: int, recovery_points: Mapping[TopicPartition, int],
        log_start_offsets: Mapping[TopicPartition, int],
        is_stray: Callable[[TopicPartition, Path], str | None] | None,
    ) -> None:
        """Open every partition directory of the data directory (see the module docstring)."""
        for entry in sorted(os.scandir(self.data_dir), key=lambda e: e.name):
            if not entry.is_dir():
                continue
            name = entry.name
            if name == files.METADATA_LOG_DIR_NAME:
                continue   # the metadata log is not a partition the broker hosts (pylog/controller/)
            if name.endswith(files.DELETE_DIR_SUFFIX):
                logger.info("Removing partition directory %s left by an unfinished delete", name)
                files.remove_dir(entry.path)
                continue
            if name.endswith(files.STRAY_DIR_SUFFIX):
                logger.warning("Leaving stray log %s as it is: this broker does not host it", entry.path)
                continue
            if name.endswith(files.FUTURE_DIR_SUFFIX):
                logger.warning("Ignoring directory %s: future logs are not supported", name)
                continue
            try:
                topic_partition = files.parse_log_dir_name(name)
            except ValueError:
                continue
            reason = is_stray(topic_partition, Path(entry.path)) if is_stray is not None else None
            if reason is not None:
                self._move_stray_log(Path(entry.path), topic_partition, reason)
                continue
            self.adopt_log(*topic_partition, Log.open(
                Path(entry.path),
                self.config_for(topic_partition[0]),
                now_ms=now_ms,
                log_start_offset=log_start_offsets.get(topic_partition, 0),
                recovery_point=recovery_points.get(topic_partition, 0),
                had_clean_shutdown=self.had_clean_shutdown,
                rng=self._rng,
                producer_id_expiration_ms=self.producer_id_expiration_ms,
            ))

    def _move_stray_log(self, dir: Path, topic_partition: TopicPartition, reason: str) -> Path:
        stray = self.data_dir / files.log_stray_dir_name(*topic_partition)
        os.replace(dir, stray)
        fsync_dir(self.data_dir)
        logger.warning("Log in %s is stray (%s): renamed to %s and kept there", dir, reason, stray)
        return stray

    def _read_checkpoint(self, checkpoint: OffsetCheckpointFile) -> dict[TopicPartition, int]:
        try:
            return checkpoint.read()
        except CorruptCheckpoint as exc:
            logger.warning("Ignoring %s: %s", checkpoint.path.name, exc)
            return {}

    # -- logs --

    @property
    def logs(self) -> dict[TopicPartition, Log]:
        """(topic, partition) -> Log (a copy of the mapping)."""
        return dict(self._logs)

    def get_log(self, topic: str, partition: int) -> Log | None:
        return self._logs.get((topic, partition))

    def config_for(self, topic: str) -> LogConfig:
        return self._topic_configs.get(topic, self.default_config)

    def set_topic_config(self, topic: str, config: LogConfig | None) -> None:
        """Use `config` for the topic's logs (None: the default config again)."""
        if config is None:
            self._topic_configs.pop(topic, None)
        else:
            self._topic_configs[topic] = config
        for (log_topic, _), log in self._logs.items():
            if log_topic == topic:
                log.update_config(self.config_for(topic))

    def set_default_config(self, config: LogConfig) -> None:
        """Use `config` for the logs of every topic without a config of its own."""
        self.default_config = config
        for (log_topic, _), log in self._logs.items():
            if log_topic not in self._topic_configs:
                log.update_config(config)

    def get_or_create_log(
        self, topic: str, partition: int, *, now_ms: int, config: LogConfig | None = None
    ) -> Log:
        """The log of (topic, partition), created empty if it does not exist. `config`,
        when given, becomes the topic's config."""
        self._check_open()
        if config is not None:
            self.set_topic_config(topic, config)
        log = self._logs.get((topic, partition))
        if log is None:
            log = self.create_log(topic, partition, now_ms=now_ms)
            self.sync_data_dir()
            self.adopt_log(topic, partition, log)
        return log

    def create_log(self, topic: str, partition: int, *, now_ms: int) -> Log:
        """A new, empty log of (topic, partition): its directory and first segment's files
        created, but not yet one of this manager's logs (`adopt_log` makes it one). The
        one method that may run on another thread while the caller goes on: it reads the
        topic's config and changes nothing of the manager. The data directory's entry for
        the new directory is durable only after `sync_data_dir()`."""
        self._check_open()
        return Log.open(
            self.data_dir / files.log_dir_name(topic, partition), self.config_for(topic), now_ms=now_ms,
            had_clean_shutdown=True, rng=self._rng, producer_id_expiration_ms=self.producer_id_expiration_ms,
        )

    def sync_data_dir(self) -> None:
        """fsync the data directory: the directories created since are durable (one call
        after creating many logs)."""
        fsync_dir(self.data_dir)

    def adopt_log(self, topic: str, partition: int, log: Log) -> None:
        """Make `log`, from `create_log`, the log of (topic, partition)."""
        self._check_open()
        if (topic, partition) in self._logs:
            raise ValueError(f"{topic}-{partition} has a log already")
        log.flush_listener = self.flush_listener
        log.file_remover = self.file_remover
        self._logs[(topic, partition)] = log

    def delete_log(self, topic: str, partition: int, *,
                   remove: Callable[[Path], None] = files.remove_dir) -> bool:
        """Remove a partition's log and directory; False if there was none.

        The directory is first renamed `<topic>-<partition>.<id>-delete` (durably): from
        then on the log is deleted, and a crash before its files are gone has the next
        start remove them. `remove(renamed_dir)` removes the files, at once by default (a
        broker hands them to a thread: removing a large log takes a while).
        """
        log = self._logs.pop((topic, partition), None)
        if log is None:
            return False
        log.close_handlers()
        doomed = self.data_dir / f"{log.dir.name}.{uuid.uuid4().hex}{files.DELETE_DIR_SUFFIX}"
        os.replace(log.dir, doomed)
        fsync_dir(self.data_dir)
        remove(doomed)
        return True

    # -- housekeeping --

    def flush_dirty_logs(self, now_ms: int) -> int:
        """Apply `flush.ms` to every log; return how many were flushed."""
        return sum(1 for log in self._logs.values() if log.maybe_flush(now_ms))

    def delete_expired_files(self, now_ms: int) -> int:
        """Remove `.deleted` segment files whose `file.delete.delay.ms` has passed."""
        return sum(log.delete_expired_files(now_ms) for log in self._logs.values())

    def remove_expired_producers(self, now_ms: int) -> int:
        """Forget producers idle for `producer.id.expiration.ms` in every log; return how many."""
        return sum(log.remove_expired_producers(now_ms) for log in self._logs.values())

    def write_checkpoints(self) -> None:
        """Write recovery-point-offset-checkpoint and log-start-offset-checkpoint."""
        self._recovery_points.write(_in_kafkas_order(
            {tp: log.recovery_point for tp, log in self._logs.items()}, size_known=True))
        self.write_log_start_offsets()

    def write_log_start_offsets(self) -> None:
        """Write log-start-offset-checkpoint (fsynced): the broker calls it before it
        acknowledges a DeleteRecords, so that the new log start survives a crash."""
        self._log_start_offsets.write(_in_kafkas_order(
            {
                tp: log.log_start_offset
                for tp, log in self._logs.items()
                if log.log_start_offset > log.segments[0].base_offset
            },
            size_known=False,
        ))

    # -- lifecycle --

    def close(self, *, broker_epoch: int = -1, threads: int = 1) -> None:
        """Clean shutdown: flush and close every log, write the checkpoints, then the
        clean-shutdown marker. The logs are closed `threads` at a time (the broker's
        `num.recovery.threads.per.data.dir`, as Kafka's LogManager.shutdown does): a close
        is mostly fsyncs that wait on the disk, and they overlap (1,000 partitions holding a
        batch each, on this project's 2-core test machine: 10-30% less time with 2 threads
        than with 1). Each log is closed by one thread, and nothing else touches the logs
        meanwhile: this returns once all are."""
        if self._closed:
            return
        logs = list(self._logs.values())
        if threads > 1 and len(logs) > 1:
            with ThreadPoolExecutor(min(threads, len(logs)), thread_name_prefix="log-close") as pool:
                for _ in pool.map(Log.close, logs):
                    pass
        else:
            for log in logs:
                log.close()
        self.write_checkpoints()
        # Kafka's CleanShutdownFileHandler writes compact JSON: {"version":0,"brokerEpoch":N}
        write_file_atomically(self.data_dir / files.CLEAN_SHUTDOWN_FILE_NAME,
                              json.dumps({"version": 0, "brokerEpoch": broker_epoch}, separators=(",", ":")).encode())
        self._closed = True

    def close_handlers(self) -> None:
        """Close every file without flushing, checkpointing or writing the marker: the
        state a crash leaves (for tests)."""
        for log in self._logs.values():
            log.close_handlers()
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"the log manager of {self.data_dir} is closed")


@contextlib.contextmanager
def _cyclic_gc_paused():
    """No cyclic garbage collection inside the block (see "Startup" in the module
    docstring); the collector is back as the caller had it after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _in_kafkas_order(offsets: dict, *, size_known: bool) -> dict:
    """`offsets` by partition, in the order of the Scala `mutable.HashMap` Kafka writes the
    checkpoint from (see the module docstring)."""
    partitions = list(offsets)
    ordered = mutable_hash_map_order(partitions, [topic_partition_hash(topic, index) for topic, index in partitions],
                                     size_known=size_known)
    return {tp: offsets[tp] for tp in ordered}
