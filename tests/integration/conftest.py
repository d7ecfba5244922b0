"""Fixtures of the integration tests; the machinery is in `support.py`.

Importing `support` imports kafka-python, aiokafka and confluent-kafka: a missing client
fails the whole directory instead of skipping anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.support import KafkaProxy, ServeProcess


@pytest.fixture
def serve_factory(tmp_path):
    """Make `ServeProcess`es (not started yet); any still running is killed afterwards."""
    made: list[ServeProcess] = []

    def make(data_dir: Path | None = None, **kwargs) -> ServeProcess:
        process = ServeProcess(data_dir or tmp_path / f"data{len(made)}", **kwargs)
        made.append(process)
        return process

    yield make
    for process in made:
        process.kill()


@pytest.fixture
def kafka_proxy():
    """A `KafkaProxy` already listening (its port is known); `start(upstream)` to forward."""
    proxy = KafkaProxy()
    proxy.listen()
    yield proxy
    proxy.stop()
    assert not proxy.errors, f"responses out of request order: {proxy.errors}"
