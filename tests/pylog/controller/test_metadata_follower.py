"""MetadataFollower (pylog/metadata_follower.py) against a controller served over a real
socket: pylog's Dispatcher and Server answering Fetch with `handle_metadata_fetch`, the
follower talking through a NodeClient; combined mode (the controller's own log); and a
model test of divergence: a copy of an older controller log, following a newer log that
shares a prefix with it, ends equal to the newer log."""

from __future__ import annotations

import asyncio
import socket
import uuid

from hypothesis import HealthCheck, given, settings, strategies as st

from protocol.metadata import NoOpRecord, PartitionRecord, TopicRecord
from pylog.controller.bootstrap import start_controller
from pylog.controller.metadata_fetch import answer_metadata_fetch, handle_metadata_fetch
from pylog.controller.metadata_log import MetadataLog, partition_dir, write_quorum_state
from pylog.dispatch import Api, Dispatcher
from pylog.metadata_follower import FETCH_KEY, FETCH_VERSION, MetadataFollower
from pylog.network_client import NodeClient
from pylog.server import start_server

NOW_MS = 1_700_000_000_000


def topic(name: str, partitions: int = 1):
    topic_id = uuid.uuid4()
    return [(TopicRecord(name=name, topic_id=topic_id), 0)] + [
        (PartitionRecord(partition_id=p, topic_id=topic_id, replicas=[1], isr=[1], leader=1, leader_epoch=0,
                         partition_epoch=0), 2) for p in range(partitions)]


class Controller:
    """A controller process's metadata log behind a listening socket."""

    def __init__(self, data_dir):
        self.data_dir = data_dir
        self.log = MetadataLog.open(partition_dir(data_dir), now_ms=NOW_MS)
        start_controller(self.log, node_id=1, voters=[1], log_dir=data_dir, now_ms=NOW_MS)
        self.server = None

    async def start(self, port: int = 0):
        async def fetch(request, context):
            return await handle_metadata_fetch(self.log, request, leader_id=1)
        self.server = await start_server(Dispatcher([Api(FETCH_KEY, FETCH_VERSION, FETCH_VERSION, fetch)]),
                                         "127.0.0.1", port, 1 << 24)
        return self.server.address[1]

    async def stop(self):
        await self.server.stop(grace_s=1)
        self.log.close()


async def wait_until(condition, timeout_s: float = 10):
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def run(coroutine):
    asyncio.run(asyncio.wait_for(coroutine, 60))


def test_the_follower_catches_up_applies_each_batch_and_long_polls_for_more(tmp_path):
    async def scenario():
        controller = Controller(tmp_path / "controller")
        port = await controller.start()
        client = NodeClient("127.0.0.1", port, client_id="broker-2")
        seen = []
        copy = MetadataLog.open(partition_dir(tmp_path / "broker"), now_ms=NOW_MS)
        follower = MetadataFollower(copy, client, lambda image, entries: seen.append(
            ([e.offset for e in entries], set(image.topics_by_name))), now_ms=lambda: NOW_MS, max_wait_ms=2000)
        await follower.start()
        await wait_until(lambda: follower.image.offset == controller.log.log_end_offset - 1)
        assert follower.image.metadata_version == 27
        assert seen[0] == ([], set())            # the (empty) local copy replayed first
        # a batch written while the follower's Fetch waits arrives without polling again
        loop = asyncio.get_running_loop()
        written_at = loop.time()
        controller.log.append(topic("orders", 2), now_ms=NOW_MS)
        await wait_until(lambda: "orders" in follower.image.topics_by_name)
        assert loop.time() - written_at < 1.5
        assert seen[-1] == ([controller.log.log_end_offset - 3 + i for i in range(3)], {"orders"})
        assert copy.read_batches(0, 1 << 24) == controller.log.read_batches(0, 1 << 24)
        await follower.stop()
        await client.close()
        copy.close()

        # restart: the local copy is replayed before any fetch
        controller.log.append(topic("events"), now_ms=NOW_MS)
        copy = MetadataLog.open(partition_dir(tmp_path / "broker"), now_ms=NOW_MS)
        client = NodeClient("127.0.0.1", port, client_id="broker-2")
        seen.clear()
        follower = MetadataFollower(copy, client, lambda image, entries: seen.append(set(image.topics_by_name)),
                                    now_ms=lambda: NOW_MS)
        await follower.start()
        assert seen[0] == {"orders"}
        await wait_until(lambda: "events" in follower.image.topics_by_name)
        await follower.stop()
        await client.close()
        copy.close()
        await controller.stop()
    run(scenario())


