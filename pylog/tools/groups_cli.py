"""`pylog groups`: consumer groups and their lag, over the wire, like kafka-consumer-groups.sh.

    pylog groups list --bootstrap-server HOST:PORT [--state [STATE ...]]
    pylog groups describe GROUP [GROUP ...] --bootstrap-server HOST:PORT

`describe` prints one row per partition the group has a committed offset for or a member
is assigned, with Kafka's columns and one more:

    GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID LAG-SECONDS

CURRENT-OFFSET is the committed offset ("-" if none), LOG-END-OFFSET the partition's high
watermark (ListOffsets latest, read_uncommitted, as the Kafka tool asks), LAG their
difference. LAG-SECONDS is the age of the oldest record the group has not consumed: now
minus the timestamp of the first record at or after the committed offset (fetched with a
Fetch at that offset from the partition's leader); 0 when the lag is 0, "-" when there is
no committed offset or the record cannot be read. Members without partitions get a row
of "-" with their ids. Like the Kafka tool, a group with no members says so on stderr,
a rebalancing one gets a warning there, and an unknown group is an error (exit 1).

`list` prints the group ids of every broker (ListGroups is per broker); `--state` prints
GROUP and STATE columns, and with state names filters on them (ListGroups v4+).

It works against any Kafka-compatible broker: a small synchronous client on pylog's own
`protocol` package (one socket per broker, one request at a time) negotiates each API's
version with ApiVersions and uses FindCoordinator, DescribeGroups, ListGroups,
OffsetFetch, Metadata, ListOffsets and Fetch. Member assignments are decoded as
ConsumerProtocolAssignment when the group's protocol type is "consumer".
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys
import time
from dataclasses import dataclass

from protocol import codec, headers
from protocol.error_codes import ErrorCode
from protocol.errors import ProtocolError
from protocol.messages import (
    ApiVersionsRequest,
    DescribeGroupsRequest,
    FetchRequest,
    FindCoordinatorRequest,
    ListGroupsRequest,
    ListOffsetsRequest,
    MetadataRequest,
    OffsetFetchRequest,
    RequestHeader,
)
from protocol.messages.consumer_protocol_assignment import ConsumerProtocolAssignment
from protocol.records import iter_batch_headers, iter_records

CLIENT_ID = "pylog-groups"
CONSUMER_PROTOCOL_TYPE = "consumer"
LATEST = -1
FETCH_MAX_BYTES = 1 << 20
# Version caps: Fetch 13+ and Metadata 10+ address topics by id; the rest: what the
# schemas here know (Kafka 3.9).
VERSION_CAPS = {1: 12}
RETRIABLE = {ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
             ErrorCode.NOT_COORDINATOR, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.REQUEST_TIMED_OUT}


class GroupsError(Exception):
    """A failure to report to the user (exit 1)."""


class RetriableError(GroupsError):
    pass


def _error(code: int, what: str) -> GroupsError:
    try:
        error = ErrorCode(code)
    except ValueError:
        return GroupsError(f"{what}: error code {code}")
    cls = RetriableError if error in RETRIABLE else GroupsError
    return cls(f"{what}: {error.name} ({error.value})")


# ---------------------------------------------------------------------------------------
# a synchronous Kafka connection


class Connection:
    """One socket to one broker; `call` picks the version from the broker's ApiVersions."""

    def __init__(self, host: str, port: int, timeout_s: float):
        self.address = f"{host}:{port}"
        try:
            self.sock = socket.create_connection((host, port), timeout=timeout_s)
        except OSError as exc:
            raise GroupsError(f"cannot connect to {self.address}: {exc}") from None
        self.correlation_id = 0
        self.versions: dict[int, tuple[int, int]] = {}
        response = self.send(ApiVersionsRequest(), 0)
        if response.error_code:
            raise _error(response.error_code, f"ApiVersions from {self.address}")
        self.versions = {a.api_key: (a.min_version, a.max_version) for a in response.api_keys}

    def close(self) -> None:
        self.sock.close()

    def version(self, api_key: int) -> int:
        cls = headers.request_class(api_key)
        if api_key not in self.versions:
            raise GroupsError(f"broker {self.address} does not serve {cls.schema_name[:-len('Request')]}")
        low, high = self.versions[api_key]
        ours_low, ours_high = cls.valid_versions
        version = min(high, ours_high, VERSION_CAPS.get(api_key, ours_high))
        if version < max(low, ours_low):
            raise GroupsError(f"no common version of {cls.schema_name} with {self.address} "
                              f"(broker {low}-{high}, pylog {ours_low}-{ours_high})")
        return version

    def call(self, body, min_version: int = 0):
        """(version, response) for a request body at the best common version."""
        version = self.version(body.api_key)
        if version < min_version:
            raise GroupsError(f"{type(body).__name__} v{min_version}+ needed; {self.address} serves up to "
                              f"v{version}")
        return version, self.send(body, version)

    def send(self, body, version: int):
        self.correlation_id += 1
        header = RequestHeader(request_api_key=body.api_key, request_api_version=version,
                               correlation_id=self.correlation_id, client_id=CLIENT_ID)
        payload = headers.encode_request(header, body)
        try:
            self.sock.sendall(struct.pack(">i", len(payload)) + payload)
            size, = struct.unpack(">i", self._read(4))
            frame = self._read(size)
        except OSError as exc:
            raise GroupsError(f"{self.address}: {exc}") from None
        try:
            response_header, response = headers.decode_response(body.api_key, version, frame)
        except ProtocolError as exc:
            raise GroupsError(f"{self.address}: malformed {type(body).__name__[:-7]} response: {exc}") from None
        if response_header.correlation_id != self.correlation_id:
            raise GroupsError(f"{self.address}: response for request {response_header.correlation_id}, "
                              f"expected {self.correlation_id}")
        return response

    def _read(self, size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise OSError("connection closed by the broker")
            data += chunk
        return bytes(data)


@dataclass(frozen=True)
class PartitionInfo:
    leader: int
    leader_epoch: int


class Client:
    """Connections by node id, the bootstrap broker first."""

    def __init__(self, bootstrap: str, timeout_s: float = 10.0):
        self.timeout_s = timeout_s
        self.bootstrap = Connection(*_split_address(bootstrap.split(",")[0].strip()), timeout_s)
        self.brokers: dict[int, tuple[str, int]] = {}
        self.connections: dict[int, Connection] = {}

    def close(self) -> None:
        self.bootstrap.close()
        for connection in self.connections.values():
            connection.close()

    def node(self, node_id: int) -> Connection:
        connection = self.connections.get(node_id)
        if connection is None:
            if node_id not in self.brokers:
                self.metadata([])
            if node_id not in self.brokers:
                raise GroupsError(f"broker {node_id} is not in the cluster metadata")
            connection = self.connections[node_id] = Connection(*self.brokers[node_id], self.timeout_s)
        return connection

    def connection_to(self, node_id: int, host: str, port: int) -> Connection:
        self.brokers[node_id] = (host, port)
        return self.node(node_id)

    # -- requests ----------------------------------------------------------------------

    def metadata(self, topics: list[str]) -> dict[tuple[str, int], PartitionInfo]:
        """Brokers (kept) and the partitions of `topics` (an empty list asks for none, v1+)."""
        request = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=t) for t in topics],
                                  allow_auto_topic_creation=False)
        version, response = self.bootstrap.call(request)
        for b in response.brokers:
            self.brokers[b.node_id] = (b.host, b.port)
        partitions: dict[tuple[str, int], PartitionInfo] = {}
        for topic in response.topics:
            if topic.name not in topics:
                continue
            for p in topic.partitions:
                partitions[(topic.name, p.partition_index)] = PartitionInfo(p.leader_id, p.leader_epoch)
        return partitions

    def coordinator(self, group_id: str) -> Connection:
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                return self._find_coordinator(group_id)
            except RetriableError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.1)

    def _find_coordinator(self, group_id: str) -> Connection:
        request = FindCoordinatorRequest(key=group_id, key_type=0, coordinator_keys=[group_id])
        version, response = self.bootstrap.call(request)
        if version >= 4:
            if not response.coordinators:
                raise GroupsError("FindCoordinator answered no coordinator")
            entry = response.coordinators[0]
        else:
            entry = response
        if entry.error_code:
            raise _error(entry.error_code, f"FindCoordinator for group {group_id!r}")
        return self.connection_to(entry.node_id, entry.host, entry.port)

    def list_groups(self, states: list[str]) -> list[tuple[str, str, str]]:
        """(group id, protocol type, state or "") of every group on every broker."""
        self.metadata([])
        found = []
        for node_id in sorted(self.brokers):
            connection = self.node(node_id)
            version = connection.version(ListGroupsRequest.api_key)
            if states and version < 4:
                raise GroupsError(f"broker {connection.address} cannot filter groups by state "
                                  f"(ListGroups v{version})")
            response = connection.send(ListGroupsRequest(states_filter=list(states)), version)
            if response.error_code:
                raise _error(response.error_code, f"ListGroups from {connection.address}")
            found += [(g.group_id, g.protocol_type, g.group_state if version >= 4 else "") for g in response.groups]
        return sorted(set(found))

    def describe_group(self, group_id: str):
        deadline = time.monotonic() + self.timeout_s
        while True:
            connection = self.coordinator(group_id)
            _, response = connection.call(DescribeGroupsRequest(groups=[group_id]))
            group = response.groups[0]
            if group.error_code in RETRIABLE and time.monotonic() < deadline:
                time.sleep(0.1)
                continue
            # a group that does not exist: "Dead" with no members, from DescribeGroups v6
            # with GROUP_ID_NOT_FOUND
            if group.error_code and group.error_code != ErrorCode.GROUP_ID_NOT_FOUND:
                raise _error(group.error_code, f"DescribeGroups for {group_id!r}")
            return connection, group

    def committed(self, connection: Connection, group_id: str) -> dict[tuple[str, int], int]:
        """Committed offsets of every partition of the group (OffsetFetch, topics null)."""
        Group = OffsetFetchRequest.OffsetFetchRequestGroup
        version, response = connection.call(
            OffsetFetchRequest(group_id=group_id, topics=None, groups=[Group(group_id=group_id, topics=None)]),
            min_version=2)
        if version >= 8:
            group = response.groups[0]
            error, topics = group.error_code, group.topics
        else:
            error, topics = response.error_code, response.topics
        if error:
            raise _error(error, f"OffsetFetch for {group_id!r}")
        offsets = {}
        for topic in topics:
            for p in topic.partitions:
                if p.error_code:
                    raise _error(p.error_code, f"OffsetFetch for {group_id!r} {topic.name}-{p.partition_index}")
                if p.committed_offset >= 0:
                    offsets[(topic.name, p.partition_index)] = p.committed_offset
        return offsets

    def end_offsets(self, partitions: dict[tuple[str, int], PartitionInfo]) -> dict[tuple[str, int], int]:
        """High watermarks (ListOffsets latest), asked of each partition's leader."""
        by_leader: dict[int, list[tuple[str, int]]] = {}
        for tp, info in partitions.items():
            if info.leader >= 0:
                by_leader.setdefault(info.leader, []).append(tp)
        ends = {}
        for leader, tps in by_leader.items():
            topics: dict[str, list] = {}
            for topic, index in sorted(tps):
                topics.setdefault(topic, []).append(ListOffsetsRequest.ListOffsetsPartition(
                    partition_index=index, current_leader_epoch=-1, timestamp=LATEST, max_num_offsets=1))
            request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
                ListOffsetsRequest.ListOffsetsTopic(name=name, partitions=ps) for name, ps in topics.items()])
            version, response = self.node(leader).call(request)
            for topic in response.topics:
                for p in topic.partitions:
                    if p.error_code:
                        continue
                    offset = p.old_style_offsets[0] if version == 0 and p.old_style_offsets else p.offset
                    if offset >= 0:
                        ends[(topic.name, p.partition_index)] = offset
        return ends

    def record_timestamp_at(self, tp: tuple[str, int], leader: int, offset: int, end: int) -> int | None:
        """Timestamp of the first record at or after `offset` (below `end`), or None."""
        connection = self.node(leader)
        position = offset
        for _ in range(100):           # control batches / compacted gaps: a few steps at most
            if position >= end:
                return None
            partition = FetchRequest.FetchPartition(partition=tp[1], current_leader_epoch=-1, fetch_offset=position,
                                                    log_start_offset=-1, partition_max_bytes=FETCH_MAX_BYTES)
            request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=FETCH_MAX_BYTES,
                                   isolation_level=0, session_id=0, session_epoch=-1,
                                   topics=[FetchRequest.FetchTopic(topic=tp[0], partitions=[partition])])
            version, response = connection.call(request, min_version=4)
            answer = next((p for t in response.responses for p in t.partitions if p.partition_index == tp[1]), None)
            if answer is None:
                return None
            if answer.error_code == ErrorCode.OFFSET_OUT_OF_RANGE and answer.log_start_offset > position:
                position = answer.log_start_offset       # deleted records: the oldest one left
                continue
            if answer.error_code:
                return None
            data = answer.records or b""
            next_position = position
            try:
                for batch_position, header in iter_batch_headers(data):
                    next_position = max(next_position, header.next_offset)
                    if header.is_control or header.next_offset <= position:
                        continue
                    for record in iter_records(data, batch_position):
                        if record.offset >= position:
                            return record.timestamp if record.timestamp >= 0 else None
            except ProtocolError:
                return None         # legacy message format or a damaged batch
            if next_position <= position:
                return None
            position = next_position
        return None


