"""ApiVersions against a running broker: the versions it advertises and the features it
reports (pylog/handlers/api_versions.py), at each version that carries them differently."""

from __future__ import annotations

import pytest

from protocol.messages import ApiVersionsRequest
from pylog.broker_lifecycle import SUPPORTED_FEATURES
from pylog.handlers.api_versions import finalized_in_kafkas_order, supported_in_kafkas_order

from tests.pylog.wire import RawClient

API_VERSIONS = 18


def api_versions(broker, version: int):
    client = RawClient(broker.bootstrap_servers)
    try:
        return client.request(API_VERSIONS, version, ApiVersionsRequest(client_software_name="t",
                                                                         client_software_version="1"))
    finally:
        client.close()


def test_v4_lists_every_supported_range_and_the_finalized_levels_of_the_metadata(kafka_broker):
    response = api_versions(kafka_broker, 4)
    assert response.error_code == 0
    # in the order of Kafka's HashMap (what Kafka 4.1.1 answers, but its share.version 0-1)
    assert [(f.name, f.min_version, f.max_version) for f in response.supported_features] == [
        ("group.version", 0, 1), ("kraft.version", 0, 1), ("metadata.version", 7, 27), ("share.version", 0, 0),
        ("transaction.version", 0, 2), ("eligible.leader.replicas.version", 0, 1)]
    finalized = [(f.name, f.min_version_level, f.max_version_level) for f in response.finalized_features]
    # pylog's bootstrap (pylog/controller/bootstrap.py): no feature at level 0 is listed
    assert finalized == [("group.version", 1, 1), ("transaction.version", 2, 2), ("metadata.version", 27, 27)]
    image_offset = kafka_broker.call(lambda: kafka_broker.broker.metadata_image().offset)
    assert 0 <= response.finalized_features_epoch <= image_offset


def test_the_features_come_in_the_order_of_kafkas_maps():
    """Kafka 4.1.1's answer on a fresh cluster (ELR finalized at 1): metadata.version comes
    last among four levels, which a copy sizes at 8 buckets (a table of 16 would put it
    second), and share.version after metadata.version, in the same bucket of 16."""
    kafkas = [("group.version", 0, 1), ("kraft.version", 0, 1), ("metadata.version", 7, 27), ("share.version", 0, 1),
              ("transaction.version", 0, 2), ("eligible.leader.replicas.version", 0, 1)]
    put = [kafkas[2], kafkas[1], kafkas[0], kafkas[4], kafkas[5], kafkas[3]]   # metadata.version first, as Kafka puts it
    assert supported_in_kafkas_order(tuple(put)) == kafkas
    levels = {"metadata.version": 27, "eligible.leader.replicas.version": 1, "group.version": 1,
              "transaction.version": 2, "kraft.version": 0}
    assert finalized_in_kafkas_order(levels) == [("group.version", 1), ("transaction.version", 2),
                                                 ("eligible.leader.replicas.version", 1), ("metadata.version", 27)]


def test_the_epoch_follows_the_metadata_log(kafka_broker):
    before = api_versions(kafka_broker, 4).finalized_features_epoch
    kafka_broker.call(kafka_broker.broker.create_topic, "epoch-mover", 1)
    assert api_versions(kafka_broker, 4).finalized_features_epoch > before


def test_below_v4_a_range_starting_at_0_is_left_out(kafka_broker):
    response = api_versions(kafka_broker, 3)
    assert [(f.name, f.min_version, f.max_version) for f in response.supported_features] == [
        (name, low, high) for name, low, high in sorted(SUPPORTED_FEATURES) if low > 0]
    assert [f.name for f in response.supported_features] == ["metadata.version"]
    assert {f.name for f in response.finalized_features} == {"metadata.version", "group.version",
                                                             "transaction.version"}


@pytest.mark.parametrize("version", [0, 1, 2])
def test_versions_before_3_carry_no_features(kafka_broker, version):
    response = api_versions(kafka_broker, version)
    assert response.error_code == 0 and response.supported_features == [] and response.finalized_features == []
    assert (18, 0, 4) in [(a.api_key, a.min_version, a.max_version) for a in response.api_keys]


def test_each_version_gets_its_own_answer_when_they_alternate(kafka_broker):
    """The answer is kept per version: v3 and v4 differ (v3 leaves out ranges from 0), v0
    has no features, and asking again gives each the same as the first time."""
    first = {version: api_versions(kafka_broker, version) for version in (4, 3, 0)}
    again = {version: api_versions(kafka_broker, version) for version in (0, 3, 4)}
    assert first == again
    assert len(first[4].supported_features) == len(SUPPORTED_FEATURES) > len(first[3].supported_features)
    assert first[0].supported_features == [] and first[0].api_keys == first[4].api_keys


@pytest.mark.parametrize("name,software_version", [
    ("fuzz+client", "1.0"), ("-a", "1.0"), ("a-", "1.0"), ("a_b", "1.0"), ("", "1.0"), ("a\ufffd", "1.0"),
    ("ok", "1.0+local"), ("ok", ""), ("ok", "1.0 ")])
@pytest.mark.parametrize("version", [3, 4])
def test_a_client_software_name_or_version_kafka_would_not_take_is_an_invalid_request(
        kafka_broker, version, name, software_version):
    """KIP-511's names are letters and digits, with `-` and `.` only between them
    (Kafka's ApiVersionsRequest.isValid): anything else is INVALID_REQUEST, no API listed."""
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        response = client.request(API_VERSIONS, version, ApiVersionsRequest(
            client_software_name=name, client_software_version=software_version))
    finally:
        client.close()
    assert (response.error_code, response.api_keys, response.supported_features) == (42, [], [])


@pytest.mark.parametrize("name,software_version", [("a", "1"), ("a.b-c1", "4.1.1"), ("apache-kafka-java", "4.1.1"),
                                                   ("confluent-kafka-python", "2.6.1-rdkafka-2.6.1")])
def test_the_names_clients_send_are_taken(kafka_broker, name, software_version):
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        response = client.request(API_VERSIONS, 3, ApiVersionsRequest(
            client_software_name=name, client_software_version=software_version))
    finally:
        client.close()
    assert response.error_code == 0 and response.api_keys


def test_produce_is_advertised_from_v0_and_served_from_v3(kafka_broker):
    """As Kafka 4.1 advertises it (KAFKA-18659): librdkafka chooses its compression from the
    range, and a Produce below v3 still closes the connection."""
    response = api_versions(kafka_broker, 3)
    assert (0, 0, 13) in [(a.api_key, a.min_version, a.max_version) for a in response.api_keys]
    client = RawClient(kafka_broker.bootstrap_servers, timeout_s=2)
    try:
        # a Produce v2 frame: key 0, version 2, correlation id 7, client id "abc", acks 1,
        # timeout 1000 ms, no topic
        client.sock.sendall(bytes.fromhex("00000017" "0000" "0002" "00000007" "0003616263" "0001" "000003e8" "00000000"))
        assert client.sock.recv(1) == b""
    finally:
        client.close()
