# Generated from UnregisterBrokerRequest.json by protocol/codegen.py — do not edit.
"""UnregisterBrokerRequest: API key 64 request, versions 0, flexible versions 0+."""

from protocol.schema import MAX_VERSION as MAX, NEW, ZERO_UUID, Array, Field, Message, Struct


class UnregisterBrokerRequest(Message):
    schema_name = "UnregisterBrokerRequest"
    api_key = 64
    message_type = "request"
    valid_versions = (0, 0)
    flexible_versions = (0, MAX)
    api_listeners = ('broker', 'controller')
    __slots__ = ("broker_id",)
    FIELDS = (
        Field("broker_id", "int32", (0, MAX), default=0),
    )

    def __init__(self, broker_id=0):
        self.broker_id = broker_id


__all__ = ["UnregisterBrokerRequest"]
