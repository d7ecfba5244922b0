# Generated from PartitionRecord.json by protocol/codegen.py — do not edit.
"""PartitionRecord: API key 3 metadata, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionRecord(Message):
    schema_name = "PartitionRecord"
    api_key = 3
    message_type = "metadata"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    __slots__ = ("partition_id", "topic_id", "replicas", "isr", "removing_replicas", "adding_replicas", "leader", "leader_recovery_state", "leader_epoch", "partition_epoch", "directories", "eligible_leader_replicas", "last_known_elr",)
    FIELDS = (
        Field("partition_id", "int32", (0, MAX), default=-1),
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("replicas", Array("int32"), (0, MAX), default=NEW),
        Field("isr", Array("int32"), (0, MAX), default=NEW),
        Field("removing_replicas", Array("int32"), (0, MAX), default=NEW),
        Field("adding_replicas", Array("int32"), (0, MAX), default=NEW),
        Field("leader", "int32", (0, MAX), default=-1),
        Field("leader_recovery_state", "int8", (0, MAX), tagged_versions=(0, MAX), tag=0, default=0),
        Field("leader_epoch", "int32", (0, MAX), default=-1),
        Field("partition_epoch", "int32", (0, MAX), default=-1),
        Field("directories", Array("uuid"), (1, MAX), default=NEW),
        Field("eligible_leader_replicas", Array("int32"), (2, MAX), nullable_versions=(2, MAX), tagged_versions=(2, MAX), tag=1),
        Field("last_known_elr", Array("int32"), (2, MAX), nullable_versions=(2, MAX), tagged_versions=(2, MAX), tag=2),
    )

    def __init__(self, partition_id=-1, topic_id=ZERO_UUID, replicas=NEW, isr=NEW, removing_replicas=NEW, adding_replicas=NEW, leader=-1, leader_recovery_state=0, leader_epoch=-1, partition_epoch=-1, directories=NEW, eligible_leader_replicas=None, last_known_elr=None):
        self.partition_id = partition_id
        self.topic_id = topic_id
        self.replicas = [] if replicas is NEW else replicas
        self.isr = [] if isr is NEW else isr
        self.removing_replicas = [] if removing_replicas is NEW else removing_replicas
        self.adding_replicas = [] if adding_replicas is NEW else adding_replicas
        self.leader = leader
        self.leader_recovery_state = leader_recovery_state
        self.leader_epoch = leader_epoch
        self.partition_epoch = partition_epoch
        self.directories = [] if directories is NEW else directories
        self.eligible_leader_replicas = eligible_leader_replicas
        self.last_known_elr = last_known_elr


__all__ = ["PartitionRecord"]
