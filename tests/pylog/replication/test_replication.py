"""Replication between real brokers: leaders, followers, the HW, ISR changes, acks=-1.

A controller-only node and two or three broker-only nodes in one event loop on real
sockets (tests/pylog/replication/cluster_support.py): the topic is created with
CreateTopics, leadership and replicas move through the controller (reassignments,
preferred elections), and the leaders' AlterPartition requests go to that controller.
A "stopped" follower is one whose fetching the harness paused. Producers and consumers
are raw Kafka requests over `NodeClient`.
"""

from __future__ import annotations

import asyncio
import socket
import time

from protocol.error_codes import ErrorCode
from protocol.messages import DeleteRecordsRequest, ListOffsetsRequest, MetadataRequest, OffsetForLeaderEpochRequest
from protocol.records import read_batch_header
from pylog.partition import Partition
from pylog.delayed import DataWaiters
from storage.config import LogConfig
from storage.log import Log

from tests.pylog.replication.cluster_support import (
    TOPIC,
    ReplicationCluster,
    batch,
    eventually,
    fetch,
    produce,
    segment_bytes,
)
from tests.pylog.test_socket_options import reported_receive_buffer


def run(scenario, timeout_s: float = 60):
    return asyncio.run(asyncio.wait_for(scenario, timeout_s))


async def started(tmp_path, size, **kwargs) -> ReplicationCluster:
    return await ReplicationCluster(tmp_path, size, **kwargs).start()


def leo(cluster, node_id):
    """The replica's log end offset; None while the broker does not host it yet (a new
    replica's log is created off the event loop)."""
    partition = cluster.partition(node_id)
    return None if partition is None else partition.log_end_offset


# -- copying -------------------------------------------------------------------------------

def test_followers_replicate_byte_identical_segments_and_epochs(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 3, topic_configs={"internal.segment.bytes": "1024"})
        try:
            epoch = (await cluster.create_topic((1, 2, 3))).leader_epoch
            client = cluster.client(1)
            for i in range(30):
                answer = await produce(client, batch(b"value-%03d" % i, b"x" * 40))
                assert (answer.error_code, answer.base_offset) == (ErrorCode.NONE, 2 * i)
                # acks=-1 with all three in the ISR: both followers hold the records already
                assert leo(cluster, 2) >= 2 * i + 2 and leo(cluster, 3) >= 2 * i + 2
            await eventually(lambda: all(cluster.partition(n).high_watermark == 60 for n in (1, 2, 3)),
                             what="every replica's HW at 60")
            leader_files = segment_bytes(cluster.brokers[1])
            assert len(leader_files) > 1   # several segments: rolls happen on the followers too
            for node_id in (2, 3):
                assert segment_bytes(cluster.brokers[node_id]) == leader_files
                assert cluster.partition(node_id).log.epoch_entries == [(epoch, 0)]
                assert cluster.partition(node_id).is_leader is False
            assert cluster.partition(1).log.epoch_entries == [(epoch, 0)]
        finally:
            await cluster.stop()
    run(scenario())


# -- the high watermark --------------------------------------------------------------------

