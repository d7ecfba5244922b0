"""Replication: what a partition's leader and followers keep about each other.

Modules:
    partition_state   one partition on this broker as a pure state machine: the leader's
                      high-watermark, ISR expansion and shrink, AlterPartition pending
                      states and the min.insync.replicas verdicts (Kafka's Partition)
    isr_state         the committed / pending-expand / pending-shrink ISR states and the
                      AlterPartition request a leader sends
    follower_state    the leader's record of one follower: its LEO, log start, lag
                      bookkeeping (last_caught_up_time_ms) and ISR eligibility (Kafka's
                      Replica / ReplicaState)
    replica_fetcher   a follower's fetcher: one task per leader broker, Fetch v12 as a
                      replica, append, HW, truncation on a diverging epoch or an
                      out-of-range offset (Kafka's ReplicaFetcherThread)
    fetcher_manager   which fetcher each followed partition is in (ReplicaFetcherManager)
    alter_partition_manager
                      the leader's AlterPartition requests to the controller, one in
                      flight, and the ISR-shrink timer (AlterPartitionManager)
    delayed_produce   acks=-1 produces waiting for the HW (DelayedProduce)

The first three are pure: no I/O, no asyncio, no storage log. The broker
(pylog/partition.py) feeds them events and acts on the outcomes; the others run on the
broker's event loop.
"""
