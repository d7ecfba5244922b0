"""Producer ids across restarts of a `pylog serve` process: never handed out twice.

A broker takes a block of ids and writes the next block's start to its data directory
before it hands out the first id of the block (pylog/producer_ids.py, after Kafka's
ProducerIdsRecord); a restart, clean (SIGTERM) or not (kill -9), starts at the next block.
"""

from __future__ import annotations

import pytest

from tests.integration.support import WireClient


def ids_from(server, count: int) -> list[int]:
    with WireClient(server.bootstrap_servers) as wire:
        return [wire.init_producer_id(version=4)[0] for _ in range(count)]


@pytest.mark.timeout(120)
def test_no_id_is_handed_out_twice_across_clean_and_killed_restarts(serve_factory, tmp_path):
    server = serve_factory(tmp_path / "data").start()
    handed_out = ids_from(server, 3)
    server.stop()
    server.start()
    handed_out += ids_from(server, 3)
    server.kill()      # kill -9: no clean shutdown
    server.start()
    handed_out += ids_from(server, 3)
    server.kill()
    server.start()
    handed_out += ids_from(server, 1)
    server.stop()
    assert len(set(handed_out)) == len(handed_out), f"an id was handed out twice: {handed_out}"
    assert handed_out == sorted(handed_out)
