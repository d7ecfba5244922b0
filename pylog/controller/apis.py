"""The controller's requests: which rule answers each, and the controller's listener.

    API key  request                       rule (pure, over the image)
    62       BrokerRegistration            cluster_control.register_broker
    63       BrokerHeartbeat               cluster_control.process_heartbeat
    64       UnregisterBroker              cluster_control.unregister_broker
    56       AlterPartition                alter_partition.alter_partition
    43       ElectLeaders                  leadership.elect_leaders
    45       AlterPartitionReassignments   reassignment.alter_partition_reassignments
    46       ListPartitionReassignments    reassignment.list_partition_reassignments
    19       CreateTopics                  replication_control.create_topics
    20       DeleteTopics                  replication_control.delete_topics
    37       CreatePartitions              replication_control.create_partitions
    44       IncrementalAlterConfigs       configuration_control.incremental_alter_configs
    33       AlterConfigs                  configuration_control.alter_configs
    67       AllocateProducerIds           producer_id_control.allocate_producer_ids
    51       AlterUserScramCredentials     scram_control.alter_user_scram_credentials
    55       DescribeQuorum                describe_quorum.describe_quorum (a read: no records)

`apply(controller, request, version, now_ms)` runs the rule and returns its
ControllerResult; the controller commits the records. The rules a starting controller
does not run (topics, partition changes, producer ids) are imported at their first
request. Timers: `expire_sessions` (fence brokers whose session ran out),
`rebalance_leaders` (preferred leaders back), `elect_unclean_leaders` (leaderless
partitions of topics that allow it).

`controller_apis(controller)`: the dispatcher entries of a controller-only node's listener:
ApiVersions, every request above, Fetch of `__cluster_metadata` (how brokers follow the
log: pylog/controller/metadata_fetch.py, a long poll on the log's appends),
DescribeCluster of the controllers (pylog/handlers/describe_cluster.py), and the ACL, SASL
and delegation token requests a broker answers the same way (`ANSWERED_AS_BY_A_BROKER`).
"""

from __future__ import annotations

from protocol.schema import Message

from pylog.controller import cluster_control, configuration_control, leadership, reassignment
from pylog.controller.bootstrap import SUPPORTED_FEATURES
from pylog.controller.results import ControllerResult
from pylog.dispatch import API_VERSIONS_KEY, Api, Dispatcher, OnFirstRequest
from pylog.handlers import SERVED, api_versions

FETCH_KEY = 1
DESCRIBE_CLUSTER_KEY = 60
# A controller answers these as a broker does (Kafka's ControllerApis and AclApis): ACLs with
# no authorizer, SASL and delegation tokens on a PLAINTEXT listener. Not DescribeDelegationToken,
# which Kafka's controller advertises and fails with UNKNOWN_SERVER_ERROR.
ANSWERED_AS_BY_A_BROKER = frozenset({17, 29, 30, 31, 36, 38, 39, 40})


