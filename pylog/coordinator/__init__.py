"""The group coordinator: consumer groups (classic protocol) and their committed offsets.

    group.py        ClassicGroup: the pure state machine of one group (transition table,
                    members, generations, protocol vote, leader, static members); time
                    comes in as `now_ms`, answers go out as `Effects`
    coordinator.py  GroupCoordinator: every group of this broker on the asyncio loop;
                    parked JoinGroup/SyncGroup answers as futures, one timer per group
                    (injectable scheduler and clock), persistence through a `store`
    offsets.py      committed offsets in `__consumer_offsets`
    partitions.py   which `__consumer_offsets` partitions the coordinator serves (it leads
                    them: loading or loaded), at which leader epoch
    replication_wait.py  the wait of a write for the high watermark to pass it

The broker creates its coordinator on first use (`Broker.group_coordinator`), so a broker
that serves no group does not import this package's modules; the one name every broker
needs, the topic's name, is here.
"""

OFFSETS_TOPIC = "__consumer_offsets"
