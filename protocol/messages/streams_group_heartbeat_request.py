# Generated from StreamsGroupHeartbeatRequest.json by protocol/codegen.py — do not edit.
"""StreamsGroupHeartbeatRequest: API key 88 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class KeyValue(Struct):
    __slots__ = ("key", "value",)
    FIELDS = (
        Field("key", "string", (0, MAX), default=""),
        Field("value", "string", (0, MAX), default=""),
    )

    def __init__(self, key="", value=""):
        self.key = key
        self.value = value


class TopicInfo(Struct):
    __slots__ = ("name", "partitions", "replication_factor", "topic_configs",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", "int32", (0, MAX), default=0),
        Field("replication_factor", "int16", (0, MAX), default=0),
        Field("topic_configs", Array(KeyValue), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=0, replication_factor=0, topic_configs=NEW):
        self.name = name
        self.partitions = partitions
        self.replication_factor = replication_factor
        self.topic_configs = [] if topic_configs is NEW else topic_configs


class CopartitionGroup(Struct):
    __slots__ = ("source_topics", "source_topic_regex", "repartition_source_topics",)
    FIELDS = (
        Field("source_topics", Array("int16"), (0, MAX), default=NEW),
        Field("source_topic_regex", Array("int16"), (0, MAX), default=NEW),
        Field("repartition_source_topics", Array("int16"), (0, MAX), default=NEW),
    )

    def __init__(self, source_topics=NEW, source_topic_regex=NEW, repartition_source_topics=NEW):
        self.source_topics = [] if source_topics is NEW else source_topics
        self.source_topic_regex = [] if source_topic_regex is NEW else source_topic_regex
        self.repartition_source_topics = [] if repartition_source_topics is NEW else repartition_source_topics


class Subtopology(Struct):
    __slots__ = ("subtopology_id", "source_topics", "source_topic_regex", "state_changelog_topics", "repartition_sink_topics", "repartition_source_topics", "copartition_groups",)
    FIELDS = (
        Field("subtopology_id", "string", (0, MAX), default=""),
        Field("source_topics", Array("string"), (0, MAX), default=NEW),
        Field("source_topic_regex", Array("string"), (0, MAX), default=NEW),
        Field("state_changelog_topics", Array(TopicInfo), (0, MAX), default=NEW),
        Field("repartition_sink_topics", Array("string"), (0, MAX), default=NEW),
        Field("repartition_source_topics", Array(TopicInfo), (0, MAX), default=NEW),
        Field("copartition_groups", Array(CopartitionGroup), (0, MAX), default=NEW),
    )

    def __init__(self, subtopology_id="", source_topics=NEW, source_topic_regex=NEW, state_changelog_topics=NEW, repartition_sink_topics=NEW, repartition_source_topics=NEW, copartition_groups=NEW):
        self.subtopology_id = subtopology_id
        self.source_topics = [] if source_topics is NEW else source_topics
        self.source_topic_regex = [] if source_topic_regex is NEW else source_topic_regex
        self.state_changelog_topics = [] if state_changelog_topics is NEW else state_changelog_topics
        self.repartition_sink_topics = [] if repartition_sink_topics is NEW else repartition_sink_topics
        self.repartition_source_topics = [] if repartition_source_topics is NEW else repartition_source_topics
        self.copartition_groups = [] if copartition_groups is NEW else copartition_groups


class Topology(Struct):
    __slots__ = ("epoch", "subtopologies",)
    FIELDS = (
        Field("epoch", "int32", (0, MAX), default=0),
        Field("subtopologies", Array(Subtopology), (0, MAX), default=NEW),
    )

    def __init__(self, epoch=0, subtopologies=NEW):
        self.epoch = epoch
        self.subtopologies = [] if subtopologies is NEW else subtopologies


class TaskIds(Struct):
    __slots__ = ("subtopology_id", "partitions",)
    FIELDS = (
        Field("subtopology_id", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, subtopology_id="", partitions=NEW):
        self.subtopology_id = subtopology_id
        self.partitions = [] if partitions is NEW else partitions


class Endpoint(Struct):
    __slots__ = ("host", "port",)
    FIELDS = (
        Field("host", "string", (0, MAX), default=""),
        Field("port", "uint16", (0, MAX), default=0),
    )

    def __init__(self, host="", port=0):
        self.host = host
        self.port = port


class TaskOffset(Struct):
    __slots__ = ("subtopology_id", "partition", "offset",)
    FIELDS = (
        Field("subtopology_id", "string", (0, MAX), default=""),
        Field("partition", "int32", (0, MAX), default=0),
        Field("offset", "int64", (0, MAX), default=0),
    )

    def __init__(self, subtopology_id="", partition=0, offset=0):
        self.subtopology_id = subtopology_id
        self.partition = partition
        self.offset = offset


class StreamsGroupHeartbeatRequest(Message):
    schema_name = "StreamsGroupHeartbeatRequest"
    api_key = 88
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    latest_version_unstable = True
    api_listeners = ('broker',)
    CopartitionGroup = CopartitionGroup
    Endpoint = Endpoint
    KeyValue = KeyValue
    Subtopology = Subtopology
    TaskIds = TaskIds
    TaskOffset = TaskOffset
    TopicInfo = TopicInfo
    Topology = Topology
    __slots__ = ("group_id", "member_id", "member_epoch", "endpoint_information_epoch", "instance_id", "rack_id", "rebalance_timeout_ms", "topology", "active_tasks", "standby_tasks", "warmup_tasks", "process_id", "user_endpoint", "client_tags", "task_offsets", "task_end_offsets", "shutdown_application",)
    FIELDS = (
        Field("group_id", "string", (0, MAX), default=""),
        Field("member_id", "string", (0, MAX), default=""),
        Field("member_epoch", "int32", (0, MAX), default=0),
        Field("endpoint_information_epoch", "int32", (0, MAX), default=0),
        Field("instance_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("rack_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("rebalance_timeout_ms", "int32", (0, MAX), default=-1),
        Field("topology", Topology, (0, MAX), nullable_versions=(0, MAX)),
        Field("active_tasks", Array(TaskIds), (0, MAX), nullable_versions=(0, MAX)),
        Field("standby_tasks", Array(TaskIds), (0, MAX), nullable_versions=(0, MAX)),
        Field("warmup_tasks", Array(TaskIds), (0, MAX), nullable_versions=(0, MAX)),
        Field("process_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("user_endpoint", Endpoint, (0, MAX), nullable_versions=(0, MAX)),
        Field("client_tags", Array(KeyValue), (0, MAX), nullable_versions=(0, MAX)),
        Field("task_offsets", Array(TaskOffset), (0, MAX), nullable_versions=(0, MAX)),
        Field("task_end_offsets", Array(TaskOffset), (0, MAX), nullable_versions=(0, MAX)),
        Field("shutdown_application", "bool", (0, MAX), default=False),
    )

    def __init__(self, group_id="", member_id="", member_epoch=0, endpoint_information_epoch=0, instance_id=None, rack_id=None, rebalance_timeout_ms=-1, topology=None, active_tasks=None, standby_tasks=None, warmup_tasks=None, process_id=None, user_endpoint=None, client_tags=None, task_offsets=None, task_end_offsets=None, shutdown_application=False):
        self.group_id = group_id
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.endpoint_information_epoch = endpoint_information_epoch
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.topology = topology
        self.active_tasks = active_tasks
        self.standby_tasks = standby_tasks
        self.warmup_tasks = warmup_tasks
        self.process_id = process_id
        self.user_endpoint = user_endpoint
        self.client_tags = client_tags
        self.task_offsets = task_offsets
        self.task_end_offsets = task_end_offsets
        self.shutdown_application = shutdown_application


__all__ = ["StreamsGroupHeartbeatRequest"]
