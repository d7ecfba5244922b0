# Generated from StreamsGroupDescribeResponse.json by protocol/codegen.py — do not edit.
"""StreamsGroupDescribeResponse: API key 89 response, versions 0, flexible versions 0+."""

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


class Subtopology(Struct):
    __slots__ = ("subtopology_id", "source_topics", "repartition_sink_topics", "state_changelog_topics", "repartition_source_topics",)
    FIELDS = (
        Field("subtopology_id", "string", (0, MAX), default=""),
        Field("source_topics", Array("string"), (0, MAX), default=NEW),
        Field("repartition_sink_topics", Array("string"), (0, MAX), default=NEW),
        Field("state_changelog_topics", Array(TopicInfo), (0, MAX), default=NEW),
        Field("repartition_source_topics", Array(TopicInfo), (0, MAX), default=NEW),
    )

    def __init__(self, subtopology_id="", source_topics=NEW, repartition_sink_topics=NEW, state_changelog_topics=NEW, repartition_source_topics=NEW):
        self.subtopology_id = subtopology_id
        self.source_topics = [] if source_topics is NEW else source_topics
        self.repartition_sink_topics = [] if repartition_sink_topics is NEW else repartition_sink_topics
        self.state_changelog_topics = [] if state_changelog_topics is NEW else state_changelog_topics
        self.repartition_source_topics = [] if repartition_source_topics is NEW else repartition_source_topics


class Topology(Struct):
    __slots__ = ("epoch", "subtopologies",)
    FIELDS = (
        Field("epoch", "int32", (0, MAX), default=0),
        Field("subtopologies", Array(Subtopology), (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, epoch=0, subtopologies=None):
        self.epoch = epoch
        self.subtopologies = subtopologies


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


class TaskIds(Struct):
    __slots__ = ("subtopology_id", "partitions",)
    FIELDS = (
        Field("subtopology_id", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, subtopology_id="", partitions=NEW):
        self.subtopology_id = subtopology_id
        self.partitions = [] if partitions is NEW else partitions


class Assignment(Struct):
    __slots__ = ("active_tasks", "standby_tasks", "warmup_tasks",)
    FIELDS = (
        Field("active_tasks", Array(TaskIds), (0, MAX), default=NEW),
        Field("standby_tasks", Array(TaskIds), (0, MAX), default=NEW),
        Field("warmup_tasks", Array(TaskIds), (0, MAX), default=NEW),
    )

    def __init__(self, active_tasks=NEW, standby_tasks=NEW, warmup_tasks=NEW):
        self.active_tasks = [] if active_tasks is NEW else active_tasks
        self.standby_tasks = [] if standby_tasks is NEW else standby_tasks
        self.warmup_tasks = [] if warmup_tasks is NEW else warmup_tasks


class Member(Struct):
    __slots__ = ("member_id", "member_epoch", "instance_id", "rack_id", "client_id", "client_host", "topology_epoch", "process_id", "user_endpoint", "client_tags", "task_offsets", "task_end_offsets", "assignment", "target_assignment", "is_classic",)
    FIELDS = (
        Field("member_id", "string", (0, MAX), default=""),
        Field("member_epoch", "int32", (0, MAX), default=0),
        Field("instance_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("rack_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("client_id", "string", (0, MAX), default=""),
        Field("client_host", "string", (0, MAX), default=""),
        Field("topology_epoch", "int32", (0, MAX), default=0),
        Field("process_id", "string", (0, MAX), default=""),
        Field("user_endpoint", Endpoint, (0, MAX), nullable_versions=(0, MAX)),
        Field("client_tags", Array(KeyValue), (0, MAX), default=NEW),
        Field("task_offsets", Array(TaskOffset), (0, MAX), default=NEW),
        Field("task_end_offsets", Array(TaskOffset), (0, MAX), default=NEW),
        Field("assignment", Assignment, (0, MAX), default=NEW),
        Field("target_assignment", Assignment, (0, MAX), default=NEW),
        Field("is_classic", "bool", (0, MAX), default=False),
    )

    def __init__(self, member_id="", member_epoch=0, instance_id=None, rack_id=None, client_id="", client_host="", topology_epoch=0, process_id="", user_endpoint=None, client_tags=NEW, task_offsets=NEW, task_end_offsets=NEW, assignment=NEW, target_assignment=NEW, is_classic=False):
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.client_id = client_id
        self.client_host = client_host
        self.topology_epoch = topology_epoch
        self.process_id = process_id
        self.user_endpoint = user_endpoint
        self.client_tags = [] if client_tags is NEW else client_tags
        self.task_offsets = [] if task_offsets is NEW else task_offsets
        self.task_end_offsets = [] if task_end_offsets is NEW else task_end_offsets
        self.assignment = Assignment() if assignment is NEW else assignment
        self.target_assignment = Assignment() if target_assignment is NEW else target_assignment
        self.is_classic = is_classic


class DescribedGroup(Struct):
    __slots__ = ("error_code", "error_message", "group_id", "group_state", "group_epoch", "assignment_epoch", "topology", "members", "authorized_operations",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("group_id", "string", (0, MAX), default=""),
        Field("group_state", "string", (0, MAX), default=""),
        Field("group_epoch", "int32", (0, MAX), default=0),
        Field("assignment_epoch", "int32", (0, MAX), default=0),
        Field("topology", Topology, (0, MAX), nullable_versions=(0, MAX)),
        Field("members", Array(Member), (0, MAX), default=NEW),
        Field("authorized_operations", "int32", (0, MAX), default=-2147483648),
    )

    def __init__(self, error_code=0, error_message=None, group_id="", group_state="", group_epoch=0, assignment_epoch=0, topology=None, members=NEW, authorized_operations=-2147483648):
        self.error_code = error_code
        self.error_message = error_message
        self.group_id = group_id
        self.group_state = group_state
        self.group_epoch = group_epoch
        self.assignment_epoch = assignment_epoch
        self.topology = topology
        self.members = [] if members is NEW else members
        self.authorized_operations = authorized_operations


class StreamsGroupDescribeResponse(Message):
    schema_name = "StreamsGroupDescribeResponse"
    api_key = 89
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    Assignment = Assignment
    DescribedGroup = DescribedGroup
    Endpoint = Endpoint
    KeyValue = KeyValue
    Member = Member
    Subtopology = Subtopology
    TaskIds = TaskIds
    TaskOffset = TaskOffset
    TopicInfo = TopicInfo
    Topology = Topology
    __slots__ = ("throttle_time_ms", "groups",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("groups", Array(DescribedGroup), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, groups=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is NEW else groups


__all__ = ["StreamsGroupDescribeResponse"]
