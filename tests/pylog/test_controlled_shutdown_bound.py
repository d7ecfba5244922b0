"""A broker's controlled shutdown (pylog/broker_lifecycle.py): bounded as a whole (the
heartbeat that asks to shut down counts toward the bound, so a controller that takes the
connection and never answers cannot hold a stop for its request timeout on top of it; over
a real socket, a listener that accepts and reads, and never answers), and asked about again
50 ms after the controller's first "not yet", as Kafka's BrokerLifecycleManager does, not a
heartbeat interval later."""

from __future__ import annotations

import asyncio
import logging
import time

import uvloop

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


def test_the_heartbeat_after_the_first_not_yet_goes_50_ms_later_not_an_interval_later(tmp_path, caplog):
    # An interval of a minute: had the broker waited for its next regular heartbeat, the stop
    # would run into its 30 s bound and log that the controlled shutdown did not finish.
    embedded = EmbeddedBroker(tmp_path, config={"broker.heartbeat.interval.ms": "60000"}).start()
    embedded.call(lambda: embedded.broker.create_topic("led", 2))   # leaderships to move away
    lifecycle = embedded.broker.lifecycle
    real_heartbeat = lifecycle.heartbeat
    asked: list[tuple[float, bool]] = []   # (when, allowed to stop after it) of each asking heartbeat

    async def heartbeat():
        await real_heartbeat()
        if lifecycle.want_shut_down:
            asked.append((time.monotonic(), lifecycle.shut_down_allowed.is_set()))

    lifecycle.heartbeat = heartbeat
    with caplog.at_level(logging.WARNING, logger="pylog.broker"):
        embedded.stop()
    assert [allowed for _, allowed in asked] == [False, True]   # "not yet", then "stop"
    assert asked[1][0] - asked[0][0] >= PENDING_SHUTDOWN_RETRY_MS / 1000
    assert not [r for r in caplog.records if "did not finish" in r.getMessage()]
