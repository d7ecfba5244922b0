"""The answers of the admin requests a broker forwards to the controller when one fails as a
whole: Kafka's `getErrorResponse` of each request class, an entry for each of the request's
with the error. Used where the controller cannot be reached (pylog/handlers/topics.py) and
where a request's deadline has passed (`past_deadline`).

Kafka's QuorumController runs CreateTopics, DeleteTopics, CreatePartitions, ElectLeaders
and AlterPartitionReassignments (not ListPartitionReassignments) by a deadline of now plus
the request's `timeout_ms`, already past for 0 or less, but answers at once a request left with
nothing to do (no topics, or only entries answered before the controller is reached). So a
request with something to do and a timeout of 0 or less fails whole with REQUEST_TIMED_OUT,
no message, and nothing is done.

Message classes are looked up when an answer is built (`protocol.messages` loads each on
first use): a starting controller loads none of them for this module.
"""

from __future__ import annotations

from protocol import messages
from protocol.error_codes import ErrorCode
from protocol.primitives import ZERO_UUID

from pylog.errors import BrokerError

REQUEST_TIMED_OUT = BrokerError(ErrorCode.REQUEST_TIMED_OUT, None)


def past_deadline(request, has_work: bool) -> bool:
    """Whether `request` (with `timeout_ms`) fails whole for its deadline."""
    return has_work and request.timeout_ms <= 0


def create_topics_failed(request, error: BrokerError):
    Result = messages.CreateTopicsResponse.CreatableTopicResult
    return messages.CreateTopicsResponse(topics=[
        Result(name=t.name, error_code=error.code, error_message=error.message, num_partitions=-1,
               replication_factor=-1, configs=[])
        for t in request.topics])


def delete_topics_failed(request, error: BrokerError):
    """Each name (v0-5) or each entry, its name and id (v6); never a message."""
    entries = [(name, ZERO_UUID) for name in request.topic_names or []]
    entries += [(t.name, t.topic_id) for t in request.topics or []]
    Result = messages.DeleteTopicsResponse.DeletableTopicResult
    return messages.DeleteTopicsResponse(responses=[
        Result(name=name, topic_id=topic_id, error_code=error.code, error_message=None)
        for name, topic_id in entries])


def create_partitions_failed(request, error: BrokerError):
    Result = messages.CreatePartitionsResponse.CreatePartitionsTopicResult
    return messages.CreatePartitionsResponse(results=[
        Result(name=t.name, error_code=error.code, error_message=error.message) for t in request.topics])


def elect_leaders_failed(request, error: BrokerError):
    """The error at the top (v1+) and for each partition named; none for a null list."""
    Response = messages.ElectLeadersResponse
    return Response(error_code=error.code, replica_election_results=[
        Response.ReplicaElectionResult(topic=t.topic, partition_result=[
            Response.PartitionResult(partition_id=p, error_code=error.code, error_message=error.message)
            for p in t.partitions])
        for t in request.topic_partitions or []])


def alter_reassignments_failed(request, error: BrokerError):
    Response = messages.AlterPartitionReassignmentsResponse
    return Response(error_code=error.code, error_message=error.message, responses=[
        Response.ReassignableTopicResponse(name=t.name, partitions=[
            Response.ReassignablePartitionResponse(partition_index=p.partition_index, error_code=error.code,
                                                   error_message=error.message)
            for p in t.partitions])
        for t in request.topics])


def list_reassignments_failed(request, error: BrokerError):
    """Each partition named, with no replicas; the error at the top only."""
    Response = messages.ListPartitionReassignmentsResponse
    return Response(error_code=error.code, error_message=error.message, topics=[
        Response.OngoingTopicReassignment(name=t.name, partitions=[
            Response.OngoingPartitionReassignment(partition_index=p, replicas=[], adding_replicas=[],
                                                  removing_replicas=[])
            for p in t.partition_indexes])
        for t in request.topics or []])


def describe_quorum_failed(request, error: BrokerError):
    """The error at the top, no topic (DescribeQuorumRequest.getTopLevelErrorResponse)."""
    return messages.DescribeQuorumResponse(error_code=error.code, error_message=error.message)


def unregister_broker_failed(request, error: BrokerError):
    return messages.UnregisterBrokerResponse(error_code=error.code, error_message=error.message)
