"""OffsetCommit (key 8, v0-9), OffsetFetch (key 9, v0-9), OffsetDelete (key 47, v0).

The committed offsets live in `broker.offset_store` (`pylog.coordinator.offsets.OffsetStore`,
`__consumer_offsets`); group membership checks come from the group coordinator
(`broker.group_coordinator`). Behaviour follows Kafka's KafkaApis and classic group
coordinator.

OffsetCommit, per partition, in this order:
  - a topic or partition that does not exist: UNKNOWN_TOPIC_OR_PARTITION, answered by the
    broker before the coordinator sees the rest (`split_by_metadata`), and listed first
    (`merged_after_refused`);
  - the group check, once for the whole request, answered on every remaining partition:
    `group_coordinator.validate_offset_commit(group_id, generation, member_id,
    group_instance_id, version)` (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS,
    FENCED_INSTANCE_ID, COORDINATOR_NOT_AVAILABLE...); a group it does not know accepts
    generation < 0 (a "simple" commit, which v0 always is) and answers generation >= 0
    with ILLEGAL_GENERATION before v9, GROUP_ID_NOT_FOUND v9+. v9's
    `generation_id_or_member_epoch` is the member epoch of KIP-848 consumer groups; every
    group here is classic, so it is checked as the generation, as Kafka does;
  - metadata longer than `offset.metadata.max.bytes` (Java string length):
    OFFSET_METADATA_TOO_LARGE (the others are still stored);
  - the rest are written as one batch; a failed append answers every one of them with
    Kafka's mapping (e.g. UNKNOWN_SERVER_ERROR for a batch over max.message.bytes);
    the answer waits until the high watermark passes the batch
    (`group_coordinator.wait_replicated`): COORDINATOR_NOT_AVAILABLE after
    `offsets.commit.timeout.ms`, NOT_COORDINATOR if this broker resigned the partition.
  A group whose `__consumer_offsets` partition this broker does not lead gets
  NOT_COORDINATOR (COORDINATOR_LOAD_IN_PROGRESS while it loads) through the group check.
  The commit timestamp is the broker's clock, or v1's per-partition `commit_timestamp` if
  not -1. v2-v4 `retention_time_ms` != -1 sets an explicit expire timestamp (now +
  retention, summed as Java's longs are, so one that overflows wraps to a past time and
  the offset expires at the next check; the record is then written as OffsetCommitValue
  v1, as Kafka does). Null
  metadata is stored as "".

OffsetFetch: v0-7 one group (`topics` null from v2 = every partition the group has committed,
listed in the order Kafka's coordinator keeps them: pylog/coordinator/offsets_order.py), v8+
several groups; v9's member id and member epoch are KIP-848 consumer groups' and a classic
group ignores them (Kafka's classic group checks nothing more). A group this broker does not
coordinate (`coordinator_error`: NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS) gets Kafka's
group error: v0-1 on every requested partition (offset -1), v2-7 at the top level without
topics, v8+ on the group. A partition without a commit, or a group never seen, answers offset
-1, leader epoch -1, metadata "" and error NONE (Kafka returns offsets "blindly", whatever the
group's state). Topics are not checked for existence. v7+ `require_stable`: the answer waits
until every write made so far for the group is replicated (`group_coordinator.wait_stable`;
NOT_COORDINATOR after `offsets.commit.timeout.ms`, Kafka's answer); without it, offsets are
shown as replicated. pylog has no pending transactional offsets yet.

OffsetDelete: first the coordinator check (its error at the request level); the group must
exist -- known to the coordinator, or with committed offsets or metadata in the store
(GROUP_ID_NOT_FOUND otherwise, as a request-level error with no topics). Unknown
topics/partitions: UNKNOWN_TOPIC_OR_PARTITION, answered and listed as OffsetCommit's are.
Then by group state: Empty (or a simple group): every partition's offset is deleted (NONE,
whether or not it had one); Stable/PreparingRebalance/CompletingRebalance of protocol type
"consumer": partitions of topics a member subscribes to get GROUP_SUBSCRIBED_TO_TOPIC, the
others are deleted; a non-empty group of another protocol type: NON_EMPTY_GROUP (request
level). The answer waits for the tombstones' replication, as a commit's does.

The coordinator's modules are imported by the first group request (`Broker.group_coordinator`),
so the names taken from them are imported in the handlers.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import OffsetCommitResponse, OffsetDeleteResponse, OffsetFetchResponse

from pylog.clock import now_ms
from pylog.errors import BrokerError

DEFAULT_TIMESTAMP = -1        # OffsetCommitRequest.DEFAULT_TIMESTAMP (v1 commit_timestamp)
DEFAULT_RETENTION_TIME = -1   # OffsetCommitRequest.DEFAULT_RETENTION_TIME (v2-v4)
INVALID_OFFSET = -1

CommitPartition = OffsetCommitResponse.OffsetCommitResponsePartition
CommitTopic = OffsetCommitResponse.OffsetCommitResponseTopic
DeletePartition = OffsetDeleteResponse.OffsetDeleteResponsePartition
DeleteTopic = OffsetDeleteResponse.OffsetDeleteResponseTopic


# ---------------------------------------------------------------------------------------
# OffsetCommit


def make_offset_commit_handler(broker):
    async def handle(request, context):
        version = context.api_version
        now = now_ms()
        refused, to_coordinator = split_by_metadata(broker, request.topics, CommitPartition)
        answered = []   # the coordinator's answer: a topic entry for each request entry it got
        if to_coordinator:
            await commit(broker, request, version, now,
                         [(name, answer, p) for name, valid in to_coordinator for answer, p in valid])
            answered = [(name, [answer for answer, _ in valid]) for name, valid in to_coordinator]
        return OffsetCommitResponse(topics=[CommitTopic(name=n, partitions=ps)
                                            for n, ps in merged_after_refused(refused, answered)])

    return handle


def split_by_metadata(broker, topics, answer_cls) -> tuple[dict[str, list], list[tuple[str, list]]]:
    """Kafka's KafkaApis for OffsetCommit and OffsetDelete: the partitions the metadata does
    not have are answered by the broker, UNKNOWN_TOPIC_OR_PARTITION, by topic in the order
    first met (a topic unknown as a whole gets its entry even with no partition named); the
    others go to the coordinator, a topic entry for each request entry with any. Returns the
    refused answers by topic, and the coordinator's part: (topic, [(answer, request
    partition), ...]) with each answer an `answer_cls` at NONE for the coordinator to fill."""
    refused: dict[str, list] = {}
    to_coordinator: list[tuple[str, list]] = []
    for topic in topics:
        if topic.name not in broker.metadata.topics:
            refused.setdefault(topic.name, []).extend(
                answer_cls(partition_index=p.partition_index, error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                for p in topic.partitions)
            continue
        valid = []
        for p in topic.partitions:
            answer = answer_cls(partition_index=p.partition_index, error_code=ErrorCode.NONE)
            if broker.in_metadata(topic.name, p.partition_index):
                valid.append((answer, p))
            else:
                answer.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                refused.setdefault(topic.name, []).append(answer)
        if valid:
            to_coordinator.append((topic.name, valid))
    return refused, to_coordinator


def merged_after_refused(refused: dict[str, list], answered: list[tuple[str, list]]) -> list[tuple[str, list]]:
    """The response builders' merge (OffsetCommitResponse.Builder, OffsetDeleteResponse.Builder):
    with nothing refused, the coordinator's answer as it is; else the refused topics first, a
    coordinator's topic appended to the refused entry of its name, or after them."""
    if not refused:
        return answered
    for name, partitions in answered:
        refused.setdefault(name, []).extend(partitions)
    return list(refused.items())


