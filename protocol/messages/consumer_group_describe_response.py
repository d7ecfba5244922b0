# Generated from ConsumerGroupDescribeResponse.json by protocol/codegen.py — do not edit.
"""ConsumerGroupDescribeResponse: API key 69 response, versions 0-1, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class TopicPartitions(Struct):
    __slots__ = ("topic_id", "topic_name", "partitions",)
    FIELDS = (
        Field("topic_id", "uuid", (0, MAX), default=ZERO_UUID),
        Field("topic_name", "string", (0, MAX), default=""),
        Field("partitions", Array("int32"), (0, MAX), default=NEW),
    )

    def __init__(self, topic_id=ZERO_UUID, topic_name="", partitions=NEW):
        self.topic_id = topic_id
        self.topic_name = topic_name
        self.partitions = [] if partitions is NEW else partitions


class Assignment(Struct):
    __slots__ = ("topic_partitions",)
    FIELDS = (
        Field("topic_partitions", Array(TopicPartitions), (0, MAX), default=NEW),
    )

    def __init__(self, topic_partitions=NEW):
        self.topic_partitions = [] if topic_partitions is NEW else topic_partitions


class Member(Struct):
    __slots__ = ("member_id", "instance_id", "rack_id", "member_epoch", "client_id", "client_host", "subscribed_topic_names", "subscribed_topic_regex", "assignment", "target_assignment", "member_type",)
    FIELDS = (
        Field("member_id", "string", (0, MAX), default=""),
        Field("instance_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("rack_id", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("member_epoch", "int32", (0, MAX), default=0),
        Field("client_id", "string", (0, MAX), default=""),
        Field("client_host", "string", (0, MAX), default=""),
        Field("subscribed_topic_names", Array("string"), (0, MAX), default=NEW),
        Field("subscribed_topic_regex", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("assignment", Assignment, (0, MAX), default=NEW),
        Field("target_assignment", Assignment, (0, MAX), default=NEW),
        Field("member_type", "int8", (1, MAX), default=-1, ignorable=True),
    )

    def __init__(self, member_id="", instance_id=None, rack_id=None, member_epoch=0, client_id="", client_host="", subscribed_topic_names=NEW, subscribed_topic_regex=None, assignment=NEW, target_assignment=NEW, member_type=-1):
        self.member_id = member_id
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.member_epoch = member_epoch
        self.client_id = client_id
        self.client_host = client_host
        self.subscribed_topic_names = [] if subscribed_topic_names is NEW else subscribed_topic_names
        self.subscribed_topic_regex = subscribed_topic_regex
        self.assignment = Assignment() if assignment is NEW else assignment
        self.target_assignment = Assignment() if target_assignment is NEW else target_assignment
        self.member_type = member_type


class DescribedGroup(Struct):
    __slots__ = ("error_code", "error_message", "group_id", "group_state", "group_epoch", "assignment_epoch", "assignor_name", "members", "authorized_operations",)
    FIELDS = (
        Field("error_code", "int16", (0, MAX), default=0),
        Field("error_message", "string", (0, MAX), nullable_versions=(0, MAX)),
        Field("group_id", "string", (0, MAX), default=""),
        Field("group_state", "string", (0, MAX), default=""),
        Field("group_epoch", "int32", (0, MAX), default=0),
        Field("assignment_epoch", "int32", (0, MAX), default=0),
        Field("assignor_name", "string", (0, MAX), default=""),
        Field("members", Array(Member), (0, MAX), default=NEW),
        Field("authorized_operations", "int32", (0, MAX), default=-2147483648),
    )

    def __init__(self, error_code=0, error_message=None, group_id="", group_state="", group_epoch=0, assignment_epoch=0, assignor_name="", members=NEW, authorized_operations=-2147483648):
        self.error_code = error_code
        self.error_message = error_message
        self.group_id = group_id
        self.group_state = group_state
        self.group_epoch = group_epoch
        self.assignment_epoch = assignment_epoch
        self.assignor_name = assignor_name
        self.members = [] if members is NEW else members
        self.authorized_operations = authorized_operations


class ConsumerGroupDescribeResponse(Message):
    schema_name = "ConsumerGroupDescribeResponse"
    api_key = 69
    message_type = "response"
    valid_versions = (0, 1)
    flexible_versions = (0, MAX)
    Assignment = Assignment
    DescribedGroup = DescribedGroup
    Member = Member
    TopicPartitions = TopicPartitions
    __slots__ = ("throttle_time_ms", "groups",)
    FIELDS = (
        Field("throttle_time_ms", "int32", (0, MAX), default=0),
        Field("groups", Array(DescribedGroup), (0, MAX), default=NEW),
    )

    def __init__(self, throttle_time_ms=0, groups=NEW):
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is NEW else groups


__all__ = ["ConsumerGroupDescribeResponse"]
