"""DescribeAcls (29), CreateAcls (30) and DeleteAcls (31), answered as a Kafka broker with no
authorizer (`authorizer.class.name` unset, Kafka's default) answers them (AclApis): pylog has
none, so it keeps no ACLs and checks none.

- DescribeAcls: SECURITY_DISABLED, "No Authorizer is configured on the broker", no resources;
- CreateAcls: SECURITY_DISABLED, "No Authorizer is configured.", for each creation;
- DeleteAcls: the same for each filter, with no ACL matched.

Kafka refuses to parse a request with an element of code 0 (UNKNOWN): a resource type,
pattern type, operation or permission type in a filter or a creation (the request classes'
validation). That request cannot be answered and the connection is closed; so does pylog
(`CloseConnection`). Another code it does not know passes. A v0 request carries no pattern
type: it reads as LITERAL, which v0 allows. Kafka 4 serves v1-v3; pylog v0 too, as Kafka 3.9.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import CreateAclsResponse, DeleteAclsResponse, DescribeAclsResponse
from pylog.dispatch import CloseConnection

UNKNOWN = 0
DESCRIBE_MESSAGE = "No Authorizer is configured on the broker"
CHANGE_MESSAGE = "No Authorizer is configured."


def make_describe_acls_handler(broker):
    async def handle(request, context) -> DescribeAclsResponse:
        refuse_unknown("DescribeAclsRequest", [(request.resource_type_filter, request.pattern_type_filter,
                                                request.operation, request.permission_type)])
        return DescribeAclsResponse(error_code=ErrorCode.SECURITY_DISABLED, error_message=DESCRIBE_MESSAGE)
    return handle


def make_create_acls_handler(broker):
    async def handle(request, context) -> CreateAclsResponse:
        refuse_unknown("CreateAclsRequest", [(c.resource_type, c.resource_pattern_type, c.operation, c.permission_type)
                                             for c in request.creations])
        return CreateAclsResponse(results=[
            CreateAclsResponse.AclCreationResult(error_code=ErrorCode.SECURITY_DISABLED, error_message=CHANGE_MESSAGE)
            for _ in request.creations])
    return handle


def make_delete_acls_handler(broker):
    async def handle(request, context) -> DeleteAclsResponse:
        refuse_unknown("DeleteAclsRequest", [(f.resource_type_filter, f.pattern_type_filter, f.operation,
                                              f.permission_type) for f in request.filters])
        return DeleteAclsResponse(filter_results=[
            DeleteAclsResponse.DeleteAclsFilterResult(error_code=ErrorCode.SECURITY_DISABLED,
                                                      error_message=CHANGE_MESSAGE, matching_acls=[])
            for _ in request.filters])
    return handle


def refuse_unknown(request_name: str, elements: list[tuple[int, int, int, int]]) -> None:
    """Close the connection when a (resource type, pattern type, operation, permission type)
    has an element of code 0, as Kafka's parsing does."""
    if any(UNKNOWN in codes for codes in elements):
        raise CloseConnection(f"{request_name} contains UNKNOWN elements")
