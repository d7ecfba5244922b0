"""ApiVersions (key 18): which APIs and versions this broker serves.

Clients send it first on every connection and pick, per API, the highest version both
sides know. The answer lists the dispatcher's table. A version the broker does not serve
never reaches this handler: the dispatcher answers it with the KIP-511 fallback.
"""

from __future__ import annotations

from protocol.messages import ApiVersionsResponse
from pylog.dispatch import Dispatcher, RequestContext


def make_handler(dispatcher: Dispatcher):
    async def handle(request, context: RequestContext) -> ApiVersionsResponse:
        return ApiVersionsResponse(
            error_code=0,
            api_keys=[ApiVersionsResponse.ApiVersion(api_key=key, min_version=low, max_version=high)
                      for key, low, high in dispatcher.advertised()],
        )

    return handle
