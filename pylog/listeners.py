"""Listeners: `listeners`, `advertised.listeners`, `listener.security.protocol.map` and
`controller.listener.names` resolved as Kafka resolves them, and the one pylog serves.

An endpoint is NAME://host:port (host may be empty, or [ipv6]; port 0 asks the OS for a
free one). Listener names are upper-cased, as Kafka normalises them; each name needs a
security protocol in the map (a controller listener missing from the default map gets
PLAINTEXT, as in Kafka). pylog serves the first PLAINTEXT listener that is not a
controller listener (the "client listener"). `advertised.listeners` defaults to
`listeners`; an advertised name must be a listener, 0.0.0.0 cannot be advertised, and the
client listener must have an advertised entry. A wildcard host ("", 0.0.0.0, ::) is
advertised as this machine's host name (`advertised_address`). Problems raise
InvalidConfig naming the key. Stateless.
"""

from __future__ import annotations

import re
import socket
from typing import Mapping, NamedTuple

from storage.config_def import LIST_SPLIT_RE
from storage.errors import InvalidConfig

__all__ = ["Endpoint", "Listeners", "SECURITY_PROTOCOLS", "WILDCARD_HOSTS", "resolve_listeners",
           "advertised_address"]

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
WILDCARD_HOSTS = ("", "0.0.0.0", "::")

_LISTENER_RE = re.compile(
    r"(?P<name>[^:/,\s]+)://"                          # listener name
    r"(?:\[(?P<v6>[^\]]*)\]|(?P<host>[^:\[\]/]*))"    # [ipv6] or host (may be empty)
    r":(?P<port>-?[0-9]+)"
)


class Endpoint(NamedTuple):
    """One entry of `listeners` / `advertised.listeners`: NAME://host:port."""

    listener_name: str
    security_protocol: str
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.listener_name}://{host}:{self.port}"


class Listeners(NamedTuple):
    """The resolved listener settings."""

    endpoints: list[Endpoint]          # every listener
    client: Endpoint                   # the one pylog serves
    advertised: list[Endpoint]         # advertised endpoints of the non-controller listeners
    advertised_entries: list[str]      # advertised.listeners as given, or listeners
    protocol_map: dict[str, str]       # listener name -> security protocol
    controller_names: list[str]        # upper-cased


def resolve_listeners(listeners: list[str], advertised: list[str] | None, protocol_map: str,
                      controller_names: list[str] | None, map_given: bool) -> Listeners:
    """The four settings' values (`map_given`: whether the protocol map was given)."""
    protocols = _parse_protocol_map(protocol_map)
    controllers = [n.upper() for n in (controller_names or [])]
    if not map_given:
        for name in controllers:
            protocols.setdefault(name, "PLAINTEXT")

    endpoints = _parse_endpoints("listeners", listeners, protocols)
    if not endpoints:
        raise InvalidConfig("listeners", "at least one listener is needed")
    ports = [e.port for e in endpoints if e.port != 0]
    if len(ports) != len(set(ports)):
        raise InvalidConfig("listeners", "each listener needs its own port", ",".join(listeners))
    clients = [e for e in endpoints
               if e.security_protocol == "PLAINTEXT" and e.listener_name not in controllers]
    if not clients:
        raise InvalidConfig("listeners", "pylog needs a PLAINTEXT listener for clients "
                            "(one not named in controller.listener.names)", ",".join(listeners))
    client = clients[0]

    if advertised is None:
        return Listeners(endpoints, client,
                         [e for e in endpoints if e.listener_name not in controllers],
                         list(listeners), protocols, controllers)
    text = ",".join(advertised)
    given = _parse_endpoints("advertised.listeners", advertised, protocols)
    names = {e.listener_name for e in endpoints}
    for endpoint in given:
        if endpoint.listener_name not in names:
            raise InvalidConfig("advertised.listeners",
                                f"listener {endpoint.listener_name} is not in listeners", text)
        if endpoint.host == "0.0.0.0":
            raise InvalidConfig("advertised.listeners",
                                "cannot advertise 0.0.0.0; give a host clients can reach", text)
    given = [e for e in given if e.listener_name not in controllers]
    if not any(e.listener_name == client.listener_name for e in given):
        raise InvalidConfig("advertised.listeners",
                            f"no entry for the client listener {client.listener_name}", text)
    return Listeners(endpoints, client, given, list(advertised), protocols, controllers)


def advertised_address(resolved: Listeners, bound_port: int | None = None) -> tuple[str, int]:
    """(host, port) to give clients for the client listener: a wildcard host becomes this
    machine's host name; port 0 becomes `bound_port` when it is given."""
    endpoint = next(e for e in resolved.advertised
                    if e.listener_name == resolved.client.listener_name)
    host = socket.gethostname() if endpoint.host in WILDCARD_HOSTS else endpoint.host
    port = bound_port if endpoint.port == 0 and bound_port is not None else endpoint.port
    return host, port


def _parse_protocol_map(text: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for entry in (item for item in LIST_SPLIT_RE.split(text.strip()) if item):
        name, sep, protocol = entry.partition(":")
        protocol = protocol.strip().upper()
        if not sep or not name.strip() or protocol not in SECURITY_PROTOCOLS:
            raise InvalidConfig(
                "listener.security.protocol.map",
                f"entry {entry!r} is not NAME:PROTOCOL with PROTOCOL one of "
                f"{', '.join(SECURITY_PROTOCOLS)}",
                text,
            )
        result[name.strip().upper()] = protocol
    return result


def _parse_endpoints(key: str, entries: list[str], protocols: Mapping[str, str]) -> list[Endpoint]:
    endpoints: list[Endpoint] = []
    text = ",".join(entries)
    for entry in entries:
        m = _LISTENER_RE.fullmatch(entry)
        if m is None:
            raise InvalidConfig(key, f"{entry!r} is not NAME://host:port", text)
        name = m.group("name").upper()
        host = m.group("v6") if m.group("v6") is not None else m.group("host")
        port = int(m.group("port"))
        if not 0 <= port <= 65535:
            raise InvalidConfig(key, f"port {port} of {name} is not in 0..65535", text)
        if name not in protocols:
            raise InvalidConfig(
                key, f"no security protocol for listener {name} in listener.security.protocol.map",
                text)
        if any(e.listener_name == name for e in endpoints):
            raise InvalidConfig(key, f"listener {name} is given twice", text)
        endpoints.append(Endpoint(name, protocols[name], host, port))
    return endpoints