def _split_address(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise GroupsError(f"bootstrap server {address!r} is not HOST:PORT")
    return host.strip("[]"), int(port)


def decode_assignment(data) -> list[tuple[str, int]]:
    """(topic, partition) pairs of a ConsumerProtocolAssignment (newer versions read as the newest)."""
    if not data or len(data) < 2:
        return []
    version, = struct.unpack_from(">h", data)
    if version < 0:
        return []
    version = min(version, ConsumerProtocolAssignment.valid_versions[1])
    try:
        assignment = codec.decode(ConsumerProtocolAssignment, bytes(data), version, 2)
    except ProtocolError:
        return []
    return [(tp.topic, p) for tp in assignment.assigned_partitions for p in tp.partitions]


# ---------------------------------------------------------------------------------------
# describe


@dataclass
class Row:
    group: str
    topic: str = "-"
    partition: str = "-"
    current_offset: str = "-"
    log_end_offset: str = "-"
    lag: str = "-"
    consumer_id: str = "-"
    host: str = "-"
    client_id: str = "-"
    lag_seconds: str = "-"


HEADERS = ("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST",
           "CLIENT-ID", "LAG-SECONDS")
MIN_WIDTHS = (0, 0, 10, 15, 15, 15, 0, 0, 0, 0)


def describe(client: Client, group_id: str, now_ms=None) -> tuple[str, list[Row]]:
    """(state, rows) of one group."""
    connection, group = client.describe_group(group_id)
    committed = client.committed(connection, group_id)
    owners: dict[tuple[str, int], object] = {}
    idle_members = []
    for member in group.members:
        assigned = decode_assignment(member.member_assignment) if group.protocol_type == CONSUMER_PROTOCOL_TYPE else []
        for tp in assigned:
            owners[tp] = member
        if not assigned:
            idle_members.append(member)
    partitions = sorted(set(committed) | set(owners))
    infos = client.metadata(sorted({t for t, _ in partitions})) if partitions else {}
    ends = client.end_offsets({tp: infos[tp] for tp in partitions if tp in infos})
    rows = []
    for tp in partitions:
        row = Row(group_id, tp[0], str(tp[1]))
        member = owners.get(tp)
        if member is not None:
            row.consumer_id, row.host, row.client_id = member.member_id, member.client_host, member.client_id
        current, end = committed.get(tp), ends.get(tp)
        if current is not None:
            row.current_offset = str(current)
        if end is not None:
            row.log_end_offset = str(end)
        if current is not None and end is not None:
            lag = max(end - current, 0)
            row.lag = str(lag)
            if lag == 0:
                row.lag_seconds = "0"
            else:
                timestamp = client.record_timestamp_at(tp, infos[tp].leader, current, end)
                if timestamp is not None:
                    now = time.time_ns() // 1_000_000 if now_ms is None else now_ms()
                    row.lag_seconds = f"{max(now - timestamp, 0) / 1000:.3f}"
        rows.append(row)
    for member in idle_members:
        rows.append(Row(group_id, consumer_id=member.member_id, host=member.client_host, client_id=member.client_id))
    return group.group_state, rows


def format_table(rows: list[Row]) -> str:
    values = [HEADERS] + [(r.group, r.topic, r.partition, r.current_offset, r.log_end_offset, r.lag,
                           r.consumer_id, r.host, r.client_id, r.lag_seconds) for r in rows]
    widths = [max([minimum] + [len(v[i]) for v in values]) for i, minimum in enumerate(MIN_WIDTHS)]
    lines = []
    for v in values:
        cells = [cell.ljust(width) for cell, width in zip(v[:-1], widths)] + [v[-1]]
        lines.append(" ".join(cells))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# the command


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="pylog groups",
                                     description="List consumer groups and show their lag (any Kafka broker).")
    commands = parser.add_subparsers(dest="command", required=True)
    list_parser = commands.add_parser("list", help="list the groups of the cluster")
    list_parser.add_argument("--state", nargs="*", default=None, metavar="STATE",
                             help="show each group's state; with names, only groups in those states")
    describe_parser = commands.add_parser("describe", help="offsets, lag and members of groups")
    describe_parser.add_argument("groups", nargs="+", metavar="GROUP")
    for sub in (list_parser, describe_parser):
        sub.add_argument("--bootstrap-server", required=True, metavar="HOST:PORT")
        sub.add_argument("--timeout", type=int, default=10000, metavar="MS",
                         help="how long to wait for a coordinator (default 10000)")
    args = parser.parse_args(argv)
    try:
        client = Client(args.bootstrap_server, args.timeout / 1000)
    except GroupsError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    try:
        if args.command == "list":
            return list_command(client, args.state)
        return describe_command(client, args.groups)
    except GroupsError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    finally:
        client.close()


def list_command(client: Client, states: list[str] | None) -> int:
    groups = client.list_groups(states or [])
    if states is None:
        for group_id, _, _ in groups:
            print(group_id)
        return 0
    width = max([len("GROUP")] + [len(g) for g, _, _ in groups])
    print(f"{'GROUP'.ljust(width)} STATE")
    for group_id, _, state in groups:
        print(f"{group_id.ljust(width)} {state or '-'}")
    return 0


def describe_command(client: Client, group_ids: list[str]) -> int:
    status = 0
    for group_id in group_ids:
        state, rows = describe(client, group_id)
        if state == "Dead" and not rows:
            print(f"Error: Consumer group '{group_id}' does not exist.", file=sys.stderr)
            status = 1
            continue
        if state in ("Empty", "Dead"):
            print(f"\nConsumer group '{group_id}' has no active members.", file=sys.stderr)
        elif state in ("PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"):
            print(f"\nWarning: Consumer group '{group_id}' is rebalancing.", file=sys.stderr)
        print()
        print(format_table(rows))
    return status


if __name__ == "__main__":
    sys.exit(main())