def test_a_copy_ahead_of_a_new_controller_is_truncated_and_rebuilt(tmp_path):
    async def scenario():
        controller = Controller(tmp_path / "old-controller")
        controller.log.append(topic("lost"), now_ms=NOW_MS)
        for _ in range(3):
            controller.log.append([(NoOpRecord(), 0)], now_ms=NOW_MS)
        port = await controller.start()
        copy = MetadataLog.open(partition_dir(tmp_path / "broker"), now_ms=NOW_MS)
        client = NodeClient("127.0.0.1", port, client_id="broker-2")
        follower = MetadataFollower(copy, client, now_ms=lambda: NOW_MS, max_wait_ms=100)
        await follower.start()
        await wait_until(lambda: "lost" in follower.image.topics_by_name)
        await follower.stop()
        await controller.stop()

        # the controller lost its data: a fresh one, started twice (epoch 2), less in its log
        fresh = Controller(tmp_path / "new-controller")
        fresh.log.close()
        fresh = Controller(tmp_path / "new-controller")
        fresh.log.append(topic("kept"), now_ms=NOW_MS)
        await fresh.start(port)
        images = []
        follower = MetadataFollower(copy, client, lambda image, entries: images.append(image),
                                    now_ms=lambda: NOW_MS, max_wait_ms=100)
        await follower.start()
        await wait_until(lambda: "kept" in follower.image.topics_by_name)
        assert "lost" not in follower.image.topics_by_name
        assert copy.read_batches(0, 1 << 24) != b""
        assert copy.log_end_offset == fresh.log.log_end_offset
        assert [h.partition_leader_epoch for h, _ in copy.batches()] == [
            h.partition_leader_epoch for h, _ in fresh.log.batches()]
        await follower.stop()
        await client.close()
        copy.close()
        await fresh.stop()
    run(scenario())


def test_the_follower_retries_while_the_controller_is_unreachable(tmp_path):
    async def scenario():
        controller = Controller(tmp_path / "controller")
        port = await controller.start()
        await controller.server.stop(grace_s=0)
        # the port stays this test's while nothing listens on it: bound, not listening (connects
        # are refused), so that no other process's listener or connection takes it meanwhile
        placeholder = socket.socket()
        placeholder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        placeholder.bind(("127.0.0.1", port))
        copy = MetadataLog.open(partition_dir(tmp_path / "broker"), now_ms=NOW_MS)
        client = NodeClient("127.0.0.1", port, client_id="broker-2", connect_timeout_ms=200)
        follower = MetadataFollower(copy, client, now_ms=lambda: NOW_MS, retry_backoff_ms=20)
        await follower.start()
        await asyncio.sleep(0.2)
        assert follower.image.offset == -1 and not follower.task.done()
        await controller.start(port)   # a listener may bind beside the placeholder, which then goes
        placeholder.close()
        await wait_until(lambda: follower.image.metadata_version == 27)
        await follower.stop()
        await client.close()
        copy.close()
        await controller.stop()
    run(scenario())


def test_a_fetch_at_the_end_waits_max_wait_ms_unless_a_batch_comes(tmp_path):
    from pylog.metadata_follower import MetadataFollower as Follower

    async def scenario():
        controller = Controller(tmp_path / "controller")
        copy = MetadataLog.open(partition_dir(tmp_path / "broker"), now_ms=NOW_MS)
        copy.append_fetched(controller.log.read_batches(0, 1 << 24), now_ms=NOW_MS)
        request = Follower(copy, None, now_ms=lambda: NOW_MS, max_wait_ms=300).fetch_request()
        loop = asyncio.get_running_loop()
        started = loop.time()
        response = await handle_metadata_fetch(controller.log, request, leader_id=1)
        assert loop.time() - started >= 0.29 and response.responses[0].partitions[0].records == b""
        loop.call_later(0.05, lambda: controller.log.append([(NoOpRecord(), 0)], now_ms=NOW_MS))
        started = loop.time()
        response = await handle_metadata_fetch(controller.log, request, leader_id=1)
        assert loop.time() - started < 0.25 and response.responses[0].partitions[0].records != b""
        copy.close()
        controller.log.close()
    run(scenario())


def test_in_combined_mode_the_follower_applies_the_controllers_own_log(tmp_path):
    async def scenario():
        controller = Controller(tmp_path)
        seen = []
        follower = MetadataFollower(controller.log, None, lambda image, entries: seen.append(
            (len(entries), set(image.topics_by_name))), now_ms=lambda: NOW_MS, max_wait_ms=5000)
        await follower.start()
        assert follower.image.metadata_version == 27 and seen == [(0, set())]
        loop = asyncio.get_running_loop()
        written_at = loop.time()
        controller.log.append(topic("orders"), now_ms=NOW_MS)
        await wait_until(lambda: "orders" in follower.image.topics_by_name)
        assert loop.time() - written_at < 1 and seen[-1] == (2, {"orders"})
        assert follower.image.offset == controller.log.log_end_offset - 1
        assert [p.name for p in partition_dir(tmp_path).parent.iterdir() if p.is_dir()] == ["__cluster_metadata-0"]
        await follower.stop()
        controller.log.close()
    run(scenario())


