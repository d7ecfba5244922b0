# Generated from FindCoordinatorRequest.json by protocol/codegen.py — do not edit.
"""FindCoordinatorRequest: API key 10 request, versions 0-6, flexible versions 3+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class FindCoordinatorRequest(Message):
    schema_name = "FindCoordinatorRequest"
    api_key = 10
    message_type = "request"
    valid_versions = (0, 6)
    flexible_versions = (3, MAX)
    api_listeners = ('broker',)
    __slots__ = ("key", "key_type", "coordinator_keys",)
    FIELDS = (
        Field("key", "string", (0, 3), default=""),
        Field("key_type", "int8", (1, MAX), default=0),
        Field("coordinator_keys", Array("string"), (4, MAX), default=NEW),
    )

    def __init__(self, key="", key_type=0, coordinator_keys=NEW):
        self.key = key
        self.key_type = key_type
        self.coordinator_keys = [] if coordinator_keys is NEW else coordinator_keys


__all__ = ["FindCoordinatorRequest"]