async def commit(broker, request, version: int, now: int, pending) -> None:
    from pylog.coordinator.offsets import NO_TIMESTAMP, CommittedOffset
    generation = request.generation_id_or_member_epoch if version >= 1 else -1
    member_id = request.member_id if version >= 1 else ""
    instance_id = request.group_instance_id if version >= 7 else None
    coordinator = broker.group_coordinator
    existed = coordinator.group(request.group_id) is not None
    error = coordinator.validate_offset_commit(request.group_id, generation, member_id, instance_id, version)
    if error != ErrorCode.NONE:
        for _, answer, _ in pending:
            answer.error_code = error
        return
    store = broker.offset_store
    expire_timestamp = NO_TIMESTAMP
    if 2 <= version <= 4 and request.retention_time_ms != DEFAULT_RETENTION_TIME:
        # a Java long sum, as Kafka's: a retention that overflows wraps to a past time
        expire_timestamp = (now + request.retention_time_ms + (1 << 63)) % (1 << 64) - (1 << 63)
    offsets: list[tuple[tuple[str, int], CommittedOffset]] = []   # a record each, repeats too
    stored = []
    for topic, answer, p in pending:
        if store.metadata_too_large(p.committed_metadata):
            answer.error_code = ErrorCode.OFFSET_METADATA_TOO_LARGE
            continue
        commit_timestamp = now
        if version == 1 and p.commit_timestamp != DEFAULT_TIMESTAMP:
            commit_timestamp = p.commit_timestamp
        offsets.append(((topic, p.partition_index), CommittedOffset(
            offset=p.committed_offset,
            leader_epoch=p.committed_leader_epoch if version >= 6 else -1,
            metadata=p.committed_metadata or "",
            commit_timestamp_ms=commit_timestamp,
            expire_timestamp_ms=expire_timestamp)))
        stored.append(answer)
    if not offsets and not existed:
        coordinator.hold_uncommitted(request.group_id)   # nothing stored: reads do not see the group yet
        return
    try:
        written = store.commit(request.group_id, offsets, now)
    except BrokerError as exc:
        for answer in stored:
            answer.error_code = exc.code
        return
    error = await broker.group_coordinator.wait_replicated(written)
    if error:
        for answer in stored:
            answer.error_code = error


