"""SASL and delegation tokens, answered as Kafka answers them on a PLAINTEXT listener, the only
kind pylog serves: every client is the anonymous principal `User:ANONYMOUS`, already
authenticated, and tokens may not be asked for (KafkaApis).

    SaslHandshake (17)            ILLEGAL_SASL_STATE, no mechanism listed
    SaslAuthenticate (36)         ILLEGAL_SASL_STATE, "SaslAuthenticate request received after
                                  successful authentication"
    CreateDelegationToken (38)    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED; the owner is the one named
                                  (v3+) or else the requester, the requester (v3+) is
                                  User:ANONYMOUS; no token: timestamps -1, empty id and hmac.
                                  An owner named with a null type is UNKNOWN_SERVER_ERROR, owner
                                  and requester User:ANONYMOUS (Kafka's KafkaPrincipal refuses a
                                  null type, and the request's error answer names nobody)
    RenewDelegationToken (39)     DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiry timestamp -1
    ExpireDelegationToken (40)    the same
    DescribeDelegationToken (41)  DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, no token

A client set up for SASL against pylog so learns, as against a Kafka PLAINTEXT listener, that
the listener does not take SASL. Kafka 4 serves the token APIs from v1; pylog from v0 too, as
Kafka 3.9 did.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import (
    CreateDelegationTokenResponse,
    DescribeDelegationTokenResponse,
    ExpireDelegationTokenResponse,
    RenewDelegationTokenResponse,
    SaslAuthenticateResponse,
    SaslHandshakeResponse,
)

ANONYMOUS = ("User", "ANONYMOUS")   # KafkaPrincipal.ANONYMOUS: who a PLAINTEXT client is
AFTER_AUTHENTICATION = "SaslAuthenticate request received after successful authentication"
NO_TIMESTAMP = -1                   # DelegationTokenManager.ERROR_TIMESTAMP
NOT_ALLOWED = ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED


def make_sasl_handshake_handler(broker):
    async def handle(request, context) -> SaslHandshakeResponse:
        return SaslHandshakeResponse(error_code=ErrorCode.ILLEGAL_SASL_STATE, mechanisms=[])
    return handle


def make_sasl_authenticate_handler(broker):
    async def handle(request, context) -> SaslAuthenticateResponse:
        return SaslAuthenticateResponse(error_code=ErrorCode.ILLEGAL_SASL_STATE, error_message=AFTER_AUTHENTICATION,
                                        auth_bytes=b"", session_lifetime_ms=0)
    return handle


def make_create_token_handler(broker):
    async def handle(request, context) -> CreateDelegationTokenResponse:
        error = NOT_ALLOWED
        owner_type, owner_name = ((request.owner_principal_type, request.owner_principal_name)
                                  if request.owner_principal_name else ANONYMOUS)
        if owner_type is None:
            error, (owner_type, owner_name) = ErrorCode.UNKNOWN_SERVER_ERROR, ANONYMOUS
        requester_type, requester_name = ANONYMOUS
        return CreateDelegationTokenResponse(
            error_code=error, principal_type=owner_type, principal_name=owner_name,
            token_requester_principal_type=requester_type, token_requester_principal_name=requester_name,
            issue_timestamp_ms=NO_TIMESTAMP, expiry_timestamp_ms=NO_TIMESTAMP, max_timestamp_ms=NO_TIMESTAMP,
            token_id="", hmac=b"")
    return handle


def make_renew_token_handler(broker):
    async def handle(request, context) -> RenewDelegationTokenResponse:
        return RenewDelegationTokenResponse(error_code=NOT_ALLOWED, expiry_timestamp_ms=NO_TIMESTAMP)
    return handle


def make_expire_token_handler(broker):
    async def handle(request, context) -> ExpireDelegationTokenResponse:
        return ExpireDelegationTokenResponse(error_code=NOT_ALLOWED, expiry_timestamp_ms=NO_TIMESTAMP)
    return handle


def make_describe_tokens_handler(broker):
    async def handle(request, context) -> DescribeDelegationTokenResponse:
        return DescribeDelegationTokenResponse(error_code=NOT_ALLOWED, tokens=[])
    return handle
