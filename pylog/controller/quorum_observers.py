"""What a KRaft leader knows of the replicas that follow its log without voting (observers:
the brokers), for DescribeQuorum (pylog/controller/describe_quorum.py): per replica id, the
offset it last fetched from and when it fetched and was last caught up (Kafka's
`LeaderState.ReplicaState`).

A fetch counts when the log answers it (no error, no diverging epoch: the controller's
Fetch handler, pylog/controller/metadata_fetch.py, calls `fetched`); a negative replica id is
no replica (a consumer's, or an older follower's) and is not noted. The times follow Kafka's
`ReplicaState.updateFollowerState`: each fetch sets the fetch time; a fetch at or past the
leader's log end sets the caught-up time to now, and one that reached the end the leader had
at the replica's previous fetch sets it to that previous fetch's time.

An observer that has not fetched for five minutes (Kafka's `OBSERVER_SESSION_TIMEOUT_MS`) is
dropped when the observers are next listed. They are listed in the order of Kafka's `HashMap`
of them, keyed by (replica id, no directory id), whose hash is `Objects.hash(id,
Optional.empty())` = 961 + 31 * id; that map never shrinks, so its table is sized by the most
observers it held.

Owned by the controller; used on its event loop only.
"""

from __future__ import annotations

from protocol.java_order import grown_hash_map_order, int32

OBSERVER_SESSION_TIMEOUT_MS = 300_000


class ReplicaFetchState:
    """What the leader knows of one replica that fetches its log."""

    __slots__ = ("end_offset", "last_fetch_ms", "last_caught_up_ms", "leader_end_at_last_fetch")

    def __init__(self) -> None:
        self.end_offset = -1
        self.last_fetch_ms = -1
        self.last_caught_up_ms = -1
        self.leader_end_at_last_fetch = -1

    def fetched(self, fetch_offset: int, leader_end_offset: int, now_ms: int) -> None:
        if fetch_offset >= leader_end_offset:
            self.last_caught_up_ms = max(self.last_caught_up_ms, now_ms)
        elif self.leader_end_at_last_fetch > 0 and fetch_offset >= self.leader_end_at_last_fetch:
            self.last_caught_up_ms = max(self.last_caught_up_ms, self.last_fetch_ms)
        self.leader_end_at_last_fetch = leader_end_offset
        self.last_fetch_ms = max(self.last_fetch_ms, now_ms)
        self.end_offset = fetch_offset


class QuorumObservers:
    """The replicas other than the voters that fetch the log, by replica id."""

    def __init__(self) -> None:
        self._states: dict[int, ReplicaFetchState] = {}
        self._most = 0   # the most observers held: the size of Kafka's table

    def fetched(self, replica_id: int, fetch_offset: int, leader_end_offset: int, now_ms: int) -> None:
        """A fetch from `fetch_offset` that the log answered; a negative id is no replica."""
        if replica_id < 0:
            return
        state = self._states.get(replica_id)
        if state is None:
            state = self._states[replica_id] = ReplicaFetchState()
            self._most = max(self._most, len(self._states))
        state.fetched(fetch_offset, leader_end_offset, now_ms)

    def active(self, now_ms: int) -> list[tuple[int, ReplicaFetchState]]:
        """The observers that fetched within the session timeout (the others are dropped), in
        the order of Kafka's map."""
        for replica_id in [i for i, s in self._states.items() if now_ms - s.last_fetch_ms >= OBSERVER_SESSION_TIMEOUT_MS]:
            del self._states[replica_id]
        return [(replica_id, self._states[replica_id])
                for replica_id in grown_hash_map_order(self._states, replica_key_hash, self._most)]


def replica_key_hash(replica_id: int) -> int:
    """Kafka's `ReplicaKey.hashCode` of a replica with no directory id:
    `Objects.hash(id, Optional.empty())`."""
    return int32(961 + 31 * replica_id)