# ---------------------------------------------------------------------------------------
# Model: whatever the copy holds of an older controller log, following a newer one that
# shares a prefix with it ends with the copy equal to the newer log.



class InProcessChannel:
    """The controller's answer without a socket (what combined mode's channel does)."""

    def __init__(self, log):
        self.log = log

    async def send(self, request, version, timeout_ms=None):
        return answer_metadata_fetch(self.log, request, leader_id=1)


# a log is written as a list of terms, each a list of batch sizes (NoOpRecords per batch)
terms = st.lists(st.lists(st.integers(1, 3), max_size=3), min_size=1, max_size=3)


def write_terms(log, spec, first_record: int = 0):
    """Each term: start_epoch, then its batches; record i of the log is NoOpRecord, made
    distinct by when it is written (the batch timestamp)."""
    stamp = first_record
    for term in spec:
        log.start_epoch(1, [1], now_ms=NOW_MS + stamp)
        for size in term:
            stamp += 1
            log.append([(NoOpRecord(), 0)] * size, now_ms=NOW_MS + stamp)
    return stamp


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(common=terms, old_tail=terms, new_tail=terms, copy_batches=st.integers(0, 30))
def test_the_copy_converges_to_the_newer_log(tmp_path_factory, common, old_tail, new_tail, copy_batches):
    base = tmp_path_factory.mktemp("model")
    old = MetadataLog.open(partition_dir(base / "old"), now_ms=NOW_MS)
    new = MetadataLog.open(partition_dir(base / "new"), now_ms=NOW_MS)
    stamp = write_terms(old, common)
    assert write_terms(new, common) == stamp
    write_terms(old, old_tail, first_record=stamp + 1000)
    # the newer log's next terms are above every epoch the older one reached (Raft's rule)
    write_quorum_state(new.dir, leader_id=1, leader_epoch=max(old.epoch, new.epoch), voters=[1])
    new = reopen(new)
    write_terms(new, new_tail, first_record=stamp + 2000)

    copy = MetadataLog.open(partition_dir(base / "copy"), now_ms=NOW_MS)
    for header, _ in list(old.batches())[:copy_batches]:
        copy.append_fetched(old.read_batches(header.base_offset, 1), now_ms=NOW_MS)

    async def follow():
        follower = MetadataFollower(copy, InProcessChannel(new), now_ms=lambda: NOW_MS, fetch_max_bytes=200)
        await follower.rebuild_image()
        # enough rounds for every batch (one at least per fetch) and every truncation
        for _ in range(60):
            assert await follower.fetch_once()
        return follower
    follower = asyncio.run(follow())
    assert copy.read_batches(0, 1 << 24) == new.read_batches(0, 1 << 24)
    assert follower.image.offset == new.log_end_offset - 1
    assert [(e.epoch, e.start_offset) for e in copy.log.epoch_entries] == [
        (e.epoch, e.start_offset) for e in new.log.epoch_entries]
    for log in (old, new, copy):
        log.close()


def reopen(log):
    log.close()
    return MetadataLog.open(log.dir, now_ms=NOW_MS)


def test_a_record_the_image_cannot_apply_is_skipped_with_one_error_line(tmp_path, caplog):
    """A broker-only node's follower skips a record its image cannot apply (a partition of a
    topic it does not know), logs one ERROR line naming the record's offset, and goes on with
    the rest of the batch and the batches after it; so does the replay of the local copy at
    the next start (Kafka: a metadata-loading fault is fatal only to a controller)."""
    async def scenario():
        controller = Controller(tmp_path / "controller")
        port = await controller.start()
        controller.log.append(topic("before"), now_ms=NOW_MS)
        bad_offset = controller.log.log_end_offset
        orphan = PartitionRecord(partition_id=0, topic_id=uuid.uuid4(), replicas=[1], isr=[1], leader=1,
                                 leader_epoch=0, partition_epoch=0)
        controller.log.append([(orphan, 2)] + topic("after"), now_ms=NOW_MS)
        for restart in (False, True):
            caplog.clear()
            client = NodeClient("127.0.0.1", port, client_id="broker-2")
            copy = MetadataLog.open(partition_dir(tmp_path / "broker"), now_ms=NOW_MS)
            follower = MetadataFollower(copy, client, now_ms=lambda: NOW_MS, max_wait_ms=200)
            with caplog.at_level("ERROR", logger="pylog.metadata_follower"):
                await follower.start()
                await wait_until(lambda: follower.image.offset == controller.log.log_end_offset - 1)
            assert {"before", "after"} <= set(follower.image.topics_by_name)
            assert follower.record_faults == 1
            assert not follower.task.done(), f"the follower stopped (restart={restart})"
            errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
            assert len(errors) == 1 and f"offset {bad_offset} cannot be applied" in errors[0], errors
            await follower.stop()
            await client.close()
            copy.close()
        await controller.stop()
    run(scenario())
