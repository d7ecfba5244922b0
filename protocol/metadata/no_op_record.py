# Generated from NoOpRecord.json by protocol/codegen.py — do not edit.
"""NoOpRecord: API key 20 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class NoOpRecord(Message):
    schema_name = "NoOpRecord"
    api_key = 20
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ()
    FIELDS = ()

    def __init__(self):
        pass


__all__ = ["NoOpRecord"]
