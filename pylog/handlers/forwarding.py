"""A broker handler that forwards its request to the controller (pylog/controller_channel.py).

The controller answers; the broker waits for its own metadata to hold what the controller
committed (`Broker.forward`), then returns that answer. When the controller cannot be
reached, `failed(request, error)` builds the request's answer with the error
(REQUEST_TIMED_OUT) for every resource it names. A request that carries its own deadline
(`with_deadline`: `timeout_ms`) of 0 or less gets REQUEST_TIMED_OUT without a message and
is not forwarded: Kafka's controller finds its deadline past before running it.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode

from pylog.errors import BrokerError


def forwarding_handler(broker, failed, with_deadline: bool = False):
    """A handler that sends the request to the controller; `failed(request, error)` builds
    the answer when the controller cannot be reached, or its deadline has passed."""
    async def handle(request, context):
        if with_deadline and request.timeout_ms <= 0:
            return failed(request, BrokerError(ErrorCode.REQUEST_TIMED_OUT, None))
        try:
            return await broker.forward(request, context.api_version)
        except BrokerError as error:
            return failed(request, error)
    return handle
