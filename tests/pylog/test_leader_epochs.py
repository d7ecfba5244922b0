"""Leader epochs, fetch sessions and the cluster id, over a real socket.

A partition created on a running pylog node is at leader epoch 0 (each start adds 2, as on
a single KRaft node: tests/integration/test_restart.py): it stamps its epoch into stored
batches, answers OffsetForLeaderEpoch (v2 is all librdkafka implements) from the log's
epoch cache, and tells clients that believe in another epoch so."""

from protocol.error_codes import ErrorCode
from protocol.messages import FetchRequest, ListOffsetsRequest, OffsetForLeaderEpochRequest, ProduceRequest
from protocol.records import build_batch, read_batch_header
from pylog.testing import EmbeddedBroker
from tests.pylog.wire import RawClient

PRODUCE, FETCH, LIST_OFFSETS, OFFSET_FOR_LEADER_EPOCH = 0, 1, 2, 23


def produce_three(client, topic):
    client.auto_create(topic)
    records = build_batch([(b"k", b"a"), (b"k", b"b"), (b"k", b"c")], timestamp_ms=1_700_000_000_000)
    request = ProduceRequest(acks=-1, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=records)])])
    result = client.request(PRODUCE, 9, request).responses[0].partition_responses[0]
    assert result.error_code == ErrorCode.NONE


def epoch_request(topic, leader_epoch, current_leader_epoch):
    return OffsetForLeaderEpochRequest(replica_id=-1, topics=[OffsetForLeaderEpochRequest.OffsetForLeaderTopic(
        topic=topic, partitions=[OffsetForLeaderEpochRequest.OffsetForLeaderPartition(
            partition=0, current_leader_epoch=current_leader_epoch, leader_epoch=leader_epoch)])])


def test_offset_for_leader_epoch_v2_answers_epoch_zero_with_the_log_end(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    produce_three(client, "epochs")
    answer = client.request(OFFSET_FOR_LEADER_EPOCH, 2, epoch_request("epochs", 0, 0)).topics[0].partitions[0]
    assert (answer.error_code, answer.leader_epoch, answer.end_offset) == (ErrorCode.NONE, 0, 3)
    unknown = client.request(OFFSET_FOR_LEADER_EPOCH, 2, epoch_request("epochs", -1, -1)).topics[0].partitions[0]
    assert (unknown.leader_epoch, unknown.end_offset) == (-1, -1)
    ahead = client.request(OFFSET_FOR_LEADER_EPOCH, 2, epoch_request("epochs", 0, 5)).topics[0].partitions[0]
    assert ahead.error_code == ErrorCode.UNKNOWN_LEADER_EPOCH


def fetch_request(topic, fetch_offset, current_leader_epoch=-1, isolation_level=0, session_epoch=-1):
    return FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=isolation_level,
                        session_id=0, session_epoch=session_epoch, topics=[FetchRequest.FetchTopic(
                            topic=topic, partitions=[FetchRequest.FetchPartition(
                                partition=0, current_leader_epoch=current_leader_epoch, fetch_offset=fetch_offset,
                                partition_max_bytes=1 << 20)])])


