"""The classic group protocol and group admin: thin adapters onto `broker.group_coordinator`.

    JoinGroup       (11) v0-7   v0 has no rebalance timeout (the session timeout is used);
                                v4+ dynamic members first get MEMBER_ID_REQUIRED with their
                                id; v5+ group.instance.id (static membership); v7+ protocol
                                type/name, null on errors; the member's client host is
                                its address as Java prints it (`java_inet_address`); v8+
                                a reason (Kafka only logs it); v9+ a static leader rejoining a Stable
                                group is told it leads, with the members, and
                                `skip_assignment` (KIP-814), where older versions answer it
                                the previous leader id
    Heartbeat       (12) v0-4
    LeaveGroup      (13) v0-5   v0-2 one member_id, the member's error at the top level;
                                v3+ a batch of members (by member id or group.instance.id),
                                one result each in `members`; v5+ a reason per member
                                (Kafka only logs it)
    SyncGroup       (14) v0-5   v5+ protocol type and name, both required
    DescribeGroups  (15) v0-6   an unknown group is "Dead": error NONE before v6,
                                GROUP_ID_NOT_FOUND with "Group <id> not found." v6+
    ListGroups      (16) v0-5   v4+ states filter (case-insensitive); v5+ types filter
                                (case-insensitive) and each group's type, "classic"
    DeleteGroups    (42) v0-2   Empty groups only (NON_EMPTY_GROUP otherwise); answered once
                                the tombstones are replicated (the coordinator's
                                `wait_replicated`); a group named twice, once

DescribeGroups and DeleteGroups answer their groups in the order Kafka's coordinator does,
which is not the request's: partition by partition of `__consumer_offsets`, in a Java
HashMap's order (`GroupCoordinator.answer_order`).

Every group request of a group whose `__consumer_offsets` partition this broker does not
lead gets NOT_COORDINATOR (COORDINATOR_LOAD_IN_PROGRESS while it loads), where each API
carries its errors (see pylog/coordinator/coordinator.py); ListGroups lists the groups
of the partitions it leads.

JoinGroup and SyncGroup may wait for the rest of the group; the dispatcher holds that
connection's later responses back meanwhile, which is what clients expect.
FindCoordinator (key 10) is `find_coordinator.py`: this node for every group.

The coordinator's modules are imported by the first group request, not with this module
(`Broker.group_coordinator`), so the names taken from them are imported in the handlers.
"""

from __future__ import annotations

import ipaddress

from protocol.error_codes import ErrorCode
from protocol.messages import (
    DeleteGroupsResponse,
    DescribeGroupsResponse,
    HeartbeatResponse,
    JoinGroupResponse,
    LeaveGroupResponse,
    ListGroupsResponse,
    SyncGroupResponse,
)
from pylog.handlers import authorized_operations


