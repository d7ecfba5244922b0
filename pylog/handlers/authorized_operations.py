"""The `*_authorized_operations` fields (KIP-430), as Kafka answers them without an authorizer.

A client may ask Metadata (v8+), DescribeCluster and DescribeGroups (v3+) which operations
it may perform on a topic, the cluster or a group; DescribeTopicPartitions always tells a
topic's. The answer is a 32-bit field with bit `code` set for each allowed operation
(Kafka's Utils.to32BitField). pylog has no authorizer, and Kafka without one allows every
operation its ACLs support on that kind of resource (AclEntry.supportedOperations):

    topic    READ 3, WRITE 4, CREATE 5, DELETE 6, ALTER 7, DESCRIBE 8, DESCRIBE_CONFIGS 10,
             ALTER_CONFIGS 11
    group    READ 3, DELETE 6, DESCRIBE 8, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11
    cluster  CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10,
             ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12

A field not asked for keeps its default, -2147483648 (Kafka's AUTHORIZED_OPERATIONS_OMITTED).
"""

from __future__ import annotations

OMITTED = -2147483648


def _bits(*codes: int) -> int:
    field = 0
    for code in codes:
        field |= 1 << code
    return field


TOPIC = _bits(3, 4, 5, 6, 7, 8, 10, 11)
GROUP = _bits(3, 6, 8, 10, 11)
CLUSTER = _bits(5, 7, 8, 9, 10, 11, 12)
