# Generated from PartitionChangeRecord.json by protocol/codegen.py — do not edit.
"""PartitionChangeRecord: API key 5 metadata, versions 0-2, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class PartitionChangeRecord(Message):
    schema_name = "PartitionChangeRecord"
    api_key = 5
    message_type = "metadata"
    valid_versions = (0, 2)
    flexible_versions = (0, MAX)
    __slots__ = ("partition_id", "topic_id", "isr", "leader", "replicas", "removing_replicas", "adding_replicas", "leader_recovery_state", "directories", "eligible_leader_replicas", "last_known_elr",)
    FIELDS = (
        Field("partition_id", "int32", (0, MAX), default=-1),
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("isr", Array("int32"), (0, MAX), nullable_versions=(0, MAX), tagged_versions=(0, MAX), tag=0),
        Field("leader", "int32", (0, MAX), tagged_versions=(0, MAX), tag=1, default=-2),
        Field("replicas", Array("int32"), (0, MAX), nullable_versions=(0, MAX), tagged_versions=(0, MAX), tag=2),
        Field("removing_replicas", Array("int32"), (0, MAX), nullable_versions=(0, MAX), tagged_versions=(0, MAX), tag=3),
        Field("adding_replicas", Array("int32"), (0, MAX), nullable_versions=(0, MAX), tagged_versions=(0, MAX), tag=4),
        Field("leader_recovery_state", "int8", (0, MAX), tagged_versions=(0, MAX), tag=5, default=-1),
        Field("directories", Array("uuid"), (1, MAX), nullable_versions=(1, MAX), tagged_versions=(1, MAX), tag=8),
        Field("eligible_leader_replicas", Array("int32"), (2, MAX), nullable_versions=(2, MAX), tagged_versions=(2, MAX), tag=6),
        Field("last_known_elr", Array("int32"), (2, MAX), nullable_versions=(2, MAX), tagged_versions=(2, MAX), tag=7),
    )

    def __init__(self, partition_id=-1, topic_id=ZERO_UUID, isr=None, leader=-2, replicas=None, removing_replicas=None, adding_replicas=None, leader_recovery_state=-1, directories=None, eligible_leader_replicas=None, last_known_elr=None):
        self.partition_id = partition_id
        self.topic_id = topic_id
        self.isr = isr
        self.leader = leader
        self.replicas = replicas
        self.removing_replicas = removing_replicas
        self.adding_replicas = adding_replicas
        self.leader_recovery_state = leader_recovery_state
        self.directories = directories
        self.eligible_leader_replicas = eligible_leader_replicas
        self.last_known_elr = last_known_elr


__all__ = ["PartitionChangeRecord"]