def test_the_hw_is_the_smallest_isr_leo_and_consumers_stop_at_it(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 2, broker_configs={"replica.lag.time.max.ms": "1500"})
        try:
            await cluster.create_topic((1, 2))
            client = cluster.client(1)
            assert (await produce(client, batch(b"a", b"b"))).error_code == ErrorCode.NONE
            assert cluster.partition(1).high_watermark == 2

            cluster.pause_fetching(2)
            await asyncio.sleep(0.6)   # a fetch in flight comes back and none follows
            assert (await produce(client, batch(b"c", b"d", b"e"), acks=1)).error_code == ErrorCode.NONE
            assert (leo(cluster, 1), leo(cluster, 2), cluster.partition(1).high_watermark) == (5, 2, 2)
            # a consumer reads up to the HW only; the records above it are not visible yet
            visible = await fetch(client, 0)
            assert (visible.error_code, visible.high_watermark) == (ErrorCode.NONE, 2)
            assert read_batch_header(visible.records).last_offset_delta == 1 and \
                len(visible.records) == read_batch_header(visible.records).batch_length + 12
            nothing = await fetch(client, 2)
            assert (nothing.error_code, nothing.records) == (ErrorCode.NONE, b"")

            # a long-poll consumer parked at the HW is answered when the follower catches up
            waiting = asyncio.ensure_future(fetch(cluster.client(1), 2, max_wait_ms=5000, min_bytes=1))
            await asyncio.sleep(0.2)
            assert not waiting.done()
            cluster.resume_fetching(2)
            caught_up = await waiting
            assert (caught_up.error_code, caught_up.high_watermark) == (ErrorCode.NONE, 5)
            assert read_batch_header(caught_up.records).base_offset == 2

            # stopped again: after replica.lag.time.max.ms the leader shrinks the ISR to itself
            cluster.pause_fetching(2)
            await asyncio.sleep(0.6)
            assert (await produce(client, batch(b"f"), acks=1)).error_code == ErrorCode.NONE
            assert cluster.partition(1).high_watermark == 5
            await eventually(lambda: cluster.registration.isr == (1,), what="ISR shrunk to (1,)")
            assert cluster.isrs()[-1] == (1,)
            await eventually(lambda: cluster.partition(1).high_watermark == 6, what="HW at the leader's LEO")
            assert read_batch_header((await fetch(client, 5)).records).base_offset == 5

            # back: the follower catches up and is expanded into the ISR again
            cluster.resume_fetching(2)
            await eventually(lambda: cluster.registration.isr == (1, 2), what="ISR expanded to (1, 2)")
            assert leo(cluster, 2) == 6
        finally:
            await cluster.stop()
    run(scenario())


# -- acks=-1 ---------------------------------------------------------------------------------

def test_acks_all_waits_for_the_follower_and_times_out_without_it(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 2)
        try:
            await cluster.create_topic((1, 2))
            client = cluster.client(1)
            cluster.pause_fetching(2)
            await asyncio.sleep(0.6)
            other = cluster.client(1)
            started_at = time.monotonic()
            pending = asyncio.ensure_future(produce(client, batch(b"a", b"b"), timeout_ms=1000))
            await asyncio.sleep(0.2)
            # the waiting produce parks its own connection only
            metadata = await other.send(MetadataRequest(topics=None), 12)
            assert sorted(b.node_id for b in metadata.brokers) == [1, 2]
            assert not pending.done()
            timed_out = await pending
            assert time.monotonic() - started_at >= 0.9
            # the records stay written, with the offsets the append gave them
            assert (timed_out.error_code, timed_out.base_offset) == (ErrorCode.REQUEST_TIMED_OUT, 0)
            assert leo(cluster, 1) == 2 and cluster.partition(1).high_watermark == 0

            # with the follower back, acks=-1 is answered once it holds the records
            cluster.resume_fetching(2)
            pending = asyncio.ensure_future(produce(client, batch(b"c"), timeout_ms=5000))
            done = await pending
            assert (done.error_code, done.base_offset) == (ErrorCode.NONE, 2)
            assert leo(cluster, 2) >= 3 and cluster.partition(1).high_watermark >= 3
        finally:
            await cluster.stop()
    run(scenario())