def test_fetch_checks_the_leader_epoch_and_stamps_epoch_zero(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    produce_three(client, "fenced")
    ok = client.request(FETCH, 12, fetch_request("fenced", 0, current_leader_epoch=0)).responses[0].partitions[0]
    assert ok.error_code == ErrorCode.NONE
    assert read_batch_header(ok.records).partition_leader_epoch == 0
    ahead = client.request(FETCH, 12, fetch_request("fenced", 0, current_leader_epoch=3)).responses[0].partitions[0]
    assert ahead.error_code == ErrorCode.UNKNOWN_LEADER_EPOCH and len(ahead.records) == 0


def test_fetch_sessions_are_declined_with_session_id_zero(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    produce_three(client, "sessions")
    # kafka-python opens an incremental session with (session 0, epoch 0); pylog answers with a full
    # response and session id 0, which means "no session: keep sending full requests".
    response = client.request(FETCH, 12, fetch_request("sessions", 0, session_epoch=0))
    assert response.session_id == 0 and response.error_code == ErrorCode.NONE
    partition = response.responses[0].partitions[0]
    assert (partition.high_watermark, partition.last_stable_offset, partition.log_start_offset) == (3, 3, 0)


def test_list_offsets_latest_is_the_last_stable_offset_for_read_committed(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    produce_three(client, "stable")
    for isolation_level in (0, 1):
        request = ListOffsetsRequest(replica_id=-1, isolation_level=isolation_level, topics=[
            ListOffsetsRequest.ListOffsetsTopic(name="stable", partitions=[
                ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-1)])])
        answer = client.request(LIST_OFFSETS, 7, request).topics[0].partitions[0]
        assert (answer.error_code, answer.offset, answer.leader_epoch) == (ErrorCode.NONE, 3, 0)


def test_cluster_id_is_kept_across_restarts(tmp_path):
    with EmbeddedBroker(tmp_path) as embedded:
        first = embedded.call(lambda: embedded.broker.cluster_id)
        embedded.restart()
        assert embedded.call(lambda: embedded.broker.cluster_id) == first
    assert f"cluster.id={first}" in (tmp_path / "meta.properties").read_text()
    assert len(first) == 22


def list_offsets_request(topic, current_leader_epoch):
    return ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[ListOffsetsRequest.ListOffsetsTopic(
        name=topic, partitions=[ListOffsetsRequest.ListOffsetsPartition(
            partition_index=0, current_leader_epoch=current_leader_epoch, timestamp=-1)])])


def test_offset_for_leader_epoch_answers_from_the_partitions_epoch_history(kafka_broker):
    # Kafka 4.1.1's answers on one node at leader epoch 0 (LeaderEpochFileCache.endOffsetFor):
    # the current epoch ends at the log end offset; -1 and epochs above the current one
    # were never seen: UNDEFINED_EPOCH_OFFSET (-1, -1); an epoch below the first known one
    # gets that epoch with the first epoch's start offset.
    client = RawClient(kafka_broker.bootstrap_servers)
    produce_three(client, "history")
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("never-written", 1))
    expected = {("history", -5): (-5, 0), ("history", -1): (-1, -1), ("history", 0): (0, 3),
                ("history", 1): (-1, -1), ("history", 5): (-1, -1),
                ("never-written", 0): (0, 0), ("never-written", 1): (-1, -1), ("never-written", -1): (-1, -1)}
    for (topic, leader_epoch), (epoch, end_offset) in expected.items():
        answer = client.request(OFFSET_FOR_LEADER_EPOCH, 4, epoch_request(topic, leader_epoch, -1)).topics[0].partitions[0]
        assert (answer.error_code, answer.leader_epoch, answer.end_offset) == (ErrorCode.NONE, epoch, end_offset), \
            (topic, leader_epoch)


def test_every_api_checks_the_current_leader_epoch_through_the_partition(kafka_broker):
    # A leader at epoch 2 (one node never changes leaders; this stands in for one that did):
    # a client at epoch 1 is fenced, one at 3 is ahead, one at 2 or not saying (-1) is served.
    client = RawClient(kafka_broker.bootstrap_servers)
    produce_three(client, "checked")
    kafka_broker.call(lambda: kafka_broker.broker.partition("checked", 0).lead_alone(2))
    cases = {1: ErrorCode.FENCED_LEADER_EPOCH, 3: ErrorCode.UNKNOWN_LEADER_EPOCH, 2: ErrorCode.NONE, -1: ErrorCode.NONE}
    for current, code in cases.items():
        fetched = client.request(FETCH, 12, fetch_request("checked", 0, current_leader_epoch=current))
        listed = client.request(LIST_OFFSETS, 7, list_offsets_request("checked", current))
        ended = client.request(OFFSET_FOR_LEADER_EPOCH, 4, epoch_request("checked", 2, current))
        assert fetched.responses[0].partitions[0].error_code == code, ("Fetch", current)
        assert listed.topics[0].partitions[0].error_code == code, ("ListOffsets", current)
        assert ended.topics[0].partitions[0].error_code == code, ("OffsetForLeaderEpoch", current)
    ended = client.request(OFFSET_FOR_LEADER_EPOCH, 4, epoch_request("checked", 2, 2)).topics[0].partitions[0]
    assert (ended.leader_epoch, ended.end_offset) == (2, 3)


