# Generated from GroupMetadataKey.json by protocol/codegen.py — do not edit.
"""GroupMetadataKey: data, versions 2."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class GroupMetadataKey(Message):
    schema_name = "GroupMetadataKey"
    api_key = None
    message_type = "data"
    valid_versions = (2, 2)
    flexible_versions = None
    __slots__ = ("group",)
    FIELDS = (
        Field("group", "string", (2, 2), default=""),
    )

    def __init__(self, group=""):
        self.group = group


__all__ = ["GroupMetadataKey"]
