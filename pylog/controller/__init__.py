"""The KRaft controller: the rules that turn requests into metadata records
(`cluster_control`, `broker_heartbeats`, `partition_change`, `leadership`, ...), each a
pure function over `pylog.metadata_image.MetadataImage` returning a `ControllerResult`."""
