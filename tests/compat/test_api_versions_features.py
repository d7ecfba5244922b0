"""ApiVersions' feature lists in Kafka's order, against the reference Kafka: the supported
ranges as a HashMap filled by `put` iterates them, and the finalized levels as Kafka's
FinalizedFeatures (the image's levels copied into a table sized for them, metadata.version
put after them) iterates them (pylog/handlers/api_versions.py). Both brokers list the same
names but one: pylog finalizes `eligible.leader.replicas.version` at 0, where Kafka
finalizes it at 1 (README), so it is left out of Kafka's finalized list before the two are
compared."""

from __future__ import annotations

import pytest

from protocol.messages import ApiVersionsRequest
from tests.integration.support import WireClient

NOT_FINALIZED_BY_PYLOG = "eligible.leader.replicas.version"


def features(broker, version: int) -> dict:
    with WireClient(broker.bootstrap_servers) as client:
        answer = client.request(18, version, ApiVersionsRequest(client_software_name="pylog-compat",
                                                                client_software_version="1"))
    return {"supported": [f.name for f in answer.supported_features],
            "finalized": [f.name for f in answer.finalized_features if f.name != NOT_FINALIZED_BY_PYLOG]}


@pytest.mark.parametrize("version", [3, 4])
def test_the_features_come_in_kafkas_order(both, compat_table, version):
    answers = {name: features(broker, version) for name, broker in both.items()}
    compat_table.assert_same(f"ApiVersions v{version}: the order of the features",
                             answers)
    # what the comparison stands on: the orders are not the names' sorted order on either broker
    if version == 4:
        assert answers["kafka"]["supported"] != sorted(answers["kafka"]["supported"])
        assert answers["kafka"]["finalized"] != sorted(answers["kafka"]["finalized"])
