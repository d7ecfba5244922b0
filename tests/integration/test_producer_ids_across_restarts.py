"""Producer ids across restarts and across brokers: never handed out twice.

A broker takes a block of ids from the controller, which commits the next block's start
(Kafka's ProducerIdsRecord) to the metadata log before it answers (pylog/producer_ids.py);
a restart, clean (SIGTERM) or not (kill -9), takes the next block, and no two brokers of a
cluster get the same block.
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


@pytest.mark.timeout(120)
def test_no_two_brokers_of_a_cluster_hand_out_the_same_id(tmp_path):
    from pylog.cluster import Cluster

    with Cluster(brokers=3, data_dir=tmp_path / "cluster") as cluster:
        per_broker = {}
        for node_id in cluster.running_brokers():
            with WireClient(f"127.0.0.1:{cluster.brokers[node_id].port}") as wire:
                per_broker[node_id] = [wire.init_producer_id(version=4)[0] for _ in range(3)]
    handed_out = [producer_id for ids in per_broker.values() for producer_id in ids]
    assert len(set(handed_out)) == len(handed_out), per_broker
