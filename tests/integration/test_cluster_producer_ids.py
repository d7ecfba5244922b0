"""Every broker of a cluster hands out producer ids no other broker hands out.

An idempotent producer's batches are checked per producer id on every partition; two
brokers giving the same id to two producers would make the second one's first batch an
OUT_OF_ORDER_SEQUENCE_NUMBER (or be taken for the first producer's). The ids come in
blocks from the controller (AllocateProducerIds), so InitProducerId sent to each of the
three brokers, twice, gives six different ids, and a restarted broker takes a new block.
"""

from __future__ import annotations

import pytest

from protocol.messages import InitProducerIdRequest
from pylog.cluster import Cluster
from tests.pylog.wire import RawClient


def init_producer_id(port: int) -> int:
    client = RawClient(f"127.0.0.1:{port}", timeout_s=30)
    try:
        response = client.request(22, 4, InitProducerIdRequest(
            transactional_id=None, transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=-1))
    finally:
        client.close()
    assert response.error_code == 0, response
    assert response.producer_epoch == 0
    return response.producer_id


@pytest.mark.timeout(300)
def test_producer_ids_are_unique_across_the_brokers_and_their_restarts(tmp_path):
    with Cluster(brokers=3, data_dir=tmp_path / "cluster") as cluster:
        ids = [init_producer_id(cluster.brokers[node].port) for node in cluster.brokers for _ in range(2)]
        cluster.restart(1)
        ids.append(init_producer_id(cluster.brokers[1].port))
        assert len(set(ids)) == len(ids), f"a producer id handed out twice: {ids}"
        assert ids[-1] > max(ids[:2]), "the restarted broker went back into an old block"
