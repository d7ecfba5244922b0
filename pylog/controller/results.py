"""ControllerResult: what a controller rule returns, the answer and the metadata records
that make it true.

A rule is a pure function of the MetadataImage and the request. The QuorumController
appends `records` as one batch (each a record of `protocol.metadata` with the version to
write it in) and sends `response` once that batch is committed; a rule that changes
nothing returns no records. Immutable; nothing to serialize.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.schema import Message


@dataclass(frozen=True)
class ControllerResult:
    response: Message
    records: list[tuple[Message, int]] = field(default_factory=list)
