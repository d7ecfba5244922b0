"""The KRaft controller: a quorum of one keeping `__cluster_metadata`.

    quorum_controller   the controller: requests in, records committed to the log, image
    metadata_log        the log on disk (`__cluster_metadata-0`), its Raft epochs
    bootstrap           what a first start writes; the start sequence
    json_conversion     an older pylog data directory's topics, converted to records
    metadata_fetch      how brokers follow the log (Fetch of `__cluster_metadata`)
    apis                which rule answers each controller request

The rules, each a pure function over `pylog.metadata_image.MetadataImage` returning a
`ControllerResult` (results.py): `cluster_control` and `broker_heartbeats` (brokers),
`replication_control`, `replica_placement`, `partition_change`, `leadership`,
`alter_partition`, `reassignment` (topics and partitions), `configuration_control`,
`producer_id_control`.
"""
