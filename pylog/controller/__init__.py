"""The KRaft controller: the rules that turn requests into `__cluster_metadata` records."""
