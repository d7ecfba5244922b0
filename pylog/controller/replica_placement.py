"""Where new partitions' replicas go: Kafka 4.1's `StripedReplicaPlacer`, and the brokers it
may use.

Usable brokers (Kafka's `ClusterControlManager.usableBrokers`): every registered broker not
in controlled shutdown, each with its rack and whether it is fenced. A fenced broker can
hold a follower replica when the unfenced ones run out; a leader (the first replica) is
always unfenced.

The striping, per call to `place_replicas` (one topic, or the new partitions of one):
  - brokers are grouped by rack (no rack is a rack of its own, sorted first); within a
    rack, unfenced and fenced brokers are two lists, each sorted by id and given a random
    starting offset; the racks get a random starting offset too;
  - each partition takes its leader from the next rack (round robin over racks) that has
    an unfenced broker left in this round, and its followers one per rack from the racks
    after the starting one (skipping the leader's), unfenced before fenced; each broker
    list moves its offset on by one at every new round, so followers shift;
  - after as many partitions as there are unfenced brokers (when more than one), the
    racks and the brokers within them are shuffled, and a new round starts.
  Refusals (`PlacementError`, Kafka's InvalidReplicationFactorException messages): a
  replication factor of 0 or less; no unfenced broker ("All brokers are currently
  fenced."); more replicas than usable brokers ("The target replication factor of 3
  cannot be reached because only 2 broker(s) are registered.").

The random source is an argument (`random.Random`, or anything with its `randrange` and
`shuffle`), so a seeded one makes placement deterministic. Its draws are Kafka's, in
Kafka's order, except that racks are visited in sorted order where Kafka walks a hash
map: with Java's `Random` and one rack (no racks at all), the placement is exactly
Kafka's. Every partition's replicas are distinct brokers. Pure; no state kept between
calls.

`default_directory` is the log directory a new replica is assigned to (Kafka's
`ClusterControlManager.defaultDir`): the broker's only directory; MIGRATING (UUID 0) for a
broker that registered none; UNASSIGNED (UUID 0:1) for several (the broker picks) or an
unregistered broker.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import Iterable, Sequence

from pylog.metadata_image import MIGRATING_DIRECTORY, MetadataImage

UNASSIGNED_DIRECTORY = uuid.UUID(int=1)


class PlacementError(ValueError):
    """No placement is possible (Kafka's InvalidReplicationFactorException)."""


@dataclass(frozen=True)
class UsableBroker:
    broker_id: int
    rack: str | None
    fenced: bool


def usable_brokers(image: MetadataImage) -> list[UsableBroker]:
    """The brokers placement may use, by id."""
    return [UsableBroker(b.broker_id, b.rack, b.fenced)
            for b in sorted(image.brokers.values(), key=lambda b: b.broker_id)
            if not b.in_controlled_shutdown]


def is_active(image: MetadataImage, broker_id: int) -> bool:
    """Registered, unfenced and not in controlled shutdown (Kafka's `isActive`): a broker
    that may be in a new partition's ISR."""
    broker = image.brokers.get(broker_id)
    return broker is not None and not broker.fenced and not broker.in_controlled_shutdown


def default_directory(image: MetadataImage, broker_id: int) -> uuid.UUID:
    broker = image.brokers.get(broker_id)
    if broker is None:
        return UNASSIGNED_DIRECTORY
    if not broker.directories:
        return MIGRATING_DIRECTORY
    if len(broker.directories) == 1:
        return broker.directories[0]
    return UNASSIGNED_DIRECTORY


class _BrokerList:
    """One rack's unfenced (or fenced) brokers, walked from a moving offset."""

    def __init__(self):
        self.brokers: list[int] = []
        self.index = 0
        self.offset = 0
        self.round = 0

    def start(self, rng: random.Random) -> None:
        if self.brokers:
            self.brokers.sort()
            self.offset = rng.randrange(len(self.brokers))

    def next(self, round_: int) -> int | None:
        if not self.brokers:
            return None
        if self.round != round_:
            self.round = round_
            self.index = 0
            self.offset = (self.offset + 1) % len(self.brokers)
        if self.index >= len(self.brokers):
            return None
        broker = self.brokers[(self.index + self.offset) % len(self.brokers)]
        self.index += 1
        return broker


class _Rack:
    def __init__(self):
        self.unfenced = _BrokerList()
        self.fenced = _BrokerList()

    def next_unfenced(self, round_: int) -> int | None:
        return self.unfenced.next(round_)

    def next(self, round_: int) -> int | None:
        broker = self.unfenced.next(round_)
        return broker if broker is not None else self.fenced.next(round_)


class _Racks:
    def __init__(self, rng: random.Random, brokers: Iterable[UsableBroker]):
        self.rng = rng
        self.racks: dict[str | None, _Rack] = {}
        self.total = 0
        self.unfenced = 0
        for broker in brokers:
            rack = self.racks.setdefault(broker.rack, _Rack())
            (rack.fenced if broker.fenced else rack.unfenced).brokers.append(broker.broker_id)
            self.total += 1
            self.unfenced += not broker.fenced
        self.names = sorted(self.racks, key=_rack_order)
        for name in self.names:
            self.racks[name].fenced.start(rng)
            self.racks[name].unfenced.start(rng)
        self.offset = rng.randrange(len(self.names)) if self.names else 0
        self.round = 0

    def place(self, replication_factor: int) -> list[int]:
        if self.round == self.unfenced and self.unfenced > 1:
            self._shuffle()
            self.round = 0
        if self.offset == len(self.names):
            self.offset = 0
        replicas = []
        first = self.offset
        while True:
            leader = self.racks[self.names[first]].next_unfenced(self.round)
            if leader is not None:
                replicas.append(leader)
                break
            first = (first + 1) % len(self.names)
        index = self.offset
        for _ in range(1, replication_factor):
            broker = None
            while broker is None:
                if index == first:
                    first = -1   # the leader's rack: skipped once
                else:
                    broker = self.racks[self.names[index]].next(self.round)
                index = (index + 1) % len(self.names)
            replicas.append(broker)
        self.round += 1
        self.offset += 1
        return replicas

    def _shuffle(self) -> None:
        self.rng.shuffle(self.names)
        for name in sorted(self.racks, key=_rack_order):
            self.rng.shuffle(self.racks[name].fenced.brokers)
            self.rng.shuffle(self.racks[name].unfenced.brokers)


def _rack_order(name: str | None) -> tuple[bool, str]:
    """No rack first, then by name (Kafka's OptionalStringComparator)."""
    return (name is not None, name or "")


def place_replicas(brokers: Sequence[UsableBroker], num_partitions: int, replication_factor: int,
                   rng: random.Random) -> list[list[int]]:
    """The replicas of `num_partitions` new partitions, leader first; PlacementError."""
    racks = _Racks(rng, brokers)
    if replication_factor <= 0:
        raise PlacementError(f"Invalid replication factor {replication_factor}: the replication "
                             "factor must be positive.")
    if racks.unfenced == 0:
        raise PlacementError("All brokers are currently fenced.")
    if replication_factor > racks.total:
        raise PlacementError(f"The target replication factor of {replication_factor} cannot be "
                             f"reached because only {racks.total} broker(s) are registered.")
    return [racks.place(replication_factor) for _ in range(num_partitions)]
