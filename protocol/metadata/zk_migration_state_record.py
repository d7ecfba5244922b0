# Generated from ZkMigrationRecord.json by protocol/codegen.py — do not edit.
"""ZkMigrationStateRecord: API key 21 metadata, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class ZkMigrationStateRecord(Message):
    schema_name = "ZkMigrationStateRecord"
    api_key = 21
    message_type = "metadata"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    __slots__ = ("zk_migration_state",)
    FIELDS = (
        Field("zk_migration_state", "int8", (0, MAX), default=0),
    )

    def __init__(self, zk_migration_state=0):
        self.zk_migration_state = zk_migration_state


__all__ = ["ZkMigrationStateRecord"]
