"""The admin requests a broker forwards to the controller, as Kafka's brokers do.

    CreateTopics (19)  DeleteTopics (20)  CreatePartitions (37)  ElectLeaders (43)
    AlterPartitionReassignments (45)  ListPartitionReassignments (46)
    AlterConfigs (33)  IncrementalAlterConfigs (44)   (pylog/handlers/configs.py)

The controller checks each request against its metadata image and answers it; what it
commits reaches this broker through the metadata log (pylog/metadata_publisher.py). The
rules, error codes and messages are the controller's (pylog/controller/). The broker
answers once its own metadata has caught up with the commit (`Broker.forward`), so a
client that created a topic finds it in the next Metadata request to this broker.
A controller out of reach: every topic of the request gets REQUEST_TIMED_OUT.
"""

from __future__ import annotations

from protocol.messages import (
    AlterPartitionReassignmentsResponse,
    CreatePartitionsResponse,
    CreateTopicsResponse,
    DeleteTopicsResponse,
    ElectLeadersResponse,
    ListPartitionReassignmentsResponse,
)

from pylog.dispatch import Api
from pylog.errors import BrokerError
from pylog.handlers.forwarding import forwarding_handler

CREATE_TOPICS_KEY = 19
DELETE_TOPICS_KEY = 20
CREATE_PARTITIONS_KEY = 37
ELECT_LEADERS_KEY = 43
ALTER_PARTITION_REASSIGNMENTS_KEY = 45
LIST_PARTITION_REASSIGNMENTS_KEY = 46


def apis(broker) -> list[Api]:
    """The forwarded admin APIs, for `Broker._apis()`."""
    return [
        Api(CREATE_TOPICS_KEY, 0, 7, forwarding_handler(broker, _create_topics_failed)),
        Api(DELETE_TOPICS_KEY, 0, 6, forwarding_handler(broker, _delete_topics_failed)),
        Api(CREATE_PARTITIONS_KEY, 0, 3, forwarding_handler(broker, _create_partitions_failed)),
        Api(ELECT_LEADERS_KEY, 0, 2, forwarding_handler(broker, _elect_leaders_failed)),
        Api(ALTER_PARTITION_REASSIGNMENTS_KEY, 0, 1, forwarding_handler(broker, _reassignments_failed)),
        Api(LIST_PARTITION_REASSIGNMENTS_KEY, 0, 0, forwarding_handler(broker, _list_reassignments_failed)),
    ]


def _create_topics_failed(request, error: BrokerError) -> CreateTopicsResponse:
    return CreateTopicsResponse(topics=[
        CreateTopicsResponse.CreatableTopicResult(name=t.name, error_code=error.code, error_message=str(error),
                                                  num_partitions=-1, replication_factor=-1, configs=None)
        for t in request.topics])


def _delete_topics_failed(request, error: BrokerError) -> DeleteTopicsResponse:
    names = list(request.topic_names or []) + [t.name for t in (request.topics or []) if t.name]
    return DeleteTopicsResponse(responses=[
        DeleteTopicsResponse.DeletableTopicResult(name=name, error_code=error.code, error_message=str(error))
        for name in names])


def _create_partitions_failed(request, error: BrokerError) -> CreatePartitionsResponse:
    return CreatePartitionsResponse(results=[
        CreatePartitionsResponse.CreatePartitionsTopicResult(name=t.name, error_code=error.code,
                                                             error_message=str(error))
        for t in request.topics])


def _elect_leaders_failed(request, error: BrokerError) -> ElectLeadersResponse:
    return ElectLeadersResponse(error_code=error.code, replica_election_results=[])


def _reassignments_failed(request, error: BrokerError) -> AlterPartitionReassignmentsResponse:
    return AlterPartitionReassignmentsResponse(error_code=error.code, error_message=str(error), responses=[])


def _list_reassignments_failed(request, error: BrokerError) -> ListPartitionReassignmentsResponse:
    return ListPartitionReassignmentsResponse(error_code=error.code, error_message=str(error), topics=[])



