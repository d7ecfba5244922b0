"""A tiny raw Kafka client for tests: one request, one response, over a real socket."""

from __future__ import annotations

import socket
import struct

from protocol import headers
from protocol.messages import MetadataRequest, RequestHeader
from tests.compat.answers import plain


class RawClient:
    def __init__(self, bootstrap: str, timeout_s: float = 10):
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout_s)
        self.correlation_id = 0

    def send(self, api_key: int, version: int, body) -> int:
        self.correlation_id += 1
        header = RequestHeader(request_api_key=api_key, request_api_version=version,
                               correlation_id=self.correlation_id, client_id="raw")
        payload = headers.encode_request(header, body)
        self.sock.sendall(struct.pack(">i", len(payload)) + payload)
        return self.correlation_id

    def receive(self, api_key: int, version: int):
        size, = struct.unpack(">i", self.read_exactly(4))
        response_header, body = headers.decode_response(api_key, version, self.read_exactly(size))
        return response_header, body

    def request(self, api_key: int, version: int, body):
        correlation_id = self.send(api_key, version, body)
        response_header, response = self.receive(api_key, version)
        assert response_header.correlation_id == correlation_id
        return response

    def read_exactly(self, size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError("connection closed by the broker")
            data += chunk
        return bytes(data)

    def auto_create(self, topic: str) -> None:
        """A client's Metadata request for `topic`, allowed to create it (as a producer sends
        before it produces: Produce itself never creates a topic, in Kafka as in pylog)."""
        response = self.request(3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)],
                                                       allow_auto_topic_creation=True))
        assert [(t.name, t.error_code) for t in response.topics] == [(topic, 0)], response.topics

    def close(self) -> None:
        self.sock.close()


def answer_of(bootstrap: str, api_key: int, version: int, body) -> dict:
    """One request on a connection of its own, and its answer as nested dicts
    (tests/compat/answers.py `plain`: throttle_time_ms left out)."""
    client = RawClient(bootstrap)
    try:
        return plain(client.request(api_key, version, body))
    finally:
        client.close()
