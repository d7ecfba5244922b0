"""The broker process: configuration, the served APIs, the listening socket.

Work in progress (issue 4): today the broker answers ApiVersions only; Metadata,
Produce, Fetch and the rest are added API by API as their handlers land. What is
here is the frame: `Broker.start()` binds the listener (port 0 picks a free port) and
`Broker.stop()` closes it.
"""

from __future__ import annotations

import asyncio
import logging

from pylog.config import BrokerConfig
from pylog.dispatch import Api, Dispatcher
from pylog.handlers import api_versions
from pylog.server import start_server

log = logging.getLogger("pylog.broker")


class Broker:
    """One pylog broker inside an asyncio event loop."""

    def __init__(self, config: BrokerConfig):
        self.config = config
        self.dispatcher = Dispatcher([])
        self.dispatcher.apis[18] = Api(18, 0, 3, api_versions.make_handler(self.dispatcher))
        self.server: asyncio.Server | None = None
        self.host = ""
        self.port = 0

    async def start(self, host: str | None = None, port: int | None = None) -> None:
        bind_host, bind_port = self.config.listener_address()
        host = bind_host if host is None else host
        port = bind_port if port is None else port
        self.server = await start_server(self.dispatcher, host, port, self.config.socket_request_max_bytes)
        self.host, self.port = self.server.sockets[0].getsockname()[:2]

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None
