"""How many connections one address may hold: `max.connections.per.ip` and
`max.connections.per.ip.overrides`, the per-address part of Kafka's ConnectionQuotas.

The listener counts the connections of each client address. A connection accepted while
its address already holds its maximum is closed at once, before anything is read from it,
with Kafka's INFO line:

    Rejected connection from /127.0.0.1, address already has the configured maximum of 2 connections.

The maximum of an address is its entry in the overrides (`host:count,host:count`), else
`max.connections.per.ip` (Kafka's default 2147483647: no bound). An override's host is an
address or a name; a name counts for every address it resolves to when the setting is
applied (Kafka resolves it to its first address). Addresses compare as the kernel gives
them, an IPv4 client of a dual-stack listener (`::ffff:127.0.0.1`) as its IPv4 address.
Both settings are dynamic, as in Kafka: `update` applies new values to the connections
that come next; those already open stay.

Kafka's broker-wide `max.connections` and `max.connection.creation.rate` are not here.

Owned by the broker's event loop (the listener's accept callbacks); not thread-safe.
"""

from __future__ import annotations

import logging
import re
import socket
import struct

log = logging.getLogger("pylog.connection_quotas")

NO_BOUND = 2147483647   # Kafka's default: Int.MaxValue

_MAPPED_IPV4_PREFIX = "::ffff:"
OVERRIDES = "max.connections.per.ip.overrides"
_VALID_HOST = re.compile(r"[0-9a-zA-Z\-%._:]*")   # Kafka's Utils.validHostPattern


def parse_overrides(text: str | None) -> dict[str, int]:
    """`host:count,host:count` -> {host: count}, read as Kafka reads it (Csv.parseCsvMap: the
    count after an entry's last colon, so `::1:5` is the IPv6 loopback's; then
    KafkaConfig's check of the hosts' characters). Raises ValueError with Kafka's words."""
    overrides: dict[str, int] = {}
    entries = re.split(r"\s*,\s*", text or "")
    while entries and not entries[-1]:   # (Java's split drops trailing empty strings)
        entries.pop()
    for entry in entries:
        host, colon, count = entry.rpartition(":")
        if not colon:
            raise ValueError(f"Error parsing configuration property '{OVERRIDES}': "
                             f"begin 0, end -1, length {len(entry)}")
        try:
            overrides[host.strip()] = int(count.strip())
        except ValueError:
            raise ValueError(f'For input string: "{count.strip()}"') from None
    invalid = [host for host in overrides if not _VALID_HOST.fullmatch(host)]
    if invalid:
        raise ValueError(f"{OVERRIDES} contains invalid addresses : {','.join(invalid)}")
    return overrides


def client_address(ip: str) -> str:
    """The address a connection is counted under."""
    return ip[len(_MAPPED_IPV4_PREFIX):] if ip.startswith(_MAPPED_IPV4_PREFIX) and "." in ip else ip


def java_address(address: str) -> str:
    """`address` as Kafka's log prints an InetAddress: `/127.0.0.1`, `/0:0:0:0:0:0:0:1`."""
    bare, percent, scope = address.partition("%")
    try:
        groups = struct.unpack(">8H", socket.inet_pton(socket.AF_INET6, bare))
    except OSError:   # an IPv4 address
        return "/" + address
    return "/" + ":".join(f"{group:x}" for group in groups) + percent + scope


class ConnectionQuotas:
    def __init__(self, max_per_ip: int = NO_BOUND, overrides: str | None = None):
        self.counts: dict[str, int] = {}
        self.max_per_ip = max_per_ip
        self.overrides: dict[str, int] = {}
        self.update(max_per_ip, overrides)

    def update(self, max_per_ip: int, overrides: str | None) -> None:
        """New limits (`overrides` as the config gives it, already validated), for the
        connections accepted from now on."""
        resolved: dict[str, int] = {}
        for host, count in parse_overrides(overrides).items():
            for address in _addresses_of(host):
                resolved[address] = count
        self.max_per_ip, self.overrides = max_per_ip, resolved

    def limit_of(self, address: str) -> int:
        return self.overrides.get(address, self.max_per_ip)

    def admit(self, ip: str) -> bool:
        """Count a new connection from `ip`; False (and not counted) when its address holds
        its maximum already, which is logged."""
        address = client_address(ip)
        count = self.counts.get(address, 0)
        limit = self.limit_of(address)
        if count >= limit:
            log.info("Rejected connection from %s, address already has the configured maximum of %d connections.",
                     java_address(address), limit)
            return False
        self.counts[address] = count + 1
        return True

    def release(self, ip: str) -> None:
        """An admitted connection from `ip` closed."""
        address = client_address(ip)
        count = self.counts.get(address, 0)
        if count <= 1:
            self.counts.pop(address, None)
        else:
            self.counts[address] = count - 1


def _addresses_of(host: str) -> list[str]:
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            return [client_address(socket.inet_ntop(family, socket.inet_pton(family, host)))]
        except OSError:
            continue
    try:
        found = socket.getaddrinfo(host, None, socket.AF_UNSPEC, socket.SOCK_STREAM)
    except OSError as e:
        log.warning("max.connections.per.ip.overrides: %s does not resolve (%s); its entry is left out", host, e)
        return []
    return list(dict.fromkeys(client_address(info[4][0]) for info in found))
