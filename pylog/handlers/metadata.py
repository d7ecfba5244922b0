"""Metadata (key 3): the brokers, the controller, the cluster id, and topics with partitions.

Versions: v0 asks for all topics with an empty list; v1+ with null (an empty list means
none). Producers ask for auto-creation (`allow_auto_topic_creation`, v4+; always on
before v4): when `auto.create.topics.enable` is set, an unknown topic is created and
returned at once (`Broker.maybe_auto_create`: `num.partitions`, or the internal topics'
own partition counts and configs).

Brokers and partitions come from the metadata image this broker follows (Kafka's
KRaftMetadataCache): the brokers are the registered, unfenced ones with the client
listener; each partition has its leader, leader epoch, replicas and ISR as the controller
last recorded them, and as offline replicas those on brokers fenced or gone. A partition
without a leader (-1) gets LEADER_NOT_AVAILABLE. The controller id reported is this
broker's own id: clients send nothing to a KRaft controller, and Kafka too reports one of
the alive brokers.

v10 and v11 carry a topic id and a nullable name in each requested topic, but only v12
may use them: below v12 a null name or a topic id refuses the whole request (Kafka's
KafkaApis throws InvalidRequestException, whose error answer lists every topic asked
with INVALID_REQUEST, a null name as "", and nothing else: no brokers, no cluster id,
controller -1).

v12 may name topics by id (a topic id with a null name). As soon as one requested topic
has an id, the request is answered by ids alone (Kafka ignores the names then): an
unknown id gets UNKNOWN_TOPIC_ID with a null name and the id it asked about, listed
before the known topics; nothing is created.

Order, Kafka's (protocol/scala_order.py): Kafka's KafkaApis and KRaftMetadataCache pass the
topics and partitions through Scala sets, so an answer lists
- the topics asked by name once each, those that exist first, in the order of the Scala
  `Set` of the names asked (the order asked when there are up to four), then the others;
- every topic (a null list) in the order of a Scala `mutable.HashSet` of the names;
- a topic's partitions in the order of a `mutable.HashSet` of their answer entries, which
  hashes every field, leader epoch and ISR included: the order changes as they do.

v8+ may ask for the authorized operations of each topic (and, v8-10, of the cluster):
every operation, as Kafka answers without an authorizer (pylog/handlers/authorized_operations.py).
v13 adds a top-level error code, which Kafka sets only to make a client rebootstrap: NONE here.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.java_order import java_string_hashcode, uuid_hash
from protocol.messages import MetadataResponse
from protocol.scala_order import (
    SMALL_SET_MAX,
    immutable_set_order,
    list_hashcode,
    message_hashcode,
    mutable_hash_set_order,
)
from protocol.schema import ZERO_UUID
from pylog.handlers import authorized_operations
from pylog.metadata import INTERNAL_TOPICS, TopicInfo, topic_name_problem

Topic = MetadataResponse.MetadataResponseTopic


def make_handler(broker):
    async def handle(request, context) -> MetadataResponse:
        version = context.api_version
        if version < 12 and request.topics and any(t.name is None or t.topic_id != ZERO_UUID
                                                   for t in request.topics):
            return refused(request.topics, ErrorCode.INVALID_REQUEST)
        if request.topics is None or (version == 0 and not request.topics):
            names = list(broker.metadata.topics)
            topics = [describe_topic(broker, broker.metadata.topics[name])
                      for name in mutable_hash_set_order(names, [name_hash(name) for name in names])]
        elif any(t.topic_id != ZERO_UUID for t in request.topics):
            topics = by_topic_id(broker, [t.topic_id for t in request.topics if t.topic_id != ZERO_UUID])
        else:
            may_create = request.allow_auto_topic_creation if version >= 4 else True
            known, unknown = known_and_unknown([t.name for t in request.topics], broker.metadata.topics.__contains__,
                                               name_hash)
            topics = [describe_topic(broker, broker.metadata.topics[name]) for name in known]
            topics += [await by_name(broker, name, may_create) for name in unknown]
        if request.include_topic_authorized_operations:
            for topic in topics:
                topic.topic_authorized_operations = authorized_operations.TOPIC
        return MetadataResponse(
            brokers=alive_brokers(broker),
            cluster_id=broker.cluster_id,
            controller_id=broker.node_id,
            topics=topics,
            cluster_authorized_operations=(authorized_operations.CLUSTER if request.include_cluster_authorized_operations
                                           else authorized_operations.OMITTED),
        )

    return handle


def refused(asked: list, code: int) -> MetadataResponse:
    """The whole request refused (Kafka's MetadataRequest.getErrorResponse): each topic
    asked, with `code`, its id as asked and its name ("" for a null one)."""
    return MetadataResponse(topics=[
        Topic(error_code=code, name=t.name if t.name is not None else "", topic_id=t.topic_id, is_internal=False)
        for t in asked])


def alive_brokers(broker) -> list:
    """Every unfenced broker's endpoint for this broker's listener, by node id."""
    listener = broker.config.listener_endpoint().listener_name
    found = []
    for registration in sorted(broker.metadata_image().brokers.values(), key=lambda b: b.broker_id):
        endpoint = registration.endpoint_or_first(listener)
        if registration.fenced or endpoint is None:
            continue
        found.append(MetadataResponse.MetadataResponseBroker(node_id=registration.broker_id, host=endpoint.host,
                                                             port=endpoint.port, rack=registration.rack))
    if not any(b.node_id == broker.node_id for b in found):   # this broker answers, so it is alive
        host, port = broker.advertised_address()
        found.append(MetadataResponse.MetadataResponseBroker(node_id=broker.node_id, host=host, port=port))
        found.sort(key=lambda b: b.node_id)
    return found


async def by_name(broker, name: str | None, may_create: bool) -> Topic:
    topic = broker.metadata.topics.get(name)
    if topic is None and may_create:
        topic = await broker.maybe_auto_create(name)
    if topic is not None:
        return describe_topic(broker, topic)
    code = (ErrorCode.INVALID_TOPIC_EXCEPTION if name is None or topic_name_problem(name)
            else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    return Topic(error_code=code, name=name, is_internal=name in INTERNAL_TOPICS)


def known_and_unknown(asked: list, is_known, hash_of) -> tuple[list, list]:
    """The distinct names (or ids) `asked`, split into those `is_known` and the others, each
    in Kafka's order: the asked ones as a Scala immutable `Set` of them iterates them (the
    order asked for up to four distinct ones), the unknown ones as that set's subset does
    (a `HashSet` of five or more keeps its own trie order in a subset)."""
    hashes = [hash_of(key) for key in asked]
    ordered = immutable_set_order(asked, hashes)
    known = [key for key in ordered if is_known(key)]
    unknown = [key for key in ordered if not is_known(key)]
    if len(ordered) > SMALL_SET_MAX:
        unknown = immutable_set_order(unknown, [hash_of(key) for key in unknown], hash_set=True)
    return known, unknown


def by_topic_id(broker, topic_ids: list) -> list[Topic]:
    """The unknown ids first, then the known topics as the `Set` of their names (built from
    the ids' set) iterates them."""
    known_ids, unknown_ids = known_and_unknown(topic_ids, lambda i: broker.metadata.topic_by_id(i) is not None,
                                               uuid_hash)
    names = [broker.metadata.topic_by_id(topic_id).name for topic_id in known_ids]
    names = immutable_set_order(names, [name_hash(name) for name in names],
                                hash_set=len(known_ids) + len(unknown_ids) > SMALL_SET_MAX)
    return ([Topic(error_code=ErrorCode.UNKNOWN_TOPIC_ID, name=None, topic_id=topic_id, is_internal=False)
             for topic_id in unknown_ids]
            + [describe_topic(broker, broker.metadata.topics[name]) for name in names])


def name_hash(name: str | None) -> int:
    return 0 if name is None else java_string_hashcode(name)


def describe_topic(broker, topic: TopicInfo) -> Topic:
    """The topic's answer, its partitions in Kafka's order: KRaftMetadataCache maps the
    image's partitions into a Scala `mutable.HashSet` of answer entries, placed by their
    generated `hashCode` over every field."""
    image = broker.metadata_image()
    registrations = image.topics[topic.topic_id].partitions if topic.topic_id in image.topics else {}
    alive = {b.broker_id for b in image.brokers.values() if not b.fenced}
    partitions = []
    hashes = []
    for index in range(topic.num_partitions):
        registration = registrations.get(index)
        if registration is None:
            continue
        error_code = ErrorCode.NONE if registration.leader >= 0 else ErrorCode.LEADER_NOT_AVAILABLE
        replicas, isr = list(registration.replicas), list(registration.isr)
        offline = [r for r in replicas if r not in alive]
        partitions.append(MetadataResponse.MetadataResponsePartition(
            error_code=error_code, partition_index=index, leader_id=registration.leader,
            leader_epoch=registration.leader_epoch, replica_nodes=replicas, isr_nodes=isr, offline_replicas=offline))
        hashes.append(message_hashcode((error_code, index, registration.leader, registration.leader_epoch,
                                        list_hashcode(replicas), list_hashcode(isr), list_hashcode(offline))))
    return Topic(name=topic.name, topic_id=topic.topic_id, is_internal=topic.is_internal,
                 partitions=mutable_hash_set_order(partitions, hashes))