# ---------------------------------------------------------------------------------------
# OffsetFetch


def make_offset_fetch_handler(broker):
    async def handle(request, context):
        version = context.api_version
        store = broker.offset_store
        coordinator = broker.group_coordinator
        if version >= 8:
            groups = []
            for group in request.groups:
                error = coordinator.coordinator_error(group.group_id)
                if not error and request.require_stable:
                    error = await coordinator.wait_stable(group.group_id)
                if error:
                    groups.append(OffsetFetchResponse.OffsetFetchResponseGroup(group_id=group.group_id,
                                                                               error_code=error, topics=[]))
                    continue
                topics = None if group.topics is None else [(t.name, t.partition_indexes) for t in group.topics]
                groups.append(OffsetFetchResponse.OffsetFetchResponseGroup(
                    group_id=group.group_id, error_code=ErrorCode.NONE,
                    topics=fetch_offsets(store, group.group_id, topics, v8=True)))
            return OffsetFetchResponse(groups=groups)
        topics = None if request.topics is None else [(t.name, t.partition_indexes) for t in request.topics]
        error = coordinator.coordinator_error(request.group_id)
        if not error and version >= 7 and request.require_stable:
            error = await coordinator.wait_stable(request.group_id)
        if error:
            return offset_fetch_group_error(version, topics or [], error)
        return OffsetFetchResponse(error_code=ErrorCode.NONE,
                                   topics=fetch_offsets(store, request.group_id, topics, v8=False))

    return handle


