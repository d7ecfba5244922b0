"""Request and response headers, and which header version goes with which message.

A request frame is `int32 size | request header | request body`; a response frame is
`int32 size | response header | response body`. (The size prefix is `framing.py`'s
business; the functions here take and give frame payloads, prefix excluded, except
`encode_response_frame`, which writes the prefix too because it knows the size only
at the end, and whose frame may leave record bytes in their files: protocol/file_range.py.)

    request header  v0  api_key int16, api_version int16, correlation_id int32
                    v1  v0 + client_id (int16-length nullable string, never compact)
                    v2  v1 + tagged fields
    response header v0  correlation_id int32
                    v1  v0 + tagged fields

Which version applies:

- a request uses header v2 when its API version is flexible, v1 otherwise
  (v0 only for ControlledShutdown v0, which a broker here never serves);
- a response uses header v1 when its API version is flexible, v0 otherwise,
  except ApiVersions, whose response header is always v0: a client that sent a
  version the broker does not know must still be able to read the answer (KIP-511).

Flexibility is judged with the schema's open-ended range ("3+"), so a version newer
than the schemas (say ApiVersions v5) still gets its header parsed the way the client
wrote it, and the broker can answer UNSUPPORTED_VERSION with the right correlation id.
"""

from __future__ import annotations

import importlib

from protocol import codec, messages
from protocol.errors import BufferUnderflow, UnknownApiKey, UnsupportedVersion
from protocol.file_range import SplicedFrame
from protocol.messages import RequestHeader, ResponseHeader
from protocol.primitives import INT16, INT32
from protocol.schema import Message, in_versions

API_VERSIONS_KEY = 18
CONTROLLED_SHUTDOWN_KEY = 7


_imported: dict[str, type[Message]] = {}   # class name -> class, its module imported on first use


def _class(table: dict[int, str], api_key: int) -> type[Message]:
    name = table.get(api_key)
    if name is None:
        raise UnknownApiKey(api_key)
    cls = _imported.get(name)
    if cls is None:
        module = importlib.import_module(f"protocol.messages.{messages.MODULES[name]}")
        cls = _imported[name] = getattr(module, name)
    return cls


def request_class(api_key: int) -> type[Message]:
    return _class(messages.REQUESTS, api_key)


def response_class(api_key: int) -> type[Message]:
    return _class(messages.RESPONSES, api_key)


def request_header_version(api_key: int, api_version: int) -> int:
    if api_key == CONTROLLED_SHUTDOWN_KEY and api_version == 0:
        return 0
    return 2 if in_versions(api_version, request_class(api_key).flexible_versions) else 1


def response_header_version(api_key: int, api_version: int) -> int:
    if api_key == API_VERSIONS_KEY:
        return 0
    return 1 if in_versions(api_version, response_class(api_key).flexible_versions) else 0


def peek_request_ids(frame) -> tuple[int, int, int]:
    """(api_key, api_version, correlation_id) from the first 8 bytes of a request frame."""
    if len(frame) < 8:
        raise BufferUnderflow("a request header needs at least 8 bytes")
    api_key, = INT16.unpack_from(frame, 0)
    api_version, = INT16.unpack_from(frame, 2)
    correlation_id, = INT32.unpack_from(frame, 4)
    return api_key, api_version, correlation_id


def decode_request_header(frame) -> tuple[RequestHeader, int]:
    """Parse the request header; return it and the position where the body starts.

    Raises UnknownApiKey for an API key without a schema. An API version outside the
    schema is not checked here (see `decode_request`)."""
    api_key, api_version, _ = peek_request_ids(frame)
    header_version = request_header_version(api_key, api_version)
    return codec.decode_from(RequestHeader, frame, header_version)


def decode_request(frame) -> tuple[RequestHeader, Message]:
    """Parse a whole request frame payload into (header, body).

    Raises UnknownApiKey, UnsupportedVersion (with the header parsed, so the caller
    can answer), or another ProtocolError for malformed bytes."""
    header, position = decode_request_header(frame)
    cls = request_class(header.request_api_key)
    version = header.request_api_version
    low, high = cls.valid_versions
    if not low <= version <= high:
        error = UnsupportedVersion(cls.schema_name, version, cls.valid_versions)
        error.header = header
        raise error
    body = codec.decode(cls, frame, version, position)
    return header, body


def encode_request(header: RequestHeader, body: Message) -> bytearray:
    """Header + body (no size prefix), at the versions the header names."""
    out = bytearray()
    version = header.request_api_version
    codec.encode_into(out, header, request_header_version(header.request_api_key, version))
    codec.encode_into(out, body, version)
    return out


class EncodedBody(bytes):
    """A response body encoded already, at the version of the requests it answers: the
    frame takes its bytes as they are. For an answer that many requests share unchanged."""

    __slots__ = ()


def encode_response_frame(correlation_id: int, api_key: int, api_version: int,
                          body: Message | EncodedBody) -> SplicedFrame:
    """The whole response frame: int32 size, response header, body; records fields that
    hold a `FileRange` are left in their file (protocol/file_range.py)."""
    out = SplicedFrame(4)
    header_version = response_header_version(api_key, api_version)
    out += INT32.pack(correlation_id)
    if header_version == 1:
        out += b"\x00"  # empty tagged-field section
    if type(body) is EncodedBody:
        out += body
    else:
        codec.encode_into(out, body, api_version)
    INT32.pack_into(out, 0, len(out) - 4 + out.spliced_bytes)
    return out


def decode_response(api_key: int, api_version: int, frame) -> tuple[ResponseHeader, Message]:
    """Parse a response frame payload (size prefix excluded), for clients and tests."""
    header, position = codec.decode_from(ResponseHeader, frame, response_header_version(api_key, api_version))
    body = codec.decode(response_class(api_key), frame, api_version, position)
    return header, body
