"""`max.connections.per.ip` and `max.connections.per.ip.overrides` (pylog/connection_quotas.py),
Kafka's per-address connection limits: over real sockets, a connection beyond its address's
maximum is closed at once with Kafka's log line; the limits change live through
IncrementalAlterConfigs; the settings are checked as KafkaConfig checks them."""

from __future__ import annotations

import logging
import socket

import pytest

from protocol.messages import ApiVersionsRequest, IncrementalAlterConfigsRequest
from pylog.config import BrokerConfig, ConfigError
from pylog.connection_quotas import ConnectionQuotas, client_address, java_address, parse_overrides
from pylog.testing import EmbeddedBroker
from tests.pylog.test_connection_limits import wait_until
from tests.pylog.wire import RawClient

BROKER = 4
SET = 0
Incremental = IncrementalAlterConfigsRequest


def serves(client: RawClient) -> bool:
    """Whether the broker answers an ApiVersions on this connection (False: it closed it)."""
    try:
        return client.request(18, 0, ApiVersionsRequest()).error_code == 0
    except (ConnectionError, OSError, EOFError):
        return False


def rejected_line(limit: int) -> str:
    return f"Rejected connection from /127.0.0.1, address already has the configured maximum of {limit} connections."


@pytest.fixture
def started(tmp_path):
    brokers, clients = [], []

    def start(**config):
        broker = EmbeddedBroker(tmp_path / str(len(brokers)), config=config).start()
        brokers.append(broker)
        return broker

    def connect(broker) -> RawClient:
        client = RawClient(broker.bootstrap_servers)
        clients.append(client)
        return client

    yield start, connect
    for client in clients:
        client.close()
    for broker in brokers:
        broker.stop()


def test_a_connection_beyond_the_maximum_is_closed_at_once_and_logged(started, caplog):
    start, connect = started
    broker = start(**{"max.connections.per.ip": "2"})
    caplog.set_level(logging.INFO, logger="pylog.connection_quotas")
    first, second = connect(broker), connect(broker)
    assert serves(first) and serves(second)
    third = connect(broker)
    assert not serves(third)
    assert rejected_line(2) in caplog.messages
    assert broker.broker.server.quotas.counts == {"127.0.0.1": 2}
    first.close()
    wait_until(lambda: broker.broker.server.quotas.counts == {"127.0.0.1": 1})
    assert serves(connect(broker))   # a place freed: the next one is served


def test_an_override_sets_one_address_maximum_even_with_a_default_of_zero(started, caplog):
    start, connect = started
    broker = start(**{"max.connections.per.ip": "0", "max.connections.per.ip.overrides": "127.0.0.1:1"})
    caplog.set_level(logging.INFO, logger="pylog.connection_quotas")
    assert serves(connect(broker))
    assert not serves(connect(broker))
    assert rejected_line(1) in caplog.messages


def alter(client: RawClient, *configs) -> tuple[int, str | None]:
    request = Incremental(validate_only=False, resources=[Incremental.AlterConfigsResource(
        resource_type=BROKER, resource_name="",
        configs=[Incremental.AlterableConfig(name=n, config_operation=SET, value=v) for n, v in configs])])
    (response,) = client.request(44, 1, request).responses
    return response.error_code, response.error_message


def test_the_limits_change_live_for_the_next_connections(started):
    start, connect = started
    broker = start()
    admin, other = connect(broker), connect(broker)
    assert alter(admin, ("max.connections.per.ip", "2")) == (0, None)
    wait_until(lambda: broker.broker.server.quotas.max_per_ip == 2)
    assert serves(admin) and serves(other)          # open before: they stay
    assert not serves(connect(broker))
    assert alter(admin, ("max.connections.per.ip.overrides", "127.0.0.1:3")) == (0, None)
    wait_until(lambda: broker.broker.server.quotas.limit_of("127.0.0.1") == 3)
    assert serves(connect(broker))
    assert not serves(connect(broker))
    # refused as KafkaConfig refuses it, and nothing changes
    code, message = alter(admin, ("max.connections.per.ip.overrides", "bad host:1"))
    assert code != 0 and "max.connections.per.ip.overrides contains invalid addresses : bad host" in message
    assert broker.broker.server.quotas.limit_of("127.0.0.1") == 3


def test_the_settings_are_checked_as_kafka_checks_them():
    with pytest.raises(ConfigError, match="max.connections.per.ip can be set to zero only if "
                                          "max.connections.per.ip.overrides property is set."):
        BrokerConfig({"max.connections.per.ip": "0"})
    with pytest.raises(ConfigError, match="contains invalid addresses : a b"):
        BrokerConfig({"max.connections.per.ip.overrides": "a b:3"})
    with pytest.raises(ConfigError, match='For input string: "x"'):
        BrokerConfig({"max.connections.per.ip.overrides": "a:x"})
    with pytest.raises(ConfigError, match="begin 0, end -1, length 4"):
        BrokerConfig({"max.connections.per.ip.overrides": "host"})
    assert BrokerConfig({"max.connections.per.ip": "0", "max.connections.per.ip.overrides": "h:1"}).max_connections_per_ip == 0


def test_overrides_are_read_as_kafkas_csv_map():
    assert parse_overrides("") == parse_overrides(None) == {}
    assert parse_overrides("127.0.0.1:5 , localhost : 2,") == {"127.0.0.1": 5, "localhost": 2}
    assert parse_overrides("::1:7") == {"::1": 7}   # the count follows the last colon


def test_addresses_are_counted_as_the_kernel_gives_them_ipv4_clients_of_ipv6_sockets_as_ipv4():
    assert client_address("::ffff:127.0.0.1") == "127.0.0.1"
    assert client_address("::1") == "::1" and client_address("10.0.0.1") == "10.0.0.1"
    assert ConnectionQuotas(1, "::ffff:10.1.2.3:4").limit_of("10.1.2.3") == 4
    quotas = ConnectionQuotas(1, "127.0.0.1:2,::1:0")
    assert quotas.admit("::ffff:127.0.0.1") and quotas.admit("127.0.0.1") and not quotas.admit("127.0.0.1")
    assert not quotas.admit("::1")
    assert quotas.admit("10.0.0.1") and not quotas.admit("10.0.0.1")
    quotas.release("127.0.0.1")
    assert quotas.counts == {"127.0.0.1": 1, "10.0.0.1": 1}


def test_addresses_are_logged_as_kafka_prints_an_inet_address():
    assert java_address("127.0.0.1") == "/127.0.0.1"
    assert java_address("::1") == "/0:0:0:0:0:0:0:1"
    assert java_address("fe80::1:abcd") == "/fe80:0:0:0:0:0:1:abcd"
    assert java_address("fe80::1%eth0") == "/fe80:0:0:0:0:0:0:1%eth0"   # a link-local peer's scope kept


def test_a_name_counts_for_each_of_its_addresses():
    resolved = {client_address(info[4][0]) for info in socket.getaddrinfo("localhost", None)}
    quotas = ConnectionQuotas(10, "localhost:1")
    assert {address: quotas.limit_of(address) for address in resolved} == {address: 1 for address in resolved}
