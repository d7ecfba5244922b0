# Generated from AlterReplicaLogDirsRequest.json by protocol/codegen.py — do not edit.
"""AlterReplicaLogDirsRequest: API key 34 request, versions 0-2, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class AlterReplicaLogDirTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class AlterReplicaLogDir(Struct):
    __slots__ = ("path", "topics",)
    FIELDS = (
        Field("path", "string", (0, MAX), default=""),
        Field("topics", Array(AlterReplicaLogDirTopic), (0, MAX), default=NEW),
    )

    def __init__(self, path="", topics=NEW):
        self.path = path
        self.topics = [] if topics is NEW else topics


class AlterReplicaLogDirsRequest(Message):
    schema_name = "AlterReplicaLogDirsRequest"
    api_key = 34
    message_type = "request"
    valid_versions = (0, 2)
    flexible_versions = (2, MAX)
    api_listeners = ('broker',)
    AlterReplicaLogDir = AlterReplicaLogDir
    AlterReplicaLogDirTopic = AlterReplicaLogDirTopic
    __slots__ = ("dirs",)
    FIELDS = (
        Field("dirs", Array(AlterReplicaLogDir), (0, MAX), default=NEW),
    )

    def __init__(self, dirs=NEW):
        self.dirs = [] if dirs is NEW else dirs


__all__ = ["AlterReplicaLogDirsRequest"]