def test_a_waiting_acks_all_produce_ends_on_a_leader_change_or_a_deletion(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 2)
        try:
            await cluster.create_topic((1, 2))
            client = cluster.client(1)
            cluster.pause_fetching(2)
            await asyncio.sleep(0.6)
            pending = asyncio.ensure_future(produce(client, batch(b"a"), timeout_ms=20_000))
            await asyncio.sleep(0.2)
            assert not pending.done()
            # the controller elects broker 2 (still in the ISR: not lagging for replica.lag.time.max.ms)
            elected = asyncio.ensure_future(cluster.elect(2))
            moved = await asyncio.wait_for(pending, 2)
            assert (moved.error_code, moved.base_offset) == (ErrorCode.NOT_LEADER_OR_FOLLOWER, 0)
            await elected
            cluster.resume_fetching(2)   # it leads: nothing to fetch

            # back to broker 1, with broker 2 in the ISR but not fetching
            cluster.pause_fetching(2)
            await cluster.elect(1)
            assert cluster.registration.isr == (1, 2)
            await asyncio.sleep(0.6)
            pending = asyncio.ensure_future(produce(client, batch(b"b"), timeout_ms=20_000))
            await asyncio.sleep(0.2)
            assert not pending.done()
            deleting = asyncio.ensure_future(cluster.brokers[1].delete_topic(TOPIC))
            gone = await asyncio.wait_for(pending, 2)
            await deleting
            assert gone.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        finally:
            await cluster.stop()
    run(scenario())


def test_not_enough_replicas_until_the_follower_joins_the_isr(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 2, topic_configs={"min.insync.replicas": "2"})
        try:
            # the follower is being added (a reassignment onto (1, 2)) and does not fetch yet:
            # the ISR is the leader alone
            await cluster.create_topic((1,))
            cluster.pause_fetching(2)
            await cluster.reassign((1, 2))
            assert cluster.registration.isr == (1,)
            client = cluster.client(1)
            refused = await produce(client, batch(b"a"))
            assert (refused.error_code, refused.base_offset) == (ErrorCode.NOT_ENOUGH_REPLICAS, -1)
            assert leo(cluster, 1) == 0   # nothing written
            # acks=1 does not care about min.insync.replicas
            assert (await produce(client, batch(b"b"), acks=1)).error_code == ErrorCode.NONE

            cluster.resume_fetching(2)   # the follower starts fetching, catches up, joins
            await eventually(lambda: cluster.registration.isr == (1, 2), what="ISR expanded to (1, 2)")
            await cluster.settled()   # the leader has the controller's answer too
            accepted = await produce(client, batch(b"c"))
            assert (accepted.error_code, accepted.base_offset) == (ErrorCode.NONE, 1)
            assert cluster.isrs() == [(1, 2)]
            assert cluster.registration.replicas == (1, 2) and not cluster.registration.adding_replicas
        finally:
            await cluster.stop()
    run(scenario())


# -- truncation ----------------------------------------------------------------------------

def test_a_follower_truncates_records_of_an_old_epoch_through_diverging_epoch(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 2)
        try:
            first_epoch = (await cluster.create_topic((1, 2))).leader_epoch
            first = cluster.client(1)
            assert (await produce(first, batch(b"a", b"b", b"c"))).error_code == ErrorCode.NONE
            cluster.pause_fetching(2)
            await asyncio.sleep(0.6)
            # only broker 1 gets these (the first epoch, offsets 3..8)
            for values in ((b"x1", b"x2"), (b"x3", b"x4"), (b"x5", b"x6")):
                assert (await produce(first, batch(*values), acks=1)).error_code == ErrorCode.NONE
            assert (leo(cluster, 1), leo(cluster, 2)) == (9, 3)

            # broker 2 (still in the ISR) is elected at the next epoch and takes writes; broker 1 follows it
            second_epoch = (await cluster.elect(2)).leader_epoch
            assert leo(cluster, 2) == 3
            cluster.resume_fetching(2)   # it leads: nothing to fetch
            second = cluster.client(2)
            assert (await produce(second, batch(b"d", b"e"))).base_offset == 3
            await eventually(lambda: leo(cluster, 1) == 5 and cluster.partition(1).log.latest_epoch == second_epoch,
                             what="broker 1 truncated and caught up")
            assert segment_bytes(cluster.brokers[1]) == segment_bytes(cluster.brokers[2])
            assert cluster.partition(1).log.epoch_entries == [(first_epoch, 0), (second_epoch, 3)]
            assert cluster.partition(2).log.epoch_entries == [(first_epoch, 0), (second_epoch, 3)]
            assert not cluster.partition(1).is_leader
        finally:
            await cluster.stop()
    run(scenario())


