"""ListConfigResources (key 74): which resources have configs to describe.

v0 (once ListClientMetricsResources) lists client-metrics subscriptions only; v1 takes
`resource_types` (empty: every type it knows) and lists, as Kafka 4.1's
KafkaApis.handleListConfigResources does, in this order:

    GROUP (32)          the groups with a config of their own (GROUP ConfigRecords)
    CLIENT_METRICS (16) the client-metrics subscriptions (CLIENT_METRICS ConfigRecords)
    BROKER_LOGGER (8)   every broker registered with this listener, by node id
    BROKER (4)          the same brokers
    TOPIC (2)           every topic

A type outside those (or, at v0, any type but CLIENT_METRICS) makes the whole answer
UNSUPPORTED_VERSION with no resources.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import ListConfigResourcesResponse

TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP = 2, 4, 8, 16, 32
Resource = ListConfigResourcesResponse.ConfigResource


def make_handler(broker):
    async def handle(request, context) -> ListConfigResourcesResponse:
        supported = {CLIENT_METRICS} if context.api_version == 0 else {TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP}
        asked = set(request.resource_types) if context.api_version >= 1 and request.resource_types else supported
        if not asked <= supported:
            return ListConfigResourcesResponse(error_code=ErrorCode.UNSUPPORTED_VERSION)
        image = broker.metadata_image()
        listener = broker.config.listener_endpoint().listener_name
        node_ids = [str(b.broker_id) for b in sorted(image.brokers.values(), key=lambda b: b.broker_id)
                    if b.endpoint(listener) is not None]
        found = []
        if GROUP in asked:
            found += [Resource(resource_name=name, resource_type=GROUP)
                      for kind, name in sorted(image.configs) if kind == GROUP and image.configs[(kind, name)]]
        if CLIENT_METRICS in asked:
            found += [Resource(resource_name=name, resource_type=CLIENT_METRICS)
                      for kind, name in sorted(image.configs) if kind == CLIENT_METRICS and image.configs[(kind, name)]]
        if BROKER_LOGGER in asked:
            found += [Resource(resource_name=node_id, resource_type=BROKER_LOGGER) for node_id in node_ids]
        if BROKER in asked:
            found += [Resource(resource_name=node_id, resource_type=BROKER) for node_id in node_ids]
        if TOPIC in asked:
            found += [Resource(resource_name=name, resource_type=TOPIC) for name in sorted(broker.metadata.topics)]
        return ListConfigResourcesResponse(error_code=ErrorCode.NONE, config_resources=found)

    return handle
