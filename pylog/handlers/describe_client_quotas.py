"""DescribeClientQuotas (key 48): the client quotas matching a filter; pylog has none.

pylog does not implement quotas (AlterClientQuotas is not served), so a valid filter matches
nothing: error NONE, an empty message and no entries. The filter is checked as Kafka's
ClientQuotasImage.describe checks it, component by component, and a bad one answers with
Kafka's error and message and null entries:

- an empty entity type, or one given twice: INVALID_REQUEST;
- an entity type other than `user`, `client-id`, `ip`: UNSUPPORTED_VERSION;
- MATCH_TYPE_EXACT (0) without a match string, MATCH_TYPE_DEFAULT (1) or
  MATCH_TYPE_SPECIFIED (2) with one, or another match type: INVALID_REQUEST;
- an `ip` component beside a `user` or `client-id` one: INVALID_REQUEST.
"""

from __future__ import annotations

from protocol.error_codes import ErrorCode
from protocol.messages import DescribeClientQuotasResponse

ENTITY_TYPES = ("user", "client-id", "ip")
EXACT, DEFAULT, SPECIFIED = 0, 1, 2


def make_handler(broker):
    """The answer depends on nothing of the broker's (pylog keeps no quotas)."""
    async def handle(request, context) -> DescribeClientQuotasResponse:
        refusal = filter_problem(request.components)
        if refusal is not None:
            code, message = refusal
            return DescribeClientQuotasResponse(error_code=code, error_message=message, entries=None)
        return DescribeClientQuotasResponse(error_code=ErrorCode.NONE, error_message="", entries=[])

    return handle


def filter_problem(components) -> tuple[ErrorCode, str] | None:
    seen: set[str] = set()
    for component in components:
        entity_type = component.entity_type
        if not entity_type:
            return ErrorCode.INVALID_REQUEST, "Invalid empty entity type."
        if entity_type in seen:
            return ErrorCode.INVALID_REQUEST, f"Entity type {entity_type} cannot appear more than once in the filter."
        if entity_type not in ENTITY_TYPES:
            return ErrorCode.UNSUPPORTED_VERSION, f"Unsupported entity type {entity_type}"
        if component.match_type == EXACT:
            if component.match is None:
                return ErrorCode.INVALID_REQUEST, "Request specified MATCH_TYPE_EXACT, but set match string to null."
        elif component.match_type in (DEFAULT, SPECIFIED):
            if component.match is not None:
                name = "MATCH_TYPE_DEFAULT" if component.match_type == DEFAULT else "MATCH_TYPE_SPECIFIED"
                return ErrorCode.INVALID_REQUEST, f"Request specified {name}, but also specified a match string."
        else:
            return ErrorCode.INVALID_REQUEST, f"Unknown match type {component.match_type}"
        seen.add(entity_type)
    if "ip" in seen and ({"user", "client-id"} & seen):
        return (ErrorCode.INVALID_REQUEST, "Invalid entity filter component combination. IP filter component "
                                           "should not be used with user or clientId filter component.")
    return None