def test_a_follower_below_the_leaders_log_start_starts_its_log_there(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 2)
        try:
            await cluster.create_topic((1,))   # the follower is added later
            client = cluster.client(1)
            for i in range(4):
                assert (await produce(client, batch(b"a%d" % i, b"b%d" % i))).error_code == ErrorCode.NONE
            deleted = await client.send(DeleteRecordsRequest(timeout_ms=1000, topics=[
                DeleteRecordsRequest.DeleteRecordsTopic(name=TOPIC, partitions=[
                    DeleteRecordsRequest.DeleteRecordsPartition(partition_index=0, offset=5)])]), 2)
            assert deleted.topics[0].partitions[0].low_watermark == 5
            # the follower fetches at 0: OFFSET_OUT_OF_RANGE; the leader's log starts above its LEO
            await cluster.reassign((1, 2))
            await eventually(lambda: leo(cluster, 2) == 8, what="the follower at the leader's LEO")
            follower = cluster.partition(2)
            # the log starts again at the base of the batch holding 5, then takes the leader's log start
            assert follower.log.segments[0].base_offset == 4
            assert follower.log_start_offset == 5
            await eventually(lambda: cluster.registration.isr == (1, 2), what="ISR expanded to (1, 2)")
        finally:
            await cluster.stop()
    run(scenario())


# -- refusals ------------------------------------------------------------------------------

def test_follower_fetch_errors_on_the_leader(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 3)
        try:
            # broker 3 is no replica; 2 does not fetch; the leader epoch e is at least 1
            await cluster.create_topic((1, 2))
            e = (await cluster.bump_leader_epoch()).leader_epoch
            cluster.pause_fetching(2)
            await asyncio.sleep(0.6)   # a fetch in flight comes back and none follows
            client = cluster.client(1)
            assert (await produce(client, batch(b"a", b"b"), acks=1)).error_code == ErrorCode.NONE
            # a broker that is no replica: UNKNOWN_LEADER_EPOCH when it names an epoch, else NOT_LEADER_OR_FOLLOWER
            assert (await fetch(client, 0, replica_id=3, current_leader_epoch=e)).error_code == \
                ErrorCode.UNKNOWN_LEADER_EPOCH
            assert (await fetch(client, 0, replica_id=3)).error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            # a replica with a stale or a future epoch
            assert (await fetch(client, 0, replica_id=2, current_leader_epoch=e - 1)).error_code == \
                ErrorCode.FENCED_LEADER_EPOCH
            assert (await fetch(client, 0, replica_id=2, current_leader_epoch=e + 1)).error_code == \
                ErrorCode.UNKNOWN_LEADER_EPOCH
            # a last fetched epoch the leader cannot place
            unknown = await fetch(client, 2, replica_id=2, current_leader_epoch=e, last_fetched_epoch=e + 5)
            assert unknown.error_code == ErrorCode.OFFSET_OUT_OF_RANGE
            # an epoch that ended before the fetch offset
            diverging = await fetch(client, 7, replica_id=2, current_leader_epoch=e, last_fetched_epoch=e - 1)
            assert diverging.error_code == ErrorCode.NONE and diverging.records == b""
            assert (diverging.diverging_epoch.epoch, diverging.diverging_epoch.end_offset) == (e - 1, 0)
            # a follower reads past the HW, to the LEO; the answer's HW is the leader's
            ok = await fetch(client, 0, replica_id=2, current_leader_epoch=e, last_fetched_epoch=-1)
            assert (ok.error_code, ok.high_watermark) == (ErrorCode.NONE, 0)
            assert read_batch_header(ok.records).base_offset == 0
            assert cluster.partition(1).high_watermark == 0   # fetched at 0: the follower holds nothing yet
            done = await fetch(client, 2, replica_id=2, current_leader_epoch=e, last_fetched_epoch=e)
            assert (done.error_code, done.high_watermark) == (ErrorCode.NONE, 2)
        finally:
            await cluster.stop()
    run(scenario())


