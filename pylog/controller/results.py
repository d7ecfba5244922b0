"""What a controller rule returns, and the record versions it writes.

    ControllerResult(response, records, after_commit=None)

`response` is the message to send back (or, for a periodic task, a plain value: the
fenced broker ids, ...); `records` the metadata records to commit, each as (record,
record version), in order. The caller (the QuorumController) appends all of them as one
batch, lets the image apply them, and only then sends the response. `after_commit`, when
set, is called with the offset of the last record of that batch (with the log end offset
minus one when `records` is empty), as Kafka's `processBatchEndOffset`: the heartbeat rule
uses it to remember where a controlled shutdown started.

Record versions follow Kafka's `MetadataVersion` for the image's `metadata.version`
feature level (None, before the bootstrap records, counts as the latest pylog writes).
Nothing here does I/O; a result is not changed once built.
"""

from __future__ import annotations

from typing import Any, Callable

from protocol.schema import Message

# metadata.version feature levels (Kafka's MetadataVersion) where record formats change
MV_3_4_IV0 = 8      # RegisterBrokerRecord v2 (IsMigratingZkBroker)
MV_3_7_IV2 = 17     # directory assignment: RegisterBrokerRecord v3, PartitionChangeRecord v1
MV_4_0_IV1 = 23     # ELR fields: PartitionChangeRecord v2
LATEST_METADATA_VERSION = 27   # 4.1-IV1, Kafka 4.1's latest production level


class ControllerResult:
    """A request's answer, the records it appends, and what to run once they commit."""

    __slots__ = ("response", "records", "after_commit")

    def __init__(self, response: Any, records: list[tuple[Message, int]] | None = None,
                 after_commit: Callable[[int], None] | None = None):
        self.response = response
        self.records = [] if records is None else records
        self.after_commit = after_commit


def _level(metadata_version: int | None) -> int:
    return LATEST_METADATA_VERSION if metadata_version is None else metadata_version


def directory_assignment_supported(metadata_version: int | None) -> bool:
    return _level(metadata_version) >= MV_3_7_IV2


def partition_change_record_version(metadata_version: int | None) -> int:
    level = _level(metadata_version)
    return 2 if level >= MV_4_0_IV1 else 1 if level >= MV_3_7_IV2 else 0


def register_broker_record_version(metadata_version: int | None) -> int:
    level = _level(metadata_version)
    return 3 if level >= MV_3_7_IV2 else 2 if level >= MV_3_4_IV0 else 1


# BrokerRegistrationChangeRecord: v0 for fencing and unfencing (Kafka writes v0 for both),
# v1 to enter controlled shutdown, v2 for offline directories
FENCING_CHANGE_VERSION = 0
CONTROLLED_SHUTDOWN_CHANGE_VERSION = 1
