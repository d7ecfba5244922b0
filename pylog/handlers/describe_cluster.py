"""DescribeCluster (key 60): the cluster id, the brokers and who to call the controller.

As Kafka's KafkaApis.handleDescribeCluster and AuthHelper.computeDescribeClusterResponse
answer it on a broker listener:

- `endpoint_type` (v1+) must be BROKER (1): UNKNOWN (0) or a type nobody defines gets
  UNSUPPORTED_ENDPOINT_TYPE ("Unsupported endpoint type N"), CONTROLLER (2)
  MISMATCHED_ENDPOINT_TYPE (a client asking for controllers must ask a controller
  listener); v0 gets INVALID_REQUEST for either.
- The brokers registered with an endpoint on this listener, by node id; fenced ones only
  when `include_fenced_brokers` (v2) asks, with `is_fenced` set.
- `controller_id`: Kafka answers a random alive broker (clients cannot reach a KRaft
  controller through it); pylog answers itself, as its Metadata does.
- `cluster_authorized_operations` when asked (pylog/handlers/authorized_operations.py).

A controller-only node answers it too (Kafka's ControllerApis.handleDescribeCluster,
KIP-919: how `--bootstrap-controller` finds the controllers), with the same refusals the
other way round: `endpoint_type` must be CONTROLLER (2). The nodes listed are the
controllers registered with an endpoint on the listener asked, and `controller_id` is this
controller, the quorum's leader (-1 were it not listed).
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeClusterResponse
from pylog.handlers import authorized_operations

UNKNOWN, BROKER, CONTROLLER = 0, 1, 2
ENDPOINT_TYPE_NAMES = {BROKER: "BROKER", CONTROLLER: "CONTROLLER"}


def make_handler(broker):
    async def handle(request, context) -> DescribeClusterResponse:
        refusal = endpoint_type_refusal(request.endpoint_type, context.api_version)
        if refusal is not None:
            code, message = refusal
            return DescribeClusterResponse(error_code=code, error_message=message)
        listener = broker.config.listener_endpoint().listener_name
        brokers = []
        for registration in sorted(broker.metadata_image().brokers.values(), key=lambda b: b.broker_id):
            endpoint = registration.endpoint(listener)
            if endpoint is None or (registration.fenced and not request.include_fenced_brokers):
                continue
            brokers.append(DescribeClusterResponse.DescribeClusterBroker(
                broker_id=registration.broker_id, host=endpoint.host, port=endpoint.port, rack=registration.rack,
                is_fenced=registration.fenced))
        return listed(request, BROKER, broker.cluster_id, brokers, broker.node_id)

    return handle


def make_controller_handler(controller, listener_name: str):
    """The handler of a controller-only node's listener `listener_name`."""
    async def handle(request, context) -> DescribeClusterResponse:
        refusal = endpoint_type_refusal(request.endpoint_type, context.api_version, expected=CONTROLLER)
        if refusal is not None:
            code, message = refusal
            return DescribeClusterResponse(error_code=code, error_message=message)
        nodes = []
        for registration in sorted(controller.image.controllers.values(), key=lambda c: c.controller_id):
            endpoint = next((e for e in registration.endpoints if e.name == listener_name), None)
            if endpoint is not None:
                nodes.append(DescribeClusterResponse.DescribeClusterBroker(
                    broker_id=registration.controller_id, host=endpoint.host, port=endpoint.port, rack=None))
        return listed(request, CONTROLLER, controller.cluster_id, nodes, controller.node_id)

    return handle


def listed(request, endpoint_type: int, cluster_id: str, nodes: list, controller_id: int) -> DescribeClusterResponse:
    """The answer listing `nodes`; `controller_id` is -1 unless it is among them."""
    return DescribeClusterResponse(
        error_code=ErrorCode.NONE, error_message=None, endpoint_type=endpoint_type, cluster_id=cluster_id,
        controller_id=controller_id if any(n.broker_id == controller_id for n in nodes) else -1, brokers=nodes,
        cluster_authorized_operations=(authorized_operations.CLUSTER if request.include_cluster_authorized_operations
                                       else authorized_operations.OMITTED))


def endpoint_type_refusal(endpoint_type: int, version: int, expected: int = BROKER) -> tuple[ErrorCode, str] | None:
    """The error and message for a request whose `endpoint_type` a listener of type
    `expected` does not answer; None when it does."""
    if endpoint_type not in ENDPOINT_TYPE_NAMES:
        return (ErrorCode.INVALID_REQUEST if version == 0 else ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
                f"Unsupported endpoint type {endpoint_type}")
    if endpoint_type != expected:
        return (ErrorCode.INVALID_REQUEST if version == 0 else ErrorCode.MISMATCHED_ENDPOINT_TYPE,
                f"The request was sent to an endpoint of type {ENDPOINT_TYPE_NAMES[expected]}, but we wanted an "
                f"endpoint of type {ENDPOINT_TYPE_NAMES[endpoint_type]}")
    return None
