"""The admin requests a broker forwards to the controller, as Kafka's brokers do.

    CreateTopics (19)  DeleteTopics (20)  CreatePartitions (37)  ElectLeaders (43)
    AlterPartitionReassignments (45)  ListPartitionReassignments (46)
    AlterConfigs (33)  IncrementalAlterConfigs (44)   (pylog/handlers/configs.py)

The controller checks each request against its metadata image and answers it; what it
commits reaches this broker through the metadata log (pylog/metadata_publisher.py). The
rules, error codes and messages are the controller's (pylog/controller/). The broker
answers once its own metadata has caught up with the commit (`Broker.forward`), so a
client that created a topic finds it in the next Metadata request to this broker.
A controller out of reach: every topic of the request gets REQUEST_TIMED_OUT. The answers
of a request that fails whole (`create_topics_failed`, `delete_topics_failed`,
`create_partitions_failed`) have the shape of Kafka's `getErrorResponse`, which the
controller's rules use too: an entry for each of the request's, with the error.
"""

from __future__ import annotations

from functools import partial

from protocol.messages import (
    AlterPartitionReassignmentsResponse,
    CreatePartitionsResponse,
    CreateTopicsResponse,
    DeleteTopicsResponse,
    ElectLeadersResponse,
    ListPartitionReassignmentsResponse,
)
from protocol.primitives import ZERO_UUID

from pylog.errors import BrokerError
from pylog.handlers.forwarding import forwarding_handler


def create_topics_failed(request, error: BrokerError) -> CreateTopicsResponse:
    return CreateTopicsResponse(topics=[
        CreateTopicsResponse.CreatableTopicResult(name=t.name, error_code=error.code, error_message=error.message,
                                                  num_partitions=-1, replication_factor=-1, configs=[])
        for t in request.topics])


def delete_topics_failed(request, error: BrokerError) -> DeleteTopicsResponse:
    """Each name (v0-5) or each entry, its name and id (v6); never a message."""
    entries = [(name, ZERO_UUID) for name in request.topic_names or []]
    entries += [(t.name, t.topic_id) for t in request.topics or []]
    return DeleteTopicsResponse(responses=[
        DeleteTopicsResponse.DeletableTopicResult(name=name, topic_id=topic_id, error_code=error.code,
                                                  error_message=None)
        for name, topic_id in entries])


def create_partitions_failed(request, error: BrokerError) -> CreatePartitionsResponse:
    return CreatePartitionsResponse(results=[
        CreatePartitionsResponse.CreatePartitionsTopicResult(name=t.name, error_code=error.code,
                                                             error_message=error.message)
        for t in request.topics])


def _elect_leaders_failed(request, error: BrokerError) -> ElectLeadersResponse:
    return ElectLeadersResponse(error_code=error.code, replica_election_results=[])


def _reassignments_failed(request, error: BrokerError) -> AlterPartitionReassignmentsResponse:
    return AlterPartitionReassignmentsResponse(error_code=error.code, error_message=str(error), responses=[])


def _list_reassignments_failed(request, error: BrokerError) -> ListPartitionReassignmentsResponse:
    return ListPartitionReassignmentsResponse(error_code=error.code, error_message=str(error), topics=[])


# The factories `pylog/handlers/__init__.py` names: each request goes to the controller,
# and its failure answer above is used when the controller cannot be reached.
make_create_topics_handler = partial(forwarding_handler, failed=create_topics_failed)
make_delete_topics_handler = partial(forwarding_handler, failed=delete_topics_failed)
make_create_partitions_handler = partial(forwarding_handler, failed=create_partitions_failed)
make_elect_leaders_handler = partial(forwarding_handler, failed=_elect_leaders_failed)
make_alter_reassignments_handler = partial(forwarding_handler, failed=_reassignments_failed)
make_list_reassignments_handler = partial(forwarding_handler, failed=_list_reassignments_failed)
