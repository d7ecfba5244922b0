"""Request handlers: one module per API family, thin adapters from messages to the broker.

`SERVED` is the table of what a broker answers besides ApiVersions (whose versions are
`api_versions.SERVED_VERSIONS`): each API key, the versions advertised for it, and
where its handler is made. A factory takes the broker and
returns the handler coroutine function (`pylog/dispatch.py`, `Handler`).

The table names modules rather than importing them: `Broker` registers each entry as
`dispatch.OnFirstRequest`, so a handler's module (and the message classes it uses) is
imported when the first request for that API arrives. A starting broker imports only
ApiVersions' handler, which it builds itself, and the versions are known without
importing anything. The versions are Kafka 4.1.1's, plus the older ones Kafka 4 dropped
(README, "Which Kafka pylog presents").
"""

# (API key, lowest version, highest version, module in pylog.handlers, factory)
SERVED: tuple[tuple[int, int, int, str, str], ...] = (
    (0, 3, 13, "produce", "make_handler"),                                  # Produce
    (1, 4, 18, "fetch", "make_handler"),                                    # Fetch
    (2, 0, 10, "list_offsets", "make_handler"),                             # ListOffsets
    (3, 0, 13, "metadata", "make_handler"),                                 # Metadata
    (8, 0, 9, "offsets", "make_offset_commit_handler"),                     # OffsetCommit
    (9, 0, 9, "offsets", "make_offset_fetch_handler"),                      # OffsetFetch
    (10, 0, 6, "find_coordinator", "make_handler"),                         # FindCoordinator
    (11, 0, 9, "groups", "make_join_group_handler"),                        # JoinGroup
    (12, 0, 4, "groups", "make_heartbeat_handler"),                         # Heartbeat
    (13, 0, 5, "groups", "make_leave_group_handler"),                       # LeaveGroup
    (14, 0, 5, "groups", "make_sync_group_handler"),                        # SyncGroup
    (15, 0, 6, "groups", "make_describe_groups_handler"),                   # DescribeGroups
    (16, 0, 5, "groups", "make_list_groups_handler"),                       # ListGroups
    (17, 0, 1, "plaintext_security", "make_sasl_handshake_handler"),        # SaslHandshake
    (19, 0, 7, "topics", "make_create_topics_handler"),                     # CreateTopics
    (20, 0, 6, "topics", "make_delete_topics_handler"),                     # DeleteTopics
    (21, 0, 2, "delete_records", "make_handler"),                           # DeleteRecords
    (22, 0, 5, "init_producer_id", "make_handler"),                         # InitProducerId
    (23, 0, 4, "offset_for_leader_epoch", "make_handler"),                  # OffsetForLeaderEpoch
    (29, 0, 3, "acls", "make_describe_acls_handler"),                       # DescribeAcls
    (30, 0, 3, "acls", "make_create_acls_handler"),                         # CreateAcls
    (31, 0, 3, "acls", "make_delete_acls_handler"),                         # DeleteAcls
    (32, 0, 4, "configs", "make_describe_configs_handler"),                 # DescribeConfigs
    (33, 0, 2, "configs", "make_alter_configs_handler"),                    # AlterConfigs
    (35, 1, 4, "log_dirs", "make_handler"),                                 # DescribeLogDirs
    (36, 0, 2, "plaintext_security", "make_sasl_authenticate_handler"),     # SaslAuthenticate
    (37, 0, 3, "topics", "make_create_partitions_handler"),                 # CreatePartitions
    (38, 0, 3, "plaintext_security", "make_create_token_handler"),          # CreateDelegationToken
    (39, 0, 2, "plaintext_security", "make_renew_token_handler"),           # RenewDelegationToken
    (40, 0, 2, "plaintext_security", "make_expire_token_handler"),          # ExpireDelegationToken
    (41, 0, 3, "plaintext_security", "make_describe_tokens_handler"),       # DescribeDelegationToken
    (42, 0, 2, "groups", "make_delete_groups_handler"),                     # DeleteGroups
    (43, 0, 2, "topics", "make_elect_leaders_handler"),                     # ElectLeaders
    (44, 0, 1, "configs", "make_incremental_alter_configs_handler"),        # IncrementalAlterConfigs
    (45, 0, 1, "topics", "make_alter_reassignments_handler"),               # AlterPartitionReassignments
    (46, 0, 0, "topics", "make_list_reassignments_handler"),                # ListPartitionReassignments
    (47, 0, 0, "offsets", "make_offset_delete_handler"),                    # OffsetDelete
    (48, 0, 1, "describe_client_quotas", "make_handler"),                   # DescribeClientQuotas
    (50, 0, 0, "scram", "make_describe_handler"),                           # DescribeUserScramCredentials
    (51, 0, 0, "scram", "make_alter_handler"),                              # AlterUserScramCredentials
    (55, 0, 2, "topics", "make_describe_quorum_handler"),                   # DescribeQuorum
    (60, 0, 2, "describe_cluster", "make_handler"),                         # DescribeCluster
    (61, 0, 0, "describe_producers", "make_handler"),                       # DescribeProducers
    (64, 0, 0, "topics", "make_unregister_broker_handler"),                 # UnregisterBroker
    (74, 0, 1, "list_config_resources", "make_handler"),                    # ListConfigResources
    (75, 0, 0, "describe_topic_partitions", "make_handler"),                # DescribeTopicPartitions
)
