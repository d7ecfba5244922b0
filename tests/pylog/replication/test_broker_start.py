"""A broker-only node's start against a real controller (cluster_support.py): what it waits
for, and what it does not.

- A starting broker heartbeats every 10 ms until the controller answers it caught up (Kafka's
  BrokerLifecycleManager while STARTING), not every `broker.heartbeat.interval.ms`: with
  an interval longer than the broker's wait for its unfencing, the start still returns
  unfenced.
- The metadata fetches have their own connection to the controller (Kafka's raft client
  has its own): the controller answers one connection's requests in order, so requests
  sharing a connection with a long-polling Fetch would wait out its max_wait_ms. With the
  follower's long poll made longer than the test's limit, a forwarded CreateTopics is
  still answered, and the broker catches up with what it committed: the fetch in flight
  answers with the new records, and the next one, which the catch-up waits for, asks for
  no wait.
- The metadata follower's task ends on a fault it does not survive (here an exception from
  applying a batch; a record the image refuses is only skipped); the broker says so in
  one ERROR line with the cause, instead of leaving it to asyncio's "exception was never
  retrieved" at garbage collection, or to nothing.
"""

from __future__ import annotations

import asyncio
import logging

from protocol.error_codes import ErrorCode
from pylog import broker as broker_module

from tests.pylog.replication.cluster_support import CREATE_TOPICS_VERSION, ReplicationCluster, eventually

# Longer than the broker's wait for its unfencing at start (UNFENCE_TIMEOUT_MS), so that a
# start that waited for the interval would return fenced.
HEARTBEAT_INTERVAL_MS = 2 * broker_module.UNFENCE_TIMEOUT_MS
SCENARIO_TIMEOUT_S = broker_module.UNFENCE_TIMEOUT_MS / 1000 + 30


def run(scenario, timeout_s: float = SCENARIO_TIMEOUT_S):
    asyncio.run(asyncio.wait_for(scenario, timeout_s))


def test_a_start_is_unfenced_without_waiting_for_a_heartbeat_interval(tmp_path):
    async def scenario():
        cluster = ReplicationCluster(tmp_path, 2, broker_configs={
            "broker.heartbeat.interval.ms": str(HEARTBEAT_INTERVAL_MS),
            "broker.session.timeout.ms": str(2 * HEARTBEAT_INTERVAL_MS)})
        try:
            await cluster.start()
            for node_id, broker in cluster.brokers.items():
                assert broker.lifecycle.unfenced.is_set(), f"broker {node_id} started fenced"
                assert not broker.lifecycle.fenced
                registration = cluster.controller.image.brokers[node_id]
                assert not registration.fenced, f"the controller still fences broker {node_id}"
        finally:
            await cluster.stop()

    run(scenario())


def test_a_forwarded_request_does_not_wait_for_the_metadata_long_poll(tmp_path):
    long_poll_ms = int(10 * SCENARIO_TIMEOUT_S * 1000)

    async def scenario():
        cluster = ReplicationCluster(tmp_path, 1)
        try:
            await cluster.start()
            follower = cluster.brokers[1].metadata_follower
            follower.max_wait_ms = long_poll_ms
            # a fetch with the long wait is in flight at the controller before the request
            sent = follower._fetches_sent
            while follower._fetches_sent < sent + 1:
                await asyncio.sleep(0.01)
            caught_up = []   # what the forward's catch-up returned (False: it timed out)
            catch_up = follower.catch_up

            async def recorded_catch_up(*args, **kwargs):
                caught_up.append(await catch_up(*args, **kwargs))
                return caught_up[-1]

            follower.catch_up = recorded_catch_up
            await cluster.create_topic((1,))
            assert "replicated" in cluster.brokers[1].metadata.topics
            assert caught_up == [True]
        finally:
            await cluster.stop()

    run(scenario())


def test_a_metadata_follower_that_fails_is_one_error_line(tmp_path, caplog):
    async def scenario():
        cluster = ReplicationCluster(tmp_path, 1)
        try:
            await cluster.start()
            broker = cluster.brokers[1]
            follower = broker.metadata_follower
            applied_before = follower.image.offset

            def failing_apply_batch(epoch, entries, on_record_fault=None):
                raise RuntimeError("a fault in applying metadata (injected by the test)")

            follower.image.apply_batch = failing_apply_batch
            task = follower.task
            with caplog.at_level(logging.ERROR, logger="pylog.broker"):
                # a change the controller commits: the follower fetches it and cannot apply it
                response = await cluster.controller.handle(cluster.create_topic_request((1,)), CREATE_TOPICS_VERSION)
                assert response.topics[0].error_code == ErrorCode.NONE
                await eventually(task.done, what="the follower's task ended")
                await asyncio.sleep(0)   # the done callbacks run on the next loop turn
            lines = [r for r in caplog.records if r.name == "pylog.broker" and r.levelno == logging.ERROR]
            assert [r.getMessage() for r in lines] == [
                f"broker 1 stopped following the cluster metadata after offset {applied_before}: "
                "a fault in applying metadata (injected by the test)"]
            assert lines[0].exc_info is not None
        finally:
            await cluster.stop()

    run(scenario())
