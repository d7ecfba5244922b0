"""Exceptions raised by the codec for malformed or unsupported input.

Every decoding failure in `protocol/` is one of these, so a caller (the broker's
connection loop, a fuzz test) can catch `ProtocolError` and know that nothing else
escapes. The Kafka error-code table (what goes back to a client in a response)
lives in `protocol/error_codes.py`; the broker maps these exceptions to codes.

    ProtocolError
    ├── BufferUnderflow        the bytes end before the value does (truncated input)
    ├── InvalidVarint          a varint runs past 5 (varint) or 10 (varlong) bytes
    ├── InvalidLength          a negative length where null is not allowed, or a
    │                          length / count larger than the bytes that remain
    ├── InvalidFrame           a frame size prefix that is negative or over the limit
    ├── UnknownApiKey          a request header names an API key pylog has no schema for
    ├── UnsupportedVersion     a version outside the message's valid versions
    └── InvalidRecord          a record batch that breaks the batch format
        ├── CorruptRecord      length or CRC-32C does not check out
        └── UnsupportedMagic   magic 0 or 1 (legacy message sets), or anything but 2
"""


class ProtocolError(Exception):
    """Base class: the input does not follow Kafka's wire format."""


class BufferUnderflow(ProtocolError):
    """The input ended before the value being read was complete."""


class InvalidVarint(ProtocolError):
    """A variable-length integer is longer than its type allows."""


class InvalidLength(ProtocolError):
    """A length or element count is negative where not allowed, or exceeds the input."""


class InvalidFrame(ProtocolError):
    """A frame's int32 size prefix is negative or larger than the configured maximum."""


class UnknownApiKey(ProtocolError):
    """A request names an API key for which no message schema exists."""

    def __init__(self, api_key: int):
        super().__init__(f"unknown API key {api_key}")
        self.api_key = api_key


class UnsupportedVersion(ProtocolError):
    """A message version outside the versions its schema defines."""

    def __init__(self, name: str, version: int, valid: tuple[int, int]):
        super().__init__(f"{name} has no version {version} (valid {valid[0]}-{valid[1]})")
        self.name = name
        self.version = version
        self.valid = valid


class InvalidRecord(ProtocolError):
    """A record batch breaks the format (bad lengths, counts, attributes)."""


class CorruptRecord(InvalidRecord):
    """A record batch whose size or CRC-32C does not match its bytes."""


class UnsupportedMagic(InvalidRecord):
    """A record batch with a magic byte other than 2 (legacy v0/v1 message sets)."""

    def __init__(self, magic: int):
        super().__init__(
            f"record batch magic {magic} is not supported: only magic 2 record batches "
            "(Produce v3+) are accepted"
        )
        self.magic = magic
