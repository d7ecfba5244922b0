"""A broker's controlled shutdown is bounded as a whole (pylog/broker_lifecycle.py): the
heartbeat that asks to shut down counts toward the bound, so a controller that takes the
connection and never answers cannot hold a stop for its request timeout on top of it. Over
a real socket: a listener that accepts and reads, and never answers."""

from __future__ import annotations

import asyncio
import time

import uvloop

from pylog.broker_lifecycle import BrokerLifecycle
from pylog.controller_channel import RemoteControllerChannel


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
