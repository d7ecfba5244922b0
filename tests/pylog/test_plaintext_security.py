"""SASL and delegation tokens against a running broker (pylog/handlers/plaintext_security.py):
the answers of a Kafka PLAINTEXT listener (Kafka 4.1.1's, taken from a reference node), at
every version pylog serves, and what a SASL client learns from them."""

from __future__ import annotations

import logging
import time

import pytest
from confluent_kafka.admin import AdminClient

from protocol import messages as M
from tests.pylog.wire import answer_of

NOT_ALLOWED = 64
ILLEGAL_SASL_STATE = 34


def ask(broker, api_key: int, version: int, body) -> dict:
    return answer_of(broker.bootstrap_servers, api_key, version, body)


@pytest.mark.parametrize("version", [0, 1])
def test_sasl_handshake_is_not_valid_on_a_plaintext_listener(kafka_broker, version):
    assert ask(kafka_broker, 17, version, M.SaslHandshakeRequest(mechanism="PLAIN")) == {
        "error_code": ILLEGAL_SASL_STATE, "mechanisms": []}


@pytest.mark.parametrize("version", [0, 1, 2])
def test_sasl_authenticate_comes_after_the_authentication_already_done(kafka_broker, version):
    assert ask(kafka_broker, 36, version, M.SaslAuthenticateRequest(auth_bytes=b"\0u\0p")) == {
        "error_code": ILLEGAL_SASL_STATE, "auth_bytes": b"", "session_lifetime_ms": 0,
        "error_message": "SaslAuthenticate request received after successful authentication"}


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_a_token_may_not_be_created_and_the_owner_is_the_anonymous_requester(kafka_broker, version):
    got = ask(kafka_broker, 38, version, M.CreateDelegationTokenRequest(
        owner_principal_type=None, owner_principal_name=None, renewers=[], max_lifetime_ms=-1))
    requester = ("User", "ANONYMOUS") if version >= 3 else ("", "")
    assert got == {"error_code": NOT_ALLOWED, "principal_type": "User", "principal_name": "ANONYMOUS",
                   "token_requester_principal_type": requester[0], "token_requester_principal_name": requester[1],
                   "issue_timestamp_ms": -1, "expiry_timestamp_ms": -1, "max_timestamp_ms": -1, "token_id": "",
                   "hmac": b""}


def test_an_owner_named_is_the_owner_answered(kafka_broker):
    got = ask(kafka_broker, 38, 3, M.CreateDelegationTokenRequest(
        owner_principal_type="User", owner_principal_name="alice", renewers=[], max_lifetime_ms=-1))
    assert (got["principal_type"], got["principal_name"], got["token_requester_principal_name"]) == (
        "User", "alice", "ANONYMOUS")


def test_an_owner_with_a_null_type_is_a_server_error_naming_nobody(kafka_broker):
    got = ask(kafka_broker, 38, 3, M.CreateDelegationTokenRequest(
        owner_principal_type=None, owner_principal_name="fuzz-a", renewers=[], max_lifetime_ms=-1))
    assert (got["error_code"], got["principal_type"], got["principal_name"]) == (-1, "User", "ANONYMOUS")


@pytest.mark.parametrize("version", [0, 1, 2])
def test_tokens_may_not_be_renewed_or_expired(kafka_broker, version):
    assert ask(kafka_broker, 39, version, M.RenewDelegationTokenRequest(hmac=b"x", renew_period_ms=-1)) == {
        "error_code": NOT_ALLOWED, "expiry_timestamp_ms": -1}
    assert ask(kafka_broker, 40, version, M.ExpireDelegationTokenRequest(hmac=b"x", expiry_time_period_ms=-1)) == {
        "error_code": NOT_ALLOWED, "expiry_timestamp_ms": -1}


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_no_token_is_described(kafka_broker, version):
    assert ask(kafka_broker, 41, version, M.DescribeDelegationTokenRequest(owners=None)) == {
        "error_code": NOT_ALLOWED, "tokens": []}


def test_a_sasl_client_is_told_the_listener_does_not_take_sasl(kafka_broker):
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    logger = logging.getLogger("pylog-tests.sasl-client")
    logger.addHandler(Collect())
    admin = AdminClient({"bootstrap.servers": kafka_broker.bootstrap_servers, "security.protocol": "SASL_PLAINTEXT",
                         "sasl.mechanism": "PLAIN", "sasl.username": "u", "sasl.password": "p"}, logger=logger)
    deadline = time.monotonic() + 10
    while not any("Request not valid in current SASL state" in line for line in lines) and time.monotonic() < deadline:
        admin.poll(0.1)
    assert any("SASL PLAIN mechanism handshake failed: Broker: Request not valid in current SASL state" in line
               for line in lines), lines[:5]
