"""The README's "Which Kafka pylog presents" section is what pylog/tools/kafka_surface.py renders
from the code, and what it renders agrees with the broker's ApiVersions answer."""

from __future__ import annotations

from protocol.messages import ApiVersionsRequest
from pylog.handlers.api_versions import PRODUCE_ADVERTISED_MIN_VERSION, PRODUCE_KEY
from pylog.tools import kafka_surface

from tests.pylog.wire import RawClient


def test_the_readme_section_is_what_the_code_renders():
    readme = kafka_surface.README.read_text(encoding="utf-8")
    assert kafka_surface.readme_with_section(readme, kafka_surface.render()) == readme, (
        "README.md is out of date: run python -m pylog.tools.kafka_surface --write")


def test_the_rendered_versions_are_those_a_running_broker_advertises(kafka_broker):
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        response = client.request(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
    finally:
        client.close()
    advertised = sorted((a.api_key, a.min_version, a.max_version) for a in response.api_keys)
    served = kafka_surface.served_apis()
    # Produce is advertised from v0, as Kafka 4.1 advertises it, and served from v3
    assert [(key, PRODUCE_ADVERTISED_MIN_VERSION if key == PRODUCE_KEY else low, high)
            for key, low, high in served] == advertised
    rendered = kafka_surface.render()
    for key, low, high in served:
        assert f"({key}) | {low}-{high}" in rendered
    assert f"| 3-13 (advertised from 0) |" in rendered


def test_kafkas_maxima_skip_an_unstable_latest_version():
    # OffsetCommit v10 and InitProducerId v6 are defined by Kafka 4.1.1 but marked unstable
    assert kafka_surface.kafka_max_version(8) == 9 and kafka_surface.kafka_max_version(22) == 5
    assert kafka_surface.kafka_max_version(0) == 13 and kafka_surface.kafka_max_version(1) == 18
