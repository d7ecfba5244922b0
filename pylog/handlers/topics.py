"""The admin requests a broker forwards to the controller, as Kafka's brokers do.

    CreateTopics (19)  DeleteTopics (20)  CreatePartitions (37)  ElectLeaders (43)
    AlterPartitionReassignments (45)  ListPartitionReassignments (46)
    AlterConfigs (33)  IncrementalAlterConfigs (44)   (pylog/handlers/configs.py)

The controller checks each request against its metadata image and answers it; what it
commits reaches this broker through the metadata log (pylog/metadata_publisher.py). The
rules, error codes and messages are the controller's (pylog/controller/). The broker
answers once its own metadata has caught up with the commit (`Broker.forward`), so a
client that created a topic finds it in the next Metadata request to this broker.
A controller out of reach: every topic of the request gets REQUEST_TIMED_OUT. So does
every topic of a CreateTopics, DeleteTopics or CreatePartitions whose `timeout_ms` is 0 or
less, with no message, and nothing is done: Kafka's controller runs a request by a deadline
of now plus that timeout, one already past.
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

from pylog.errors import BrokerError
from pylog.handlers.forwarding import forwarding_handler


def _create_topics_failed(request, error: BrokerError) -> CreateTopicsResponse:
    return CreateTopicsResponse(topics=[
        CreateTopicsResponse.CreatableTopicResult(name=t.name, error_code=error.code, error_message=error.message,
                                                  num_partitions=-1, replication_factor=-1, configs=[])
        for t in request.topics])


def _delete_topics_failed(request, error: BrokerError) -> DeleteTopicsResponse:
    names = list(request.topic_names or []) + [t.name for t in (request.topics or []) if t.name]
    return DeleteTopicsResponse(responses=[
        DeleteTopicsResponse.DeletableTopicResult(name=name, error_code=error.code, error_message=error.message)
        for name in names])


def _create_partitions_failed(request, error: BrokerError) -> CreatePartitionsResponse:
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
make_create_topics_handler = partial(forwarding_handler, failed=_create_topics_failed, with_deadline=True)
make_delete_topics_handler = partial(forwarding_handler, failed=_delete_topics_failed, with_deadline=True)
make_create_partitions_handler = partial(forwarding_handler, failed=_create_partitions_failed, with_deadline=True)
make_elect_leaders_handler = partial(forwarding_handler, failed=_elect_leaders_failed)
make_alter_reassignments_handler = partial(forwarding_handler, failed=_reassignments_failed)
make_list_reassignments_handler = partial(forwarding_handler, failed=_list_reassignments_failed)
