# Generated from CreateTopicsRequest.json by protocol/codegen.py — do not edit.
"""CreateTopicsRequest: API key 19 request, versions 0-7, flexible versions 5+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class CreatableReplicaAssignment(Struct):
    __slots__ = ("partition_index", "broker_ids",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("broker_ids", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, partition_index=0, broker_ids=NEW):
        self.partition_index = partition_index
        self.broker_ids = [] if broker_ids is NEW else broker_ids


class CreatableTopicConfig(Struct):
    __slots__ = ("name", "value",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("value", "string", (0, MAX), nullable_versions=(0, MAX), default=""),
    )

    def __init__(self, name="", value=""):
        self.name = name
        self.value = value


class CreatableTopic(Struct):
    __slots__ = ("name", "num_partitions", "replication_factor", "assignments", "configs",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("num_partitions", "int32", (0, MAX), default=0),
        Field("replication_factor", "int16", (0, MAX), default=0),
        Field("assignments", Array(CreatableReplicaAssignment), (0, MAX), default=NEW),
        Field("configs", Array(CreatableTopicConfig), (0, MAX), default=NEW),
    )

    def __init__(self, name="", num_partitions=0, replication_factor=0, assignments=NEW, configs=NEW):
        self.name = name
        self.num_partitions = num_partitions
        self.replication_factor = replication_factor
        self.assignments = [] if assignments is NEW else assignments
        self.configs = [] if configs is NEW else configs


class CreateTopicsRequest(Message):
    schema_name = "CreateTopicsRequest"
    api_key = 19
    message_type = "request"
    valid_versions = (0, 7)
    flexible_versions = (5, MAX)
    api_listeners = ('broker', 'controller')
    CreatableReplicaAssignment = CreatableReplicaAssignment
    CreatableTopic = CreatableTopic
    CreatableTopicConfig = CreatableTopicConfig
    __slots__ = ("topics", "timeout_ms", "validate_only",)
    FIELDS = (
        Field("topics", Array(CreatableTopic), (0, MAX), default=NEW),
        Field("timeout_ms", "int32", (0, MAX), default=60000),
        Field("validate_only", "bool", (1, MAX), default=False),
    )

    def __init__(self, topics=NEW, timeout_ms=60000, validate_only=False):
        self.topics = [] if topics is NEW else topics
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only


__all__ = ["CreateTopicsRequest"]
