"""A broker handler that forwards its request to the controller (pylog/controller_channel.py).

The controller answers; the broker waits for its own metadata to hold what the controller
committed (`Broker.forward`), then returns that answer. When the controller cannot be
reached, `failed(request, error)` builds the request's answer with the error
(REQUEST_TIMED_OUT) for every resource it names.
"""

from __future__ import annotations

from pylog.errors import BrokerError


def forwarding_handler(broker, failed):
    """A handler that sends the request to the controller; `failed(request, error)` builds
    the answer when the controller cannot be reached."""
    async def handle(request, context):
        try:
            return await broker.forward(request, context.api_version)
        except BrokerError as error:
            return failed(request, error)
    return handle
