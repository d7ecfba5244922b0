# Generated from MetadataRequest.json by protocol/codegen.py — do not edit.
"""MetadataRequest: API key 3 request, versions 0-13, flexible versions 9+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class MetadataRequestTopic(Struct):
    __slots__ = ("topic_id", "name",)
    FIELDS = (
        Field("topic_id", "uuid", (10, MAX), default=ZERO_UUID, ignorable=True),
        Field("name", "string", (0, MAX), nullable_versions=(10, MAX), default=""),
    )

    def __init__(self, topic_id=ZERO_UUID, name=""):
        self.topic_id = topic_id
        self.name = name


class MetadataRequest(Message):
    schema_name = "MetadataRequest"
    api_key = 3
    message_type = "request"
    valid_versions = (0, 13)
    flexible_versions = (9, MAX)
    api_listeners = ('broker',)
    MetadataRequestTopic = MetadataRequestTopic
    __slots__ = ("topics", "allow_auto_topic_creation", "include_cluster_authorized_operations", "include_topic_authorized_operations",)
    FIELDS = (
        Field("topics", Array(MetadataRequestTopic), (0, MAX), nullable_versions=(1, MAX), default=NEW),
        Field("allow_auto_topic_creation", "bool", (4, MAX), default=True),
        Field("include_cluster_authorized_operations", "bool", (8, 10), default=False),
        Field("include_topic_authorized_operations", "bool", (8, MAX), default=False),
    )

    def __init__(self, topics=NEW, allow_auto_topic_creation=True, include_cluster_authorized_operations=False, include_topic_authorized_operations=False):
        self.topics = [] if topics is NEW else topics
        self.allow_auto_topic_creation = allow_auto_topic_creation
        self.include_cluster_authorized_operations = include_cluster_authorized_operations
        self.include_topic_authorized_operations = include_topic_authorized_operations


__all__ = ["MetadataRequest"]
