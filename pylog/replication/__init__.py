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

Everything here is pure: no I/O, no asyncio, no storage log. The broker feeds events and
acts on the outcomes.
"""
