# Generated from StreamsGroupHeartbeatResponse.json by protocol/codegen.py — do not edit.
"""StreamsGroupHeartbeatResponse: API key 88 response, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class Status(Struct):
    __slots__ = ("status_code", "status_detail",)
    FIELDS = (
        Field("status_code", "int8", (0, MAX), default=0),
        Field("status_detail", "string", (0, MAX), default=""),
    )

    def __init__(self, status_code=0, status_detail=""):
        self.status_code = status_code
        self.status_detail = status_detail


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


class TopicPartition(Struct):
    __slots__ = ("topic", "partitions",)
    FIELDS = (
        Field("topic", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic="", partitions=NEW):
        self.topic = topic
        self.partitions = [] if partitions is NEW else partitions


class EndpointToPartitions(Struct):
    __slots__ = ("user_endpoint", "active_partitions", "standby_partitions",)
    FIELDS = (
        Field("user_endpoint", Endpoint, (0, MAX), default=NEW),
        Field("active_partitions", Array(TopicPartition), (0, MAX), default=NEW),
        Field("standby_partitions", Array(TopicPartition), (0, MAX), default=NEW),
    )

    def __init__(self, user_endpoint=NEW, active_partitions=NEW, standby_partitions=NEW):
        self.user_endpoint = Endpoint() if user_endpoint is NEW else user_endpoint
        self.active_partitions = [] if active_partitions is NEW else active_partitions
        self.standby_partitions = [] if standby_partitions is NEW else standby_partitions


class StreamsGroupHeartbeatResponse(Message):
    schema_name = "StreamsGroupHeartbeatResponse"
    api_key = 88
    message_type = "response"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    Endpoint = Endpoint
    EndpointToPartitions = EndpointToPartitions
    Status = Status
    TaskIds = TaskIds
    TopicPartition = TopicPartition
    __slots__ = ("throttle_time_ms", "error_code", "error_message", "member_id", "member_epoch", "heartbeat_interval_ms", "acceptable_recovery_lag", "task_offset_interval_ms", "status", "active_tasks", "standby_tasks", "warmup_tasks", "endpoint_information_epoch", "partitions_by_user_endpoint",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("member_id", "string", (0, MAX), default=""),
        Field("member_epoch", "int32", (0, MAX), default=0),
        Field("heartbeat_interval_ms", "int32", (0, MAX), default=0),
        Field("acceptable_recovery_lag", "int32", (0, MAX), default=0),
        Field("task_offset_interval_ms", "int32", (0, MAX), default=0),
        Field("status", Array(Status), (0, MAX), nullable_versions=(0, MAX)),
        Field("active_tasks", Array(TaskIds), (0, MAX), nullable_versions=(0, MAX)),
        Field("standby_tasks", Array(TaskIds), (0, MAX), nullable_versions=(0, MAX)),
        Field("warmup_tasks", Array(TaskIds), (0, MAX), nullable_versions=(0, MAX)),
        Field("endpoint_information_epoch", "int32", (0, MAX), default=0),
        Field("partitions_by_user_endpoint", Array(EndpointToPartitions), (0, MAX), nullable_versions=(0, MAX)),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, error_message=None, member_id="", member_epoch=0, heartbeat_interval_ms=0, acceptable_recovery_lag=0, task_offset_interval_ms=0, status=None, active_tasks=None, standby_tasks=None, warmup_tasks=None, endpoint_information_epoch=0, partitions_by_user_endpoint=None):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.acceptable_recovery_lag = acceptable_recovery_lag
        self.task_offset_interval_ms = task_offset_interval_ms
        self.status = status
        self.active_tasks = active_tasks
        self.standby_tasks = standby_tasks
        self.warmup_tasks = warmup_tasks
        self.endpoint_information_epoch = endpoint_information_epoch
        self.partitions_by_user_endpoint = partitions_by_user_endpoint


__all__ = ["StreamsGroupHeartbeatResponse"]