def offset_fetch_group_error(version: int, topics, error: ErrorCode) -> OffsetFetchResponse:
    """OffsetFetch v0-7 for a group this coordinator cannot answer (Kafka's
    OffsetFetchResponse.groupError): from v2 the error at the top, without topics; v0-1 have
    no top-level error, so each requested partition carries it, with offset -1."""
    if version >= 2:
        return OffsetFetchResponse(error_code=error, topics=[])
    return OffsetFetchResponse(topics=[
        OffsetFetchResponse.OffsetFetchResponseTopic(name=name, partitions=[
            OffsetFetchResponse.OffsetFetchResponsePartition(
                partition_index=index, committed_offset=INVALID_OFFSET, committed_leader_epoch=-1,
                metadata="", error_code=error)
            for index in partitions])
        for name, partitions in topics])


def fetch_offsets(store, group_id: str, topics, v8: bool) -> list:
    """Response topics for one group; `topics` is [(name, [partition])] or None for all."""
    if v8:
        topic_cls, partition_cls = (OffsetFetchResponse.OffsetFetchResponseTopics,
                                    OffsetFetchResponse.OffsetFetchResponsePartitions)
    else:
        topic_cls, partition_cls = (OffsetFetchResponse.OffsetFetchResponseTopic,
                                    OffsetFetchResponse.OffsetFetchResponsePartition)
    committed = store.committed(group_id)
    if topics is None:   # every offset of the group, in the order of Kafka's maps of them
        topics = store.in_kafkas_order(group_id, committed)
    result = []
    for name, partitions in topics:
        entries = []
        for index in partitions:
            found = committed.get((name, index))
            if found is None:
                entries.append(partition_cls(partition_index=index, committed_offset=INVALID_OFFSET,
                                             committed_leader_epoch=-1, metadata="", error_code=ErrorCode.NONE))
            else:
                entries.append(partition_cls(partition_index=index, committed_offset=found.offset,
                                             committed_leader_epoch=found.leader_epoch, metadata=found.metadata,
                                             error_code=ErrorCode.NONE))
        result.append(topic_cls(name=name, partitions=entries))
    return result


# ---------------------------------------------------------------------------------------
# OffsetDelete


def make_offset_delete_handler(broker):
    async def handle(request, context):
        from pylog.coordinator.group import GroupState
        from pylog.coordinator.offsets import CONSUMER_PROTOCOL_TYPE
        store = broker.offset_store
        group_id = request.group_id
        coordinator = broker.group_coordinator
        error = coordinator.check_group_id(group_id) or coordinator.coordinator_error(group_id)
        if error:
            return OffsetDeleteResponse(error_code=error)
        facts = store.group_facts(group_id)
        if facts is None:
            return OffsetDeleteResponse(error_code=ErrorCode.GROUP_ID_NOT_FOUND)
        eligible = []
        active = facts.state in (GroupState.STABLE, GroupState.PREPARING_REBALANCE, GroupState.COMPLETING_REBALANCE)
        if active and facts.protocol_type != CONSUMER_PROTOCOL_TYPE:
            return OffsetDeleteResponse(error_code=ErrorCode.NON_EMPTY_GROUP)
        # Subscriptions unknown (undecodable): every topic counts as subscribed (Kafka's
        # GroupMetadata.isSubscribedToTopic).
        subscribed = facts.subscribed_topics
        refused, to_coordinator = split_by_metadata(broker, request.topics, DeletePartition)
        for name, valid in to_coordinator:
            if active and (subscribed is None or name in subscribed):
                for answer, _ in valid:
                    answer.error_code = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
            else:
                eligible.extend((name, p.partition_index) for _, p in valid)
        if eligible:
            try:
                store.delete_offsets(group_id, eligible, now_ms())
            except BrokerError as exc:
                return OffsetDeleteResponse(error_code=exc.code)
            error = await broker.group_coordinator.wait_replicated(store.written_so_far(group_id))
            if error:
                return OffsetDeleteResponse(error_code=error)
        answered = [(name, [answer for answer, _ in valid]) for name, valid in to_coordinator]
        return OffsetDeleteResponse(error_code=ErrorCode.NONE, topics=[
            DeleteTopic(name=n, partitions=ps) for n, ps in merged_after_refused(refused, answered)])

    return handle

