"""The bytes of requests the broker holds, across all connections (Kafka's
`queued.max.request.bytes`, its `MemoryPool`).

A request is charged its size as soon as its size prefix has arrived and its frame is
admitted, though its bytes are only allocated as they come in (`protocol/framing.py`), and
released once it is answered. A frame is admitted when the pool is not exhausted (held <
limit), whatever its size, as in Kafka's pool, which lets the last allocation go past the
limit: so one request larger than the limit still gets in, alone.

While the pool is exhausted, every connection that is not in the middle of an admitted
frame stops reading (`pause_reading`): its bytes wait in the kernel's socket buffer and,
behind it, in the client. A connection in the middle of an admitted frame keeps reading to
its end, so that admitted requests always complete and release what they hold: no two
half-read frames can wait on each other. When a release brings the pool below the limit,
the paused connections read again.

A limit of -1 (Kafka's default) never pauses anything; the charges are still counted.

Owned by the event loop: connections call it from their protocol callbacks and their
serving task, never from another thread.
"""

from __future__ import annotations


class RequestMemory:
    def __init__(self, limit_bytes: int = -1):
        self.limit_bytes = limit_bytes
        self.held_bytes = 0
        self.paused: set = set()   # the connections paused until the pool has room

    @property
    def exhausted(self) -> bool:
        return 0 <= self.limit_bytes <= self.held_bytes

    def charge(self, size_bytes: int) -> None:
        self.held_bytes += size_bytes

    def release(self, size_bytes: int) -> None:
        self.held_bytes -= size_bytes
        if self.paused and not self.exhausted:
            paused, self.paused = self.paused, set()
            for connection in paused:
                connection.resume_for_memory()

    def pause(self, connection) -> None:
        self.paused.add(connection)

    def forget(self, connection) -> None:
        self.paused.discard(connection)
