"""The admin requests a broker forwards to the controller, as Kafka's brokers do.

    CreateTopics (19)  DeleteTopics (20)  CreatePartitions (37)  ElectLeaders (43)
    AlterPartitionReassignments (45)  ListPartitionReassignments (46)
    AlterConfigs (33)  IncrementalAlterConfigs (44)   (pylog/handlers/configs.py)
    DescribeQuorum (55)  UnregisterBroker (64)

The controller checks each request against its metadata image and answers it; what it
commits reaches this broker through the metadata log (pylog/metadata_publisher.py). The
rules, error codes and messages are the controller's (pylog/controller/). The broker
answers once its own metadata has caught up with the commit (`Broker.forward`), so a
client that created a topic finds it in the next Metadata request to this broker.
A controller out of reach: the request fails whole with REQUEST_TIMED_OUT, in the shape of
Kafka's `getErrorResponse` (pylog/controller/failed_answers.py, which the controller's rules
use too when a request's deadline has passed).
"""

from __future__ import annotations

from functools import partial

from pylog.controller import failed_answers
from pylog.handlers.forwarding import forwarding_handler

# The factories `pylog/handlers/__init__.py` names: each request goes to the controller,
# and its failure answer is used when the controller cannot be reached.
make_create_topics_handler = partial(forwarding_handler, failed=failed_answers.create_topics_failed)
make_delete_topics_handler = partial(forwarding_handler, failed=failed_answers.delete_topics_failed)
make_create_partitions_handler = partial(forwarding_handler, failed=failed_answers.create_partitions_failed)
make_elect_leaders_handler = partial(forwarding_handler, failed=failed_answers.elect_leaders_failed)
make_alter_reassignments_handler = partial(forwarding_handler, failed=failed_answers.alter_reassignments_failed)
make_list_reassignments_handler = partial(forwarding_handler, failed=failed_answers.list_reassignments_failed)
make_describe_quorum_handler = partial(forwarding_handler, failed=failed_answers.describe_quorum_failed)
make_unregister_broker_handler = partial(forwarding_handler, failed=failed_answers.unregister_broker_failed)
