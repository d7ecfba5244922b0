"""A pylog broker inside the calling process, for tests: `pylog.testing.EmbeddedBroker`.

    from pylog.testing import EmbeddedBroker

    with EmbeddedBroker() as broker:              # port 0, a temporary data directory
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
        ...

The broker's asyncio event loop runs in a daemon thread, so synchronous test code (and
clients that run their own loops) can use it. `start()` returns once the listener is
bound; `stop()` shuts the broker down cleanly (logs flushed, checkpoints and the
clean-shutdown marker written) and removes a temporary data directory it created.
`restart()` stops and starts again on the same data directory and port.

`call(fn, *args)` runs `fn(*args)` on the broker's loop and returns its result (awaiting
it when it is a coroutine): the safe way for a test to look inside (storage and partitions
belong to that loop) or to act (`embedded.call(lambda: embedded.broker.create_topic("t", 3))`).

Configuration: `config` over `TEST_DEFAULTS`, over Kafka's defaults. A test broker differs
from `pylog serve` in one way Kafka's own test harnesses configure theirs
(TestUtils.createBrokerConfig, Kafka Streams' EmbeddedKafkaCluster): `__consumer_offsets`
and `__transaction_state` get 5 partitions, not 50. The broker creates such a topic when a
client first needs it (a group's FindCoordinator, a transactional producer's), and the
client waits: a first FindCoordinator was answered in 111 ms with 50, in 12 ms with 5
(bench/start_bench.py).
`test_defaults={}` keeps Kafka's defaults throughout.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import shutil
import tempfile
import threading
from pathlib import Path

from pylog.broker import Broker
from pylog.config import BrokerConfig

TEST_DEFAULTS = {"offsets.topic.num.partitions": 5, "transaction.state.log.num.partitions": 5}


class EmbeddedBroker:
    def __init__(self, data_dir: str | Path | None = None, *, host: str = "127.0.0.1", port: int = 0,
                 config: dict | None = None, test_defaults: dict | None = None):
        self._own_dir = data_dir is None
        self.data_dir = Path(tempfile.mkdtemp(prefix="pylog-")) if data_dir is None else Path(data_dir)
        self.host = host
        self.port = port
        self.overrides = {**(TEST_DEFAULTS if test_defaults is None else test_defaults), **(config or {})}
        self.broker: Broker | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> EmbeddedBroker:
        if self._loop is None:
            self._loop = _new_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="pylog-broker", daemon=True)
            self._thread.start()
        config = BrokerConfig({"log.dirs": str(self.data_dir), **self.overrides})
        broker = Broker(config)
        self._run(broker.start(self.host, self.port))
        self.broker = broker
        self.port = broker.port  # a restart comes back on the same port
        return self

    def stop(self) -> None:
        if self.broker is not None:
            self._run(self.broker.stop())
            self.broker = None
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            self._loop.close()
            self._loop = None
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def restart(self) -> None:
        self._run(self.broker.stop())
        self.start()

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- access ------------------------------------------------------------------------

    @property
    def bootstrap_servers(self) -> str:
        return f"{self.host}:{self.port}"

    def call(self, fn, *args):
        """Run `fn(*args)` on the broker's event loop and return its result (awaited when
        it is a coroutine, as `broker.create_topic(...)` is)."""
        async def run():
            result = fn(*args)
            if asyncio.iscoroutine(result):
                result = await result
            return result
        return self._run(run())

    def wait_for_group_coordinator(self, timeout_s: float = 30) -> None:
        """Create `__consumer_offsets` if it does not exist yet (as a client's first
        FindCoordinator does) and wait until this broker has loaded every partition of it
        it leads: then raw group requests (JoinGroup, OffsetCommit, ...) sent without a
        FindCoordinator first are answered instead of getting NOT_COORDINATOR or
        COORDINATOR_LOAD_IN_PROGRESS."""
        async def wait():
            broker = self.broker
            await broker.offset_store.ensure_topic()
            deadline = asyncio.get_running_loop().time() + timeout_s
            while broker.group_coordinator.partitions.any_loading() or not broker.offsets_partitions_led():
                if asyncio.get_running_loop().time() > deadline:
                    raise TimeoutError("the group coordinator did not finish loading")
                await asyncio.sleep(0.01)
        self._run(wait(), timeout_s + 5)

    def _run(self, coroutine, timeout_s: float = 60):
        future: concurrent.futures.Future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        return future.result(timeout_s)


def _new_loop() -> asyncio.AbstractEventLoop:
    try:
        import uvloop
        return uvloop.new_event_loop()
    except ImportError:
        return asyncio.new_event_loop()
