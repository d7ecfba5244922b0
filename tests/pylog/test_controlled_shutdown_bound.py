"""A broker's controlled shutdown (pylog/broker_lifecycle.py): bounded as a whole (the
heartbeat that asks to shut down counts toward the bound, so a controller that takes the
connection and never answers cannot hold a stop for its request timeout on top of it; over
a real socket, a listener that accepts and reads, and never answers), and asked about again
at once after the controller's first "not yet" (a broker alone in its cluster is then told
to stop), then 50 ms later as Kafka's BrokerLifecycleManager does, not a heartbeat interval
later."""

from __future__ import annotations

import asyncio
import logging
import time

import uvloop

from protocol.messages import BrokerHeartbeatResponse

from pylog.broker_lifecycle import PENDING_SHUTDOWN_RETRY_MS, BrokerLifecycle
from pylog.controller_channel import RemoteControllerChannel
from pylog.testing import EmbeddedBroker


def test_a_silent_controller_holds_a_controlled_shutdown_no_longer_than_its_bound():
    async def main() -> tuple[bool, float]:
        async def silent(reader, writer):
            while await reader.read(65536):
                pass
            writer.close()

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        channel = RemoteControllerChannel(("127.0.0.1", port), client_id="test", request_timeout_ms=30_000)
        lifecycle = BrokerLifecycle(node_id=1, cluster_id="c", channel=channel, listeners=[], rack=None,
                                    directory_ids=[], heartbeat_interval_ms=200, metadata_offset=lambda: 0)
        lifecycle.broker_epoch = 5
        started = time.monotonic()
        approved = await lifecycle.controlled_shutdown(300)
        elapsed_s = time.monotonic() - started
        await channel.close()
        server.close()
        await server.wait_closed()
        return approved, elapsed_s

    approved, elapsed_s = uvloop.run(main())
    assert not approved
    assert elapsed_s < 5   # the bound (0.3 s) and some slack; the heartbeat alone would wait 30 s


def test_a_broker_alone_is_told_to_stop_by_the_heartbeat_it_sends_right_after_the_first_not_yet(tmp_path, caplog):
    # An interval of a minute: had the broker waited for its next regular heartbeat, the stop
    # would run into its 30 s bound and log that the controlled shutdown did not finish.
    embedded = EmbeddedBroker(tmp_path, config={"broker.heartbeat.interval.ms": "60000"}).start()
    embedded.call(lambda: embedded.broker.create_topic("led", 2))   # leaderships to give up
    lifecycle = embedded.broker.lifecycle
    real_heartbeat = lifecycle.heartbeat
    asked: list[tuple[float, float, bool]] = []   # (sent, answered, allowed to stop) of each asking heartbeat

    async def heartbeat():
        sent = time.monotonic()
        await real_heartbeat()
        if lifecycle.want_shut_down:
            asked.append((sent, time.monotonic(), lifecycle.shut_down_allowed.is_set()))

    lifecycle.heartbeat = heartbeat
    with caplog.at_level(logging.WARNING, logger="pylog.broker"):
        embedded.stop()
    assert [allowed for _, _, allowed in asked] == [False, True]   # "not yet", then "stop"
    assert asked[1][0] - asked[0][1] < PENDING_SHUTDOWN_RETRY_MS / 1000   # sent without the retry's wait
    assert not [r for r in caplog.records if "did not finish" in r.getMessage()]


class ScriptedController:
    """A controller channel whose heartbeat answers say "stop" or "not yet" as scripted,
    noting when each heartbeat arrived."""

    def __init__(self, should_shut_down: list[bool]):
        self.should_shut_down = list(should_shut_down)
        self.asked_at: list[float] = []

    async def send(self, request, version):
        self.asked_at.append(time.monotonic())
        return BrokerHeartbeatResponse(error_code=0, is_caught_up=True, is_fenced=False,
                                       should_shut_down=self.should_shut_down.pop(0))


def test_after_two_not_yets_the_next_heartbeat_waits_50_ms_then_the_interval():
    async def main(answers: list[bool]) -> tuple[bool, list[float]]:
        controller = ScriptedController(answers)
        lifecycle = BrokerLifecycle(node_id=1, cluster_id="c", channel=controller, listeners=[], rack=None,
                                    directory_ids=[], heartbeat_interval_ms=60_000, metadata_offset=lambda: 0)
        lifecycle.broker_epoch = 5
        approved = await lifecycle.controlled_shutdown(1_000)
        return approved, controller.asked_at

    approved, asked_at = uvloop.run(main([False, False, True]))
    assert approved
    assert len(asked_at) == 3
    assert asked_at[1] - asked_at[0] < PENDING_SHUTDOWN_RETRY_MS / 1000    # at once
    # Kafka's 50 ms (less a ms: the event loop's timers have a resolution of a millisecond)
    assert asked_at[2] - asked_at[1] >= (PENDING_SHUTDOWN_RETRY_MS - 1) / 1000

    # a third "not yet": the next question is the regular heartbeat's, an interval away
    # (a minute here), so the 1 s bound runs out first
    approved, asked_at = uvloop.run(main([False, False, False, True]))
    assert not approved
    assert len(asked_at) == 3