def test_a_follower_refuses_clients(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 2)
        try:
            await cluster.create_topic((1, 2))
            e = (await cluster.bump_leader_epoch()).leader_epoch   # a stale epoch e - 1 >= 0 exists
            assert (await produce(cluster.client(1), batch(b"a"))).error_code == ErrorCode.NONE
            follower = cluster.client(2)
            refused = await produce(follower, batch(b"b"))
            assert (refused.error_code, refused.base_offset, refused.log_start_offset) == \
                (ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1)
            assert (await fetch(follower, 0)).error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            assert (await fetch(follower, 0, current_leader_epoch=e - 1)).error_code == ErrorCode.FENCED_LEADER_EPOCH
            listed = await follower.send(ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
                ListOffsetsRequest.ListOffsetsTopic(name=TOPIC, partitions=[
                    ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-1)])]), 7)
            assert listed.topics[0].partitions[0].error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            epochs = await follower.send(OffsetForLeaderEpochRequest(replica_id=-1, topics=[
                OffsetForLeaderEpochRequest.OffsetForLeaderTopic(topic=TOPIC, partitions=[
                    OffsetForLeaderEpochRequest.OffsetForLeaderPartition(partition=0, leader_epoch=1)])]), 4)
            assert epochs.topics[0].partitions[0].error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            deleted = await follower.send(DeleteRecordsRequest(timeout_ms=1000, topics=[
                DeleteRecordsRequest.DeleteRecordsTopic(name=TOPIC, partitions=[
                    DeleteRecordsRequest.DeleteRecordsPartition(partition_index=0, offset=1)])]), 2)
            assert deleted.topics[0].partitions[0].error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            # the follower still has the records, from its first one
            assert leo(cluster, 2) == 1 and cluster.partition(2).log_start_offset == 0
        finally:
            await cluster.stop()
    run(scenario())


def test_no_replica_any_more_stops_fetching_and_deletes_the_log(tmp_path):
    async def scenario():
        cluster = await started(tmp_path, 2)
        try:
            await cluster.create_topic((1, 2))
            assert (await produce(cluster.client(1), batch(b"a"))).error_code == ErrorCode.NONE
            assert leo(cluster, 2) == 1
            log_dir = cluster.partition(2).log.dir
            await cluster.reassign((1,))
            # moved away: fetching stops and the replica is deleted (Kafka's broker deletes
            # a partition the metadata no longer places on it)
            assert cluster.brokers[2].fetcher_manager.leader_of((TOPIC, 0)) is None
            assert cluster.partition(2) is None
            await eventually(lambda: not log_dir.exists(), what="the moved replica's directory gone")
            assert (await produce(cluster.client(1), batch(b"b"))).error_code == ErrorCode.NONE
            assert leo(cluster, 1) == 2
            # the topic is in broker 2's metadata, on other brokers: clients are sent to refresh it
            gone = cluster.client(2)
            assert (await fetch(gone, 0)).error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            assert (await produce(gone, batch(b"c"))).error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            listed = await gone.send(ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
                ListOffsetsRequest.ListOffsetsTopic(name=TOPIC, partitions=[
                    ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-1),
                    ListOffsetsRequest.ListOffsetsPartition(partition_index=1, timestamp=-1)])]), 7)
            assert [p.error_code for p in listed.topics[0].partitions] == \
                [ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]
        finally:
            await cluster.stop()
    run(scenario())


# -- the checkpointed HW -------------------------------------------------------------------

