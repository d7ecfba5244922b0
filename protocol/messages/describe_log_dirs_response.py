# Generated from DescribeLogDirsResponse.json by protocol/codegen.py — do not edit.
"""DescribeLogDirsResponse: API key 35 response, versions 0-4, flexible versions 2+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class DescribeLogDirsPartition(Struct):
    __slots__ = ("partition_index", "partition_size", "offset_lag", "is_future_key",)
    FIELDS = (
        Field("partition_index", "int32", (0, MAX), default=0),
        Field("partition_size", "int64", (0, MAX), default=0),
        Field("offset_lag", "int64", (0, MAX), default=0),
        Field("is_future_key", "bool", (0, MAX), default=False),
    )

    def __init__(self, partition_index=0, partition_size=0, offset_lag=0, is_future_key=False):
        self.partition_index = partition_index
        self.partition_size = partition_size
        self.offset_lag = offset_lag
        self.is_future_key = is_future_key


class DescribeLogDirsTopic(Struct):
    __slots__ = ("name", "partitions",)
    FIELDS = (
        Field("name", "string", (0, MAX), default=""),
        Field("partitions", Array(DescribeLogDirsPartition), (0, MAX), default=NEW),
    )

    def __init__(self, name="", partitions=NEW):
        self.name = name
        self.partitions = [] if partitions is NEW else partitions


class DescribeLogDirsResult(Struct):
    __slots__ = ("error_code", "log_dir", "topics", "total_bytes", "usable_bytes",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("log_dir", "string", (0, MAX), default=""),
        Field("topics", Array(DescribeLogDirsTopic), (0, MAX), default=NEW),
        Field("total_bytes", "int64", (4, MAX), default=-1, ignorable=True),
        Field("usable_bytes", "int64", (4, MAX), default=-1, ignorable=True),
    )

    def __init__(self, error_code=0, log_dir="", topics=NEW, total_bytes=-1, usable_bytes=-1):
        self.error_code = error_code
        self.log_dir = log_dir
        self.topics = [] if topics is NEW else topics
        self.total_bytes = total_bytes
        self.usable_bytes = usable_bytes


class DescribeLogDirsResponse(Message):
    schema_name = "DescribeLogDirsResponse"
    api_key = 35
    message_type = "response"
    valid_versions = (0, 4)
    flexible_versions = (2, MAX)
    DescribeLogDirsPartition = DescribeLogDirsPartition
    DescribeLogDirsResult = DescribeLogDirsResult
    DescribeLogDirsTopic = DescribeLogDirsTopic
    __slots__ = ("throttle_time_ms", "error_code", "results",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("error_code", "int16", (3, MAX), default=0, ignorable=True),
        Field("results", Array(DescribeLogDirsResult), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, error_code=0, results=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.results = [] if results is NEW else results


__all__ = ["DescribeLogDirsResponse"]
