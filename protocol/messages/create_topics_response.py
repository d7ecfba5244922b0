# Generated from CreateTopicsResponse.json by protocol/codegen.py — do not edit.
"""CreateTopicsResponse: API key 19 response, versions 0-7, flexible versions 5+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class CreatableTopicConfigs(Struct):
    __slots__ = ("name", "value", "read_only", "config_source", "is_sensitive",)
    FIELDS = (
        Field("name", "string", (5, MAX), default=""),
        Field("value", "string", (5, MAX), nullable_versions=(5, MAX), default=""),
        Field("read_only", "bool", (5, MAX), default=False),
        Field("config_source", "int8", (5, MAX), default=-1, ignorable=True),
        Field("is_sensitive", "bool", (5, MAX), default=False),
    )

    def __init__(self, name="", value="", read_only=False, config_source=-1, is_sensitive=False):
        self.name = name
        self.value = value
        self.read_only = read_only
        self.config_source = config_source
        self.is_sensitive = is_sensitive


class CreatableTopicResult(Struct):
    __slots__ = ("name", "topic_id", "error_code", "error_message", "topic_config_error_code", "num_partitions", "replication_factor", "configs",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("topic_id", "uuid", (7, MAX), default=ZERO_UUID, ignorable=True),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (1, MAX), nullable_versions=(0, MAX), default="", ignorable=True),
        Field("topic_config_error_code", "int16", (5, MAX), tagged_versions=(5, MAX), tag=0, default=0, ignorable=True),
        Field("num_partitions", "int32", (5, MAX), default=-1, ignorable=True),
        Field("replication_factor", "int16", (5, MAX), default=-1, ignorable=True),
        Field("configs", Array(CreatableTopicConfigs), (5, MAX), nullable_versions=(5, MAX), default=NEW, ignorable=True),
    )

    def __init__(self, name="", topic_id=ZERO_UUID, error_code=0, error_message="", topic_config_error_code=0, num_partitions=-1, replication_factor=-1, configs=NEW):
        self.name = name
        self.topic_id = topic_id
        self.error_code = error_code
        self.error_message = error_message
        self.topic_config_error_code = topic_config_error_code
        self.num_partitions = num_partitions
        self.replication_factor = replication_factor
        self.configs = [] if configs is NEW else configs


class CreateTopicsResponse(Message):
    schema_name = "CreateTopicsResponse"
    api_key = 19
    message_type = "response"
    valid_versions = (0, 7)
    flexible_versions = (5, MAX)
    CreatableTopicConfigs = CreatableTopicConfigs
    CreatableTopicResult = CreatableTopicResult
    __slots__ = ("throttle_time_ms", "topics",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (2, MAX), default=0, ignorable=True),
        Field("topics", Array(CreatableTopicResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, topics=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is NEW else topics


__all__ = ["CreateTopicsResponse"]
