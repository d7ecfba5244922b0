# Generated from CreatePartitionsRequest.json by protocol/codegen.py — do not edit.
"""CreatePartitionsRequest: API key 37 request, versions 0-3, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class CreatePartitionsAssignment(Struct):
    __slots__ = ("broker_ids",)
    FIELDS = (
        Field("broker_ids", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, broker_ids=NEW):
        self.broker_ids = [] if broker_ids is NEW else broker_ids


class CreatePartitionsTopic(Struct):
    __slots__ = ("name", "count", "assignments",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("count", "int32", (0, MAX), default=0),
        Field("assignments", Array(CreatePartitionsAssignment), (0, MAX), nullable_versions=(0, MAX), default=NEW),
    )

    def __init__(self, name="", count=0, assignments=NEW):
        self.name = name
        self.count = count
        self.assignments = [] if assignments is NEW else assignments


class CreatePartitionsRequest(Message):
    schema_name = "CreatePartitionsRequest"
    api_key = 37
    message_type = "request"
    valid_versions = (0, 3)
    flexible_versions = (2, MAX)
    api_listeners = ('broker', 'controller')
    CreatePartitionsAssignment = CreatePartitionsAssignment
    CreatePartitionsTopic = CreatePartitionsTopic
    __slots__ = ("topics", "timeout_ms", "validate_only",)
    FIELDS = (
        Field("topics", Array(CreatePartitionsTopic), (0, MAX), default=NEW),
        Field("timeout_ms", "int32", (0, MAX), default=0),
        Field("validate_only", "bool", (0, MAX), default=False),
    )

    def __init__(self, topics=NEW, timeout_ms=0, validate_only=False):
        self.topics = [] if topics is NEW else topics
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only


__all__ = ["CreatePartitionsRequest"]