def apply(controller, request: Message, version: int, now_ms: int) -> ControllerResult:
    """The rule answering `request` (see the table), over the controller's image."""
    image = controller.image
    key = request.api_key
    unclean = controller.config.unclean_leader_election_enable
    if key == 62:
        return cluster_control.register_broker(image, controller.heartbeats, request, version,
                                               next_offset=controller.next_offset, now_ms=now_ms,
                                               cluster_id=controller.cluster_id, unclean_default=unclean)
    if key == 63:
        return cluster_control.process_heartbeat(image, controller.heartbeats, request, version, now_ms=now_ms,
                                                 unclean_default=unclean)
    if key == 64:
        return cluster_control.unregister_broker(image, request, version)
    if key == 56:
        from pylog.controller import alter_partition
        return alter_partition.alter_partition(image, request, version, unclean_default=unclean)
    if key == 43:
        return leadership.elect_leaders(image, request, version)
    if key == 45:
        return reassignment.alter_partition_reassignments(image, request, version, unclean_default=unclean)
    if key == 46:
        return reassignment.list_partition_reassignments(image, request, version)
    if key in (19, 20, 37):
        from pylog.controller import replication_control
        if key == 19:
            return replication_control.create_topics(image, request, controller.topic_settings, controller.rng)
        if key == 20:
            return replication_control.delete_topics(image, request, version, controller.topic_settings,
                                                     controller.rng)
        return replication_control.create_partitions(image, request, controller.rng)
    if key == 44:
        return configuration_control.incremental_alter_configs(image, request, controller.topic_settings)
    if key == 33:
        return configuration_control.alter_configs(image, request, controller.topic_settings)
    if key == 67:
        from pylog.controller import producer_id_control
        return producer_id_control.allocate_producer_ids(image, request)
    if key == 51:
        from pylog.controller.scram_control import alter_user_scram_credentials
        return alter_user_scram_credentials(image, request)
    if key == 55:
        from pylog.controller.describe_quorum import describe_quorum
        metadata_log = controller.metadata_log
        registration = image.controllers.get(controller.node_id)
        return ControllerResult(describe_quorum(
            request, version, leader_id=controller.node_id, leader_epoch=metadata_log.epoch,
            log_end_offset=metadata_log.log_end_offset, high_watermark=metadata_log.high_watermark,
            observers=controller.observers, endpoints=registration.endpoints if registration else (), now_ms=now_ms))
    raise ValueError(f"API key {key} is not a controller request")


CONTROLLER_API_VERSIONS = {   # key -> (min, max) served
    62: (0, 4), 63: (0, 1), 64: (0, 0), 56: (0, 3), 43: (0, 2), 45: (0, 1), 46: (0, 0),
    19: (0, 7), 20: (0, 6), 37: (0, 3), 44: (0, 1), 33: (0, 2), 67: (0, 0), 55: (0, 2), 51: (0, 0),
}


def expire_sessions(controller, now_ms: int) -> list:
    result = cluster_control.fence_stale_brokers(controller.image, controller.heartbeats, now_ms,
                                                 unclean_default=controller.config.unclean_leader_election_enable)
    return list(result.records)


def rebalance_leaders(controller, now_ms: int) -> list:
    return list(leadership.auto_leader_rebalance(controller.image).records)


def elect_unclean_leaders(controller, now_ms: int) -> list:
    return list(leadership.unclean_elections(
        controller.image, unclean_default=controller.config.unclean_leader_election_enable).records)


def completed_reassignments(controller) -> list:
    return reassignment.complete_reassignments(controller.image)


def controller_apis(controller, dispatcher: Dispatcher, listener_name: str) -> list[Api]:
    """The listener `listener_name` of a controller-only node (`dispatcher` answers its
    ApiVersions)."""
    async def handle(request, context):
        return await controller.handle(request, context.api_version)

    from pylog.controller.metadata_fetch import handle_metadata_fetch

    async def fetch(request, context):
        return await handle_metadata_fetch(controller.metadata_log, request, leader_id=controller.node_id,
                                           observers=controller.observers)

    apis = [Api(key, low, high, handle) for key, (low, high) in CONTROLLER_API_VERSIONS.items()]
    apis.append(Api(FETCH_KEY, 4, 12, fetch))
    from pylog.handlers.describe_cluster import make_controller_handler
    apis.append(Api(DESCRIBE_CLUSTER_KEY, 0, 2, make_controller_handler(controller, listener_name)))
    # the broker's own answers, which need no broker: ACLs, SASL and delegation tokens
    apis += [Api(key, low, high, OnFirstRequest(f"pylog.handlers.{module}", factory, None))
             for key, low, high, module, factory in SERVED if key in ANSWERED_AS_BY_A_BROKER]
    features = lambda: api_versions.image_features(SUPPORTED_FEATURES, controller.image)  # noqa: E731
    apis.append(Api(API_VERSIONS_KEY, *api_versions.SERVED_VERSIONS, api_versions.make_handler(dispatcher, features)))
    return apis


