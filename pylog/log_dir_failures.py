"""Failed writes to the log directory: which partitions' appends fail with an I/O error
(ENOSPC, EIO, EFBIG, ...), and which partitions' logs could not be created, each logged
once per partition, not once per request.

An append that fails this way is answered KAFKA_STORAGE_ERROR (56, retriable: clients
retry it) and has changed nothing: the segment cuts back a partial write
(`LogSegment._write_at_end`), and the log's end offset, indexes and producer state move only
after the write succeeded. The partition stays online, and its next append tries the disk
again, so a full disk recovers as soon as space is freed. (Kafka instead takes the whole log
directory offline until the broker restarts, and the controller moves its leaders to other
replicas: with one broker, as in most tests, there is no other replica to move to; see the
README.)

Log lines: the first failure of a partition ("appends to t-0 fail: [Errno 28] No space left
on device; answering KAFKA_STORAGE_ERROR until a write succeeds"), with a summary when the
first partition starts failing and when the last one recovers; the partition's first
success after failures ("appends to t-0 succeed again").

A partition of this broker whose log cannot be created or opened when the metadata names it
(the directory or its files refused: ENOSPC, EMFILE, EACCES, ...) is not hosted: requests
for it are answered KAFKA_STORAGE_ERROR (as Kafka answers for an offline partition,
ReplicaManager's HostedPartition.Offline), and the broker tries to create it again every
second (its housekeeping), so it comes online once the cause is gone. Lines: "cannot
create the log of t-0: ...; answering KAFKA_STORAGE_ERROR for it and trying again every
second", then "the log of t-0 is created".

Owned by the event loop (produce handlers run there); not thread-safe.
"""

from __future__ import annotations

import logging

log = logging.getLogger("pylog.log_dir_failures")


class LogDirFailures:
    def __init__(self, log_dir: str):
        self.log_dir = log_dir
        self.failing: dict[tuple[str, int], str] = {}   # partition -> the error of its first failure
        self.not_created: dict[tuple[str, int], str] = {}   # partition -> the error of its first attempt

    def failed(self, topic: str, partition: int, error: OSError) -> None:
        key = (topic, partition)
        if key in self.failing:
            return
        if not self.failing:
            log.error("log directory %s: writes fail (%s); the partitions that cannot append answer "
                      "KAFKA_STORAGE_ERROR until their writes succeed again", self.log_dir, error)
        self.failing[key] = str(error)
        log.warning("appends to %s-%d fail: %s; answering KAFKA_STORAGE_ERROR until a write succeeds",
                    topic, partition, error)

    def succeeded(self, topic: str, partition: int) -> None:
        if self.failing.pop((topic, partition), None) is None:
            return
        log.warning("appends to %s-%d succeed again", topic, partition)
        if not self.failing:
            log.warning("log directory %s: every partition appends again", self.log_dir)

    def create_failed(self, topic: str, partition: int, error: OSError) -> None:
        key = (topic, partition)
        if key in self.not_created:
            return
        self.not_created[key] = str(error)
        log.warning("cannot create the log of %s-%d: %s; answering KAFKA_STORAGE_ERROR for it and trying "
                    "again every second", topic, partition, error)

    def created(self, topic: str, partition: int) -> None:
        if self.not_created.pop((topic, partition), None) is not None:
            log.warning("the log of %s-%d is created", topic, partition)

    def forget(self, topic: str, partition: int) -> None:
        """The partition is no longer this broker's: nothing to retry."""
        self.not_created.pop((topic, partition), None)

    def forget_topic(self, topic: str) -> None:
        """The topic is deleted."""
        for key in [key for key in self.not_created if key[0] == topic]:
            del self.not_created[key]
