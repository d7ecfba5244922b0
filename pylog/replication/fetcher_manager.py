"""Which leader each followed partition is fetched from (Kafka's ReplicaFetcherManager).

One `ReplicaFetcher` per leader broker (`num.replica.fetchers` = 1), created when the
first partition that broker leads is added, and kept (idle) when its last one goes.

    add_partition(partition, leader_id, host, port, restart)
                                                       follow: fetch from the partition's LEO
                                                       at the leader's address (again, after
                                                       a new leader epoch)
    remove_partition(key)                              stop fetching it (leader here, no
                                                       replica any more, no leader known)
    stop()                                             every fetcher stops (broker shutdown)

A partition is in at most one fetcher. Moving the leader to a new address re-points that
fetcher's connection. The fetchers' settings are the broker's config when the first
fetcher is made, unless given (`config`); the fetcher code is imported then, so a broker
that follows nothing never loads it. Runs on the broker's event loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pylog.replication.replica_fetcher import FetcherConfig, ReplicaFetcher


class FetcherManager:
    def __init__(self, broker, config: FetcherConfig | None = None):
        self.broker = broker
        self.config = config   # None: from the broker's config, at the first fetcher
        self.fetchers: dict[int, ReplicaFetcher] = {}
        self._leader_of: dict[tuple[str, int], int] = {}

    def add_partition(self, partition, leader_id: int, host: str, port: int, restart: bool = True) -> None:
        """Fetch `partition` from `leader_id` at host:port. A partition already fetched
        from that leader carries on as it is unless `restart` (a new leader epoch: any
        backoff is dropped and an answer in flight is ignored)."""
        key = partition.key
        if self._leader_of.get(key) != leader_id:
            self.remove_partition(key)
        fetcher = self.fetchers.get(leader_id)
        if fetcher is None:
            from pylog.replication.replica_fetcher import FetcherConfig, ReplicaFetcher
            if self.config is None:
                self.config = FetcherConfig.from_broker_config(self.broker.config)
            fetcher = self.fetchers[leader_id] = ReplicaFetcher(self.broker, leader_id, host, port, self.config)
        else:
            fetcher.retarget(host, port)
        if restart or key not in fetcher.targets:
            fetcher.add(partition)
        self._leader_of[key] = leader_id

    def remove_partition(self, key) -> None:
        leader_id = self._leader_of.pop(key, None)
        if leader_id is not None:
            self.fetchers[leader_id].remove(key)

    def leader_of(self, key) -> int | None:
        return self._leader_of.get(key)

    async def stop(self) -> None:
        fetchers, self.fetchers = self.fetchers, {}
        self._leader_of.clear()
        for fetcher in fetchers.values():
            await fetcher.stop()