def test_which_negative_current_epochs_mean_not_said(kafka_broker):
    # Fetch takes any negative epoch for "not said" (FetchRequest.optionalEpoch); ListOffsets
    # and OffsetForLeaderEpoch only -1, so -5 is behind the leader's epoch 0: fenced.
    client = RawClient(kafka_broker.bootstrap_servers)
    produce_three(client, "negative")
    fetched = client.request(FETCH, 12, fetch_request("negative", 0, current_leader_epoch=-5))
    listed = client.request(LIST_OFFSETS, 7, list_offsets_request("negative", -5))
    ended = client.request(OFFSET_FOR_LEADER_EPOCH, 4, epoch_request("negative", 0, -5))
    assert fetched.responses[0].partitions[0].error_code == ErrorCode.NONE
    assert listed.topics[0].partitions[0].error_code == ErrorCode.FENCED_LEADER_EPOCH
    assert ended.topics[0].partitions[0].error_code == ErrorCode.FENCED_LEADER_EPOCH


def test_a_new_partition_records_epoch_zero_in_its_leader_epoch_checkpoint(kafka_broker):
    # Kafka 4.1.1 writes `0 1 / 0 0` when the partition's leader starts, before any record
    # (measured: tests/compat/test_leader_epoch_checkpoint.py).
    client = RawClient(kafka_broker.bootstrap_servers)
    kafka_broker.call(lambda: kafka_broker.broker.create_topic("fresh", 1))
    path = kafka_broker.call(lambda: kafka_broker.broker.partition("fresh", 0).log.dir) / "leader-epoch-checkpoint"
    assert path.read_bytes() == b"0\n1\n0 0\n"
    produce_three(client, "fresh")
    assert path.read_bytes() == b"0\n1\n0 0\n"


def test_offset_for_leader_epoch_answers_from_the_epoch_cache_after_a_leader_change(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    produce_three(client, "changed")
    partition = kafka_broker.call(lambda: kafka_broker.broker.partition("changed", 0))
    kafka_broker.call(lambda: partition.lead_alone(2))
    produce_three(client, "changed")
    assert (partition.log.dir / "leader-epoch-checkpoint").read_bytes() == b"0\n2\n0 0\n2 3\n"
    fetched = client.request(FETCH, 12, fetch_request("changed", 3)).responses[0].partitions[0]
    assert read_batch_header(fetched.records).partition_leader_epoch == 2
    expected = {-1: (-1, -1), 0: (0, 3), 1: (0, 3), 2: (2, 6), 3: (-1, -1)}
    for leader_epoch, (epoch, end_offset) in expected.items():
        answer = client.request(OFFSET_FOR_LEADER_EPOCH, 4, epoch_request("changed", leader_epoch, 2)).topics[0].partitions[0]
        assert (answer.error_code, answer.leader_epoch, answer.end_offset) == (ErrorCode.NONE, epoch, end_offset), \
            leader_epoch
    # An epoch not above the current one is no leader change: nothing is recorded.
    kafka_broker.call(lambda: partition.lead_alone(1))
    assert partition.leader_epoch == 2
    assert partition.log.epoch_entries == [(0, 0), (2, 3)]


def test_the_leader_epoch_and_its_history_survive_a_restart(tmp_path):
    """Each start moves the epoch up by two (fenced at the controlled shutdown, unfenced
    at the start); the epochs that wrote records stay in the history."""
    with EmbeddedBroker(tmp_path) as embedded:
        client = RawClient(embedded.bootstrap_servers)
        embedded.call(lambda: embedded.broker.create_topic("kept", 1))
        produce_three(client, "kept")
        embedded.restart()
        client = RawClient(embedded.bootstrap_servers)
        produce_three(client, "kept")
        embedded.restart()
        partition = embedded.call(lambda: embedded.broker.partition("kept", 0))
        assert partition.leader_epoch == 4
        assert partition.log.epoch_entries == [(0, 0), (2, 3), (4, 6)]
        client = RawClient(embedded.bootstrap_servers)
        for asked, expected in ((0, (0, 3)), (1, (0, 3)), (2, (2, 6)), (3, (2, 6)), (4, (4, 6))):
            answer = client.request(OFFSET_FOR_LEADER_EPOCH, 4,
                                    epoch_request("kept", asked, -1)).topics[0].partitions[0]
            assert (answer.leader_epoch, answer.end_offset) == expected, asked
