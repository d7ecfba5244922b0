"""From a request frame to a response frame: header, version check, handler, encoding.

Rules (Kafka's):

- The request header names the API key and version. An API key with no handler, or a
  frame that cannot be parsed, cannot be answered (the client could not match the
  reply): the connection is closed, with one log line (`CloseConnection`).
- ApiVersions at a version the broker does not serve gets the KIP-511 fallback: error
  UNSUPPORTED_VERSION in a **v0** body, listing the ApiVersions range, so the client can
  retry lower. (Response header v0 is used for ApiVersions whatever its version.)
- Any other API at a version outside the advertised range: Kafka closes the connection;
  so does pylog, with a log line naming the API and the range.
- A handler returns the response message, or None for "no response" (Produce with
  acks=0).

A handler may be registered as `OnFirstRequest(module, factory, *args)`: its module is
imported and `factory(*args)` called when the first request for that API arrives, and
the dispatcher keeps what it returns. The broker registers every API but ApiVersions
that way (`pylog/handlers/__init__.py`), so a starting broker does not import the code
of APIs nobody has called yet.

`Dispatcher.handle` is a coroutine because some handlers wait (long-poll Fetch,
acks=all Produce, JoinGroup). The connection calls it for one request at a time, so
responses leave in request order.
"""

from __future__ import annotations

import importlib
import logging
from typing import Awaitable, Callable, NamedTuple

from protocol import headers
from protocol.error_codes import ErrorCode
from protocol.errors import ProtocolError, UnknownApiKey, UnsupportedVersion
from protocol.messages import ApiVersionsResponse, RequestHeader
from protocol.schema import Message

log = logging.getLogger("pylog.dispatch")

API_VERSIONS_KEY = 18


class CloseConnection(Exception):
    """The request cannot be answered; close the connection (the reason is the message)."""


class RequestContext:
    """What a handler knows about the request besides its body."""

    __slots__ = ("header", "api_version", "client_host", "client_port")

    def __init__(self, header: RequestHeader, api_version: int, client_host: str, client_port: int):
        self.header = header
        self.api_version = api_version
        self.client_host = client_host
        self.client_port = client_port

    @property
    def client_id(self) -> str | None:
        return self.header.client_id


Handler = Callable[[Message, RequestContext], Awaitable[Message | None]]


class OnFirstRequest:
    """A handler not made yet: `module.factory(*args)`, called at the first request."""

    __slots__ = ("module", "factory", "args")

    def __init__(self, module: str, factory: str, *args):
        self.module = module
        self.factory = factory
        self.args = args

    def make(self) -> Handler:
        return getattr(importlib.import_module(self.module), self.factory)(*self.args)

    def __repr__(self) -> str:
        return f"OnFirstRequest({self.module}.{self.factory})"


class Api(NamedTuple):
    """A served API: its handler and the versions pylog advertises."""

    key: int
    min_version: int
    max_version: int
    handler: Handler | OnFirstRequest


class Dispatcher:
    def __init__(self, apis: list[Api]):
        self.apis = {api.key: api for api in apis}

    def advertised(self) -> list[tuple[int, int, int]]:
        return sorted((a.key, a.min_version, a.max_version) for a in self.apis.values())

    async def handle(self, frame, client_host: str = "", client_port: int = 0) -> bytearray | None:
        """Answer one request frame payload; return the response frame or None."""
        try:
            header, body = headers.decode_request(frame)
        except UnsupportedVersion as e:
            header = getattr(e, "header", None)
            if header is not None and header.request_api_key == API_VERSIONS_KEY:
                return self.api_versions_fallback(header.correlation_id)
            raise CloseConnection(str(e)) from None
        except UnknownApiKey as e:
            raise CloseConnection(str(e)) from None
        except ProtocolError as e:
            raise CloseConnection(f"malformed request: {e}") from None
        api = self.apis.get(header.request_api_key)
        version = header.request_api_version
        if api is None:
            raise CloseConnection(f"API key {header.request_api_key} is not served by pylog")
        if not api.min_version <= version <= api.max_version:
            if api.key == API_VERSIONS_KEY:
                return self.api_versions_fallback(header.correlation_id)
            raise CloseConnection(
                f"API key {api.key} version {version} is outside the served range "
                f"{api.min_version}-{api.max_version}")
        handler = api.handler
        if type(handler) is OnFirstRequest:
            handler = self.make_handler(api)
        context = RequestContext(header, version, client_host, client_port)
        response = await handler(body, context)
        if response is None:
            return None
        return headers.encode_response_frame(header.correlation_id, api.key, version, response)

    def make_handler(self, api: Api) -> Handler:
        """Make a handler registered as `OnFirstRequest`, and keep it for what follows."""
        handler = api.handler.make()   # (no await: two first requests cannot both make it)
        self.apis[api.key] = api._replace(handler=handler)
        return handler

    def api_versions_fallback(self, correlation_id: int) -> bytearray:
        """KIP-511: UNSUPPORTED_VERSION in a v0 body that lists the ApiVersions range."""
        api = self.apis[API_VERSIONS_KEY]
        body = ApiVersionsResponse(
            error_code=ErrorCode.UNSUPPORTED_VERSION,
            api_keys=[ApiVersionsResponse.ApiVersion(api_key=api.key, min_version=api.min_version,
                                                      max_version=api.max_version)],
        )
        return headers.encode_response_frame(correlation_id, API_VERSIONS_KEY, 0, body)