def java_inet_address(host: str) -> str:
    """A client's address as Kafka records it (Java's `InetAddress.toString()` of an
    address without a host name): "/" and the address; IPv6 as eight groups of hex without
    leading zeros and without "::" ("/0:0:0:0:0:0:0:1"), an IPv4-mapped IPv6 address as
    the IPv4 address Java turns it into. Anything else (a test's fake address) is kept."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return "/" + host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"/{address.ipv4_mapped}"
        scope = host[len(host.split("%", 1)[0]):]
        return "/" + ":".join(f"{int(group, 16):x}" for group in address.exploded.split(":")) + scope
    return f"/{address}"


# ---------------------------------------------------------------------------------------
# JoinGroup / SyncGroup / Heartbeat / LeaveGroup


def make_join_group_handler(broker):
    async def handle(request, context) -> JoinGroupResponse:
        from pylog.coordinator.group import JoinRequest
        version = context.api_version
        instance_id = request.group_instance_id if version >= 5 else None
        join = JoinRequest(
            member_id=request.member_id or "",
            session_timeout_ms=request.session_timeout_ms,
            rebalance_timeout_ms=request.rebalance_timeout_ms if version >= 1 else request.session_timeout_ms,
            protocol_type=request.protocol_type or "",
            protocols=tuple((p.name, bytes(p.metadata or b"")) for p in request.protocols),
            group_instance_id=instance_id,
            client_id=context.client_id or "",
            client_host=java_inet_address(context.client_host),
            require_known_member_id=version >= 4 and instance_id is None,
            reason=request.reason if version >= 8 else None,
            supports_skip_assignment=version >= 9,
        )
        result = await broker.group_coordinator.join_group(request.group_id, join)
        if version >= 7:
            protocol_type, protocol_name = result.protocol_type, result.protocol_name
        else:
            protocol_type, protocol_name = None, result.protocol_name or ""
        return JoinGroupResponse(
            error_code=result.error, generation_id=result.generation_id, protocol_type=protocol_type,
            protocol_name=protocol_name, leader=result.leader, member_id=result.member_id,
            skip_assignment=result.skip_assignment,
            members=[JoinGroupResponse.JoinGroupResponseMember(member_id=m.member_id,
                                                               group_instance_id=m.group_instance_id,
                                                               metadata=m.metadata)
                     for m in result.members])

    return handle


def make_sync_group_handler(broker):
    async def handle(request, context) -> SyncGroupResponse:
        from pylog.coordinator.group import SyncRequest
        version = context.api_version
        if version >= 5 and (request.protocol_type is None or request.protocol_name is None):
            return SyncGroupResponse(error_code=ErrorCode.INCONSISTENT_GROUP_PROTOCOL)
        sync = SyncRequest(
            member_id=request.member_id or "",
            generation_id=request.generation_id,
            assignments={a.member_id: bytes(a.assignment or b"") for a in request.assignments},
            group_instance_id=request.group_instance_id if version >= 3 else None,
            protocol_type=request.protocol_type if version >= 5 else None,
            protocol_name=request.protocol_name if version >= 5 else None,
        )
        result = await broker.group_coordinator.sync_group(request.group_id, sync)
        return SyncGroupResponse(error_code=result.error, protocol_type=result.protocol_type,
                                 protocol_name=result.protocol_name, assignment=result.assignment)

    return handle


def make_heartbeat_handler(broker):
    async def handle(request, context) -> HeartbeatResponse:
        instance_id = request.group_instance_id if context.api_version >= 3 else None
        error = broker.group_coordinator.heartbeat(request.group_id, request.member_id or "", instance_id,
                                                   request.generation_id)
        return HeartbeatResponse(error_code=error)

    return handle


def make_leave_group_handler(broker):
    async def handle(request, context) -> LeaveGroupResponse:
        version = context.api_version
        if version >= 3:
            leaving = [(m.member_id or "", m.group_instance_id) for m in request.members]
        else:
            leaving = [(request.member_id or "", None)]
        error, member_errors = broker.group_coordinator.leave_group(request.group_id, leaving)
        if version < 3:
            # one member: its error is the answer (Kafka's LeaveGroupResponse for v0-2)
            if not error and member_errors:
                error = member_errors[0]
            return LeaveGroupResponse(error_code=error)
        return LeaveGroupResponse(error_code=error, members=[
            LeaveGroupResponse.MemberResponse(member_id=member_id, group_instance_id=instance_id,
                                              error_code=member_error)
            for (member_id, instance_id), member_error in zip(leaving, member_errors)])

    return handle


# ---------------------------------------------------------------------------------------
# DescribeGroups / ListGroups / DeleteGroups


def make_describe_groups_handler(broker):
    async def handle(request, context) -> DescribeGroupsResponse:
        include_operations = context.api_version >= 3 and request.include_authorized_operations
        described = []
        for group_id in broker.group_coordinator.answer_order(request.groups):
            error, summary = broker.group_coordinator.describe_group(group_id)
            message = None
            if error == ErrorCode.GROUP_ID_NOT_FOUND:
                if context.api_version >= 6:
                    message = f"Group {group_id} not found."
                else:
                    error = ErrorCode.NONE
            described.append(DescribeGroupsResponse.DescribedGroup(
                error_code=error, error_message=message, group_id=group_id,
                group_state=summary.state.value if summary.state is not None else "",
                protocol_type=summary.protocol_type, protocol_data=summary.protocol_data,
                members=[DescribeGroupsResponse.DescribedGroupMember(
                    member_id=m.member_id, group_instance_id=m.group_instance_id, client_id=m.client_id,
                    client_host=m.client_host, member_metadata=m.metadata, member_assignment=m.assignment)
                    for m in summary.members],
                # Kafka tells the operations of a group found (error NONE) only
                authorized_operations=(authorized_operations.GROUP if include_operations and error == ErrorCode.NONE
                                       else authorized_operations.OMITTED)))
        return DescribeGroupsResponse(groups=described)

    return handle


def make_list_groups_handler(broker):
    async def handle(request, context) -> ListGroupsResponse:
        from pylog.coordinator.coordinator import CLASSIC_GROUP_TYPE
        states = request.states_filter if context.api_version >= 4 else []
        types = request.types_filter if context.api_version >= 5 else []
        error, groups = broker.group_coordinator.list_groups(states or [], types or [])
        return ListGroupsResponse(error_code=error, groups=[
            ListGroupsResponse.ListedGroup(group_id=g.group_id, protocol_type=g.protocol_type,
                                           group_state=g.state.value, group_type=CLASSIC_GROUP_TYPE)
            for g in groups])

    return handle


def make_delete_groups_handler(broker):
    async def handle(request, context) -> DeleteGroupsResponse:
        coordinator = broker.group_coordinator
        # a group named twice is deleted and answered once (Kafka's handler takes the
        # names `distinct`)
        results = coordinator.delete_groups(coordinator.answer_order(dict.fromkeys(request.groups_names), deleting=True))
        # the tombstones count once replicated (the waits are taken now, right after the writes)
        waits = {group_id: coordinator.wait_replicated(coordinator.written_so_far(group_id))
                 for group_id, error in results.items() if not error}
        for group_id, replicated in waits.items():
            error = await replicated
            if error:
                results[group_id] = error
        return DeleteGroupsResponse(results=[
            DeleteGroupsResponse.DeletableGroupResult(group_id=group_id, error_code=error)
            for group_id, error in results.items()])

    return handle
