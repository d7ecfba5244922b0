"""How a broker reaches the controller: one interface, two ways.

    response = await broker.controller_channel.send(BrokerHeartbeatRequest(...), version=1)

Every broker-to-controller request (BrokerRegistration, BrokerHeartbeat, AlterPartition,
AllocateProducerIds, and the admin requests a broker forwards: CreateTopics, DeleteTopics,
CreatePartitions, the config changes, ElectLeaders, reassignments) goes through `send`:

- `RemoteControllerChannel`: the controller is another process; the request goes over
  Kafka's protocol (pylog/network_client.py) to `controller.quorum.bootstrap.servers` (or
  the address of `controller.quorum.voters`). A failure raises `NodeUnavailable`; the
  caller retries as Kafka's broker does (heartbeats on their next tick, forwarded requests
  answered with a retriable error).
- `LocalControllerChannel`: the controller runs in this process (`process.roles =
  broker,controller`, the single-node default). The request message is handed to the
  controller's handler for its API key, with no socket and no encoding; the answer is the
  same message the remote path would decode.

So the combined node and a cluster of separate processes run the same broker code.
"""

from __future__ import annotations

from typing import Protocol

from protocol.schema import Message

from pylog.listen_sockets import USE_DEFAULT_BUFFER_SIZE
from pylog.network_client import NodeClient, NodeUnavailable


class ControllerChannel(Protocol):
    async def send(self, request: Message, version: int, timeout_ms: int | None = None) -> Message: ...


class RemoteControllerChannel:
    def __init__(self, address: tuple[str, int], *, client_id: str, request_timeout_ms: int = 30_000,
                 receive_buffer_bytes: int = USE_DEFAULT_BUFFER_SIZE):
        self.client = NodeClient(address[0], address[1], client_id=client_id,
                                 request_timeout_ms=request_timeout_ms, receive_buffer_bytes=receive_buffer_bytes)

    async def send(self, request: Message, version: int, timeout_ms: int | None = None) -> Message:
        return await self.client.send(request, version, timeout_ms)

    async def close(self) -> None:
        await self.client.close()


class LocalControllerChannel:
    def __init__(self, controller):
        self.controller = controller

    async def send(self, request: Message, version: int, timeout_ms: int | None = None) -> Message:
        if not self.controller.active:
            raise NodeUnavailable("the controller of this process is not running")
        return await self.controller.handle(request, version)

    async def close(self) -> None:
        pass


def controller_address(config) -> tuple[str, int] | None:
    """Where a broker-only node finds the controller: the first of
    `controller.quorum.bootstrap.servers`, else of `controller.quorum.voters`."""
    for entry in config.get("controller.quorum.bootstrap.servers") or ():
        host, _, port = entry.strip().rpartition(":")
        return host.strip("[]"), int(port)
    for entry in config.get("controller.quorum.voters") or ():
        _, _, address = entry.strip().partition("@")
        host, _, port = address.rpartition(":")
        return host.strip("[]"), int(port)
    return None
