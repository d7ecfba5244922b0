"""DescribeAcls, CreateAcls and DeleteAcls against a running broker (pylog/handlers/acls.py):
answered as a Kafka broker with no authorizer answers them, at every version pylog serves,
to a raw client and to kafka-python's admin client; a request with an UNKNOWN element closes
the connection, as Kafka's parsing does."""

from __future__ import annotations

import pytest
from kafka.admin import ACL, ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType, KafkaAdminClient
from kafka.admin import ResourcePattern, ResourcePatternFilter, ResourceType
from kafka.errors import SecurityDisabledError

from protocol.messages import CreateAclsRequest, DeleteAclsRequest, DescribeAclsRequest
from tests.pylog.wire import RawClient, answer_of

LITERAL, TOPIC, READ, ALLOW, ANY = 3, 2, 3, 3, 1


def describe(**fields) -> DescribeAclsRequest:
    return DescribeAclsRequest(**{"resource_type_filter": ANY, "resource_name_filter": None,
                                  "pattern_type_filter": ANY, "principal_filter": None, "host_filter": None,
                                  "operation": ANY, "permission_type": ANY, **fields})


def creation(**fields) -> CreateAclsRequest.AclCreation:
    return CreateAclsRequest.AclCreation(**{"resource_type": TOPIC, "resource_name": "t", "resource_pattern_type": LITERAL,
                                            "principal": "User:bob", "host": "*", "operation": READ,
                                            "permission_type": ALLOW, **fields})


def deletion(**fields) -> DeleteAclsRequest.DeleteAclsFilter:
    return DeleteAclsRequest.DeleteAclsFilter(**{"resource_type_filter": TOPIC, "resource_name_filter": "t",
                                                 "pattern_type_filter": LITERAL, "principal_filter": None,
                                                 "host_filter": None, "operation": ANY, "permission_type": ANY,
                                                 **fields})


def ask(broker, api_key: int, version: int, body) -> dict:
    return answer_of(broker.bootstrap_servers, api_key, version, body)


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_no_authorizer_answers_as_kafkas(kafka_broker, version):
    """Kafka 4.1.1's answers (v1-v3; v0 as Kafka 3.9 served it)."""
    assert ask(kafka_broker, 29, version, describe(pattern_type_filter=LITERAL)) == {
        "error_code": 54, "error_message": "No Authorizer is configured on the broker",
        "resources": []}
    created = ask(kafka_broker, 30, version, CreateAclsRequest(creations=[creation(), creation(resource_name="u")]))
    assert created == {"results": [
        {"error_code": 54, "error_message": "No Authorizer is configured."}] * 2}
    deleted = ask(kafka_broker, 31, version, DeleteAclsRequest(filters=[deletion(), deletion(resource_name_filter=None)]))
    assert deleted == {"filter_results": [
        {"error_code": 54, "error_message": "No Authorizer is configured.", "matching_acls": []}] * 2}
    assert ask(kafka_broker, 30, version, CreateAclsRequest(creations=[]))["results"] == []


@pytest.mark.parametrize("api_key,body", [
    (29, describe(resource_type_filter=0)),
    (29, describe(permission_type=0)),
    (30, CreateAclsRequest(creations=[creation(), creation(operation=0)])),
    (31, DeleteAclsRequest(filters=[deletion(pattern_type_filter=0)])),
])
def test_an_unknown_element_closes_the_connection(kafka_broker, api_key, body):
    client = RawClient(kafka_broker.bootstrap_servers)
    try:
        client.send(api_key, 1, body)
        with pytest.raises(ConnectionError):
            client.read_exactly(4)
    finally:
        client.close()


def test_a_code_nobody_defines_is_not_unknown(kafka_broker):
    assert ask(kafka_broker, 29, 1, describe(resource_type_filter=99))["error_code"] == 54


def test_kafka_pythons_admin_client_is_told_security_is_disabled(kafka_broker):
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap_servers)
    try:
        acl = ACL("User:bob", "*", ACLOperation.READ, ACLPermissionType.ALLOW, ResourcePattern(ResourceType.TOPIC, "t"))
        with pytest.raises(SecurityDisabledError):
            admin.describe_acls(ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                          ResourcePatternFilter(ResourceType.ANY, None, ACLResourcePatternType.ANY)))
        created = admin.create_acls([acl])
        assert (created["succeeded"], created["failed"]) == ([], [SecurityDisabledError])
    finally:
        admin.close()