def test_a_partition_opens_at_its_checkpointed_hw_clamped(tmp_path):
    log = Log.open(tmp_path / "t-0", LogConfig(), now_ms=0)
    try:
        for i in range(4):
            log.append(batch(b"v%d" % i), now_ms=0)
        assert Partition("t", 0, log, 1, DataWaiters(), None, high_watermark=2).high_watermark == 2
        assert Partition("t", 0, log, 1, DataWaiters(), None, high_watermark=99).high_watermark == 4
        log.advance_log_start_offset(1)
        assert Partition("t", 0, log, 1, DataWaiters(), None).high_watermark == 1   # none saved: the log start
        # a lone leader's HW is its LEO
        assert Partition("t", 0, log, 1, DataWaiters(), 0, high_watermark=2).high_watermark == 4
    finally:
        log.close()


# -- a real client -------------------------------------------------------------------------

def test_kafka_python_acks_all_is_answered_once_the_follower_has_the_records(tmp_path):
    from kafka import KafkaConsumer, KafkaProducer

    async def scenario():
        cluster = await started(tmp_path, 2)
        try:
            await cluster.create_topic((1, 2))
            bootstrap = f"127.0.0.1:{cluster.brokers[1].port}"

            def produce_with_kafka_python():
                producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=0)
                try:
                    return [producer.send(TOPIC, b"value-%d" % i).get(timeout=10).offset for i in range(5)]
                finally:
                    producer.close()

            offsets = await asyncio.to_thread(produce_with_kafka_python)
            assert offsets == [0, 1, 2, 3, 4]
            assert leo(cluster, 2) == 5   # acks=all: the follower held every record before each answer

            def consume_with_kafka_python():
                consumer = KafkaConsumer(TOPIC, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                                         consumer_timeout_ms=3000, enable_auto_commit=False)
                try:
                    return [message.value for message in consumer]
                finally:
                    consumer.close()

            assert await asyncio.to_thread(consume_with_kafka_python) == [b"value-%d" % i for i in range(5)]
        finally:
            await cluster.stop()
    run(scenario())


def test_a_brokers_connections_have_kafkas_receive_buffers(tmp_path):
    """As in Kafka: a follower's connection to its leader gets `replica.socket.receive.buffer.bytes`
    (64 KiB by default; BrokerBlockingSender), the metadata fetches from the controller
    `socket.receive.buffer.bytes` (100 KiB; RaftManager), the other requests to the controller
    the operating system's size (NodeToControllerChannelManager). (A 64 KiB buffer reads back
    as the size an untouched socket starts with here, so the set value is checked at the client
    too, and on the socket with sizes that differ.)"""
    def receive_buffer(client) -> tuple[int, int]:
        return client.receive_buffer_bytes, \
            client._writer.get_extra_info("socket").getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)

    async def broker_clients(name: str, broker_configs):
        cluster = await started(tmp_path / name, 2, broker_configs=broker_configs)
        try:
            await cluster.create_topic((1, 2))
            await produce(cluster.client(1), batch(b"v"))
            follower = cluster.brokers[2]
            controller_channel = follower.controller_channel.inner   # (under the cluster's RecordingChannel)
            clients = (follower.fetcher_manager.fetchers[1].client, follower.metadata_follower.channel.client,
                       controller_channel.client)
            await eventually(lambda: all(c._writer is not None for c in clients), what="every connection open")
            return [receive_buffer(c) for c in clients]
        finally:
            await cluster.stop()

    untouched = reported_receive_buffer(None)
    assert run(broker_clients("default", {})) == [
        (64 * 1024, reported_receive_buffer(64 * 1024)),
        (100 * 1024, reported_receive_buffer(100 * 1024)),
        (-1, untouched)]
    assert untouched not in (reported_receive_buffer(16384), reported_receive_buffer(32768))
    assert run(broker_clients("set", {"replica.socket.receive.buffer.bytes": "16384",
                                      "socket.receive.buffer.bytes": "32768"}))[:2] == [
        (16384, reported_receive_buffer(16384)), (32768, reported_receive_buffer(32768))]
