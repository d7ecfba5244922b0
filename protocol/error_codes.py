"""Kafka's error codes: the int16 `error_code` fields of every response.

One `ErrorCode` member per code that Apache Kafka 3.9 defines, named exactly as in Kafka's
`org.apache.kafka.common.protocol.Errors`, so that logs, tests and Kafka's documentation all
use the same words. The codes are the wire contract; the names are Kafka's and may be read
by people, never by clients.

    member.value       the int16 on the wire (an IntEnum, so it packs and compares as an int)
    member.retriable   True when Kafka's exception class for the code extends
                       `RetriableException`: a client may retry the same request (often after
                       refreshing metadata or finding the coordinator again) and expect it
                       to succeed. False for everything else, including NONE.
    member.message     a one-line explanation in pylog's words

`ErrorCode.from_code(n)` turns any int16 into a member. A code missing from the table
becomes UNKNOWN_SERVER_ERROR, which is what Kafka's own clients do with a code newer than
they know (`Errors.forCode`).

Scope: -1 and 0..127 with no gaps, the table as of Kafka 3.9.0. Later releases add codes
from 128 on (INVALID_REGULAR_EXPRESSION, REBOOTSTRAP_REQUIRED, ...); pylog speaks the 3.9
protocol and does not send them. Two historical renames keep their codes: 6 was
NOT_LEADER_FOR_PARTITION before Kafka 2.6 and -1 was UNKNOWN before Kafka 2.0; pylog
uses the current names only.

NONE is 0, so an `ErrorCode` is falsy exactly when there is no error: `if code: ...`.
"""

from __future__ import annotations

import enum


@enum.unique
class ErrorCode(enum.IntEnum):
    """A Kafka error code with its retriable flag and a short message."""

    retriable: bool
    message: str

    def __new__(cls, code: int, retriable: bool, message: str) -> ErrorCode:
        member = int.__new__(cls, code)
        member._value_ = code
        member.retriable = retriable
        member.message = message
        return member

    @classmethod
    def from_code(cls, code: int) -> ErrorCode:
        """The member for `code`; UNKNOWN_SERVER_ERROR for a code not in the table."""
        member = cls._value2member_map_.get(code)
        return member if member is not None else cls.UNKNOWN_SERVER_ERROR  # type: ignore[return-value]

    # name = (code, retriable, message)

    UNKNOWN_SERVER_ERROR = (-1, False, "The broker failed with an unexpected error while handling the request.")
    NONE = (0, False, "No error.")
    OFFSET_OUT_OF_RANGE = (1, False, "The requested offset is outside the range of offsets the log holds.")
    CORRUPT_MESSAGE = (2, True, "A record batch failed its CRC or size checks, or is otherwise malformed (e.g. a null key on a compacted topic).")
    UNKNOWN_TOPIC_OR_PARTITION = (3, True, "This broker does not host the requested topic or partition.")
    INVALID_FETCH_SIZE = (4, False, "The fetch size in the request is not valid.")
    LEADER_NOT_AVAILABLE = (5, True, "The partition has no leader at the moment, typically during a leader election.")
    NOT_LEADER_OR_FOLLOWER = (6, True, "This broker is not the partition's leader (or, for requests any replica may serve, not one of its replicas).")
    REQUEST_TIMED_OUT = (7, True, "The request did not complete within its timeout.")
    BROKER_NOT_AVAILABLE = (8, False, "The broker is not available.")
    REPLICA_NOT_AVAILABLE = (9, True, "A replica of the requested partition is not available.")
    MESSAGE_TOO_LARGE = (10, False, "A record batch is larger than the broker or topic accepts.")
    STALE_CONTROLLER_EPOCH = (11, False, "The request came from a controller whose epoch is out of date.")
    OFFSET_METADATA_TOO_LARGE = (12, False, "The metadata string of an offset commit is too long.")
    NETWORK_EXCEPTION = (13, True, "The connection was lost before a response arrived.")
    COORDINATOR_LOAD_IN_PROGRESS = (14, True, "The coordinator is still loading its state and cannot serve requests yet.")
    COORDINATOR_NOT_AVAILABLE = (15, True, "The coordinator is not available.")
    NOT_COORDINATOR = (16, True, "This broker is not the coordinator for the group or transactional id.")
    INVALID_TOPIC_EXCEPTION = (17, False, "The topic name is invalid, or the operation is not allowed on this topic.")
    RECORD_LIST_TOO_LARGE = (18, False, "The records of a produce request are larger than the log segment size.")
    NOT_ENOUGH_REPLICAS = (19, True, "The write was refused: fewer replicas are in sync than min.insync.replicas.")
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = (20, True, "The records were written, but reached fewer in-sync replicas than required.")
    INVALID_REQUIRED_ACKS = (21, False, "The produce request's acks is not -1, 0 or 1.")
    ILLEGAL_GENERATION = (22, False, "The group generation id in the request is not the current one.")
    INCONSISTENT_GROUP_PROTOCOL = (23, False, "The member's protocol type or protocols do not match the group's, or are empty.")
    INVALID_GROUP_ID = (24, False, "The group id is empty or otherwise invalid.")
    UNKNOWN_MEMBER_ID = (25, False, "The coordinator does not know this member id.")
    INVALID_SESSION_TIMEOUT = (26, False, "The session timeout is outside group.min.session.timeout.ms .. group.max.session.timeout.ms.")
    REBALANCE_IN_PROGRESS = (27, False, "The group is rebalancing; the member has to rejoin.")
    INVALID_COMMIT_OFFSET_SIZE = (28, False, "The offset commit data has an invalid size.")
    TOPIC_AUTHORIZATION_FAILED = (29, False, "The principal is not authorized for this topic.")
    GROUP_AUTHORIZATION_FAILED = (30, False, "The principal is not authorized for this group.")
    CLUSTER_AUTHORIZATION_FAILED = (31, False, "The principal is not authorized for this cluster operation.")
    INVALID_TIMESTAMP = (32, False, "A record timestamp is outside the accepted range.")
    UNSUPPORTED_SASL_MECHANISM = (33, False, "The broker does not offer the requested SASL mechanism.")
    ILLEGAL_SASL_STATE = (34, False, "The request is not allowed at this point of the SASL exchange.")
    UNSUPPORTED_VERSION = (35, False, "The broker does not support this version of the API.")
    TOPIC_ALREADY_EXISTS = (36, False, "A topic with this name already exists.")
    INVALID_PARTITIONS = (37, False, "The number of partitions is invalid.")
    INVALID_REPLICATION_FACTOR = (38, False, "The replication factor is below 1 or above the number of available brokers.")
    INVALID_REPLICA_ASSIGNMENT = (39, False, "The explicit replica assignment is invalid.")
    INVALID_CONFIG = (40, False, "A configuration entry is invalid.")
    NOT_CONTROLLER = (41, True, "This broker is not the active controller.")
    INVALID_REQUEST = (42, False, "The request is malformed or not valid for this broker; the broker log says why.")
    UNSUPPORTED_FOR_MESSAGE_FORMAT = (43, False, "The request needs a newer message format than the topic uses.")
    POLICY_VIOLATION = (44, False, "The request breaks a policy configured on the broker.")
    OUT_OF_ORDER_SEQUENCE_NUMBER = (45, False, "A producer sequence number is not the one the broker expected next.")
    DUPLICATE_SEQUENCE_NUMBER = (46, False, "The broker already holds a batch with this producer sequence number.")
    INVALID_PRODUCER_EPOCH = (47, False, "The producer epoch is older than the current one.")
    INVALID_TXN_STATE = (48, False, "The transactional operation is not valid in the transaction's current state.")
    INVALID_PRODUCER_ID_MAPPING = (49, False, "The producer id is not the one assigned to this transactional id.")
    INVALID_TRANSACTION_TIMEOUT = (50, False, "The transaction timeout is above transaction.max.timeout.ms.")
    CONCURRENT_TRANSACTIONS = (51, True, "Another operation on the same transaction is still in progress.")
    TRANSACTION_COORDINATOR_FENCED = (52, False, "The transaction coordinator that sent this marker is no longer the producer's coordinator.")
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = (53, False, "The principal is not authorized for this transactional id.")
    SECURITY_DISABLED = (54, False, "Security features are not enabled on this broker.")
    OPERATION_NOT_ATTEMPTED = (55, False, "The broker skipped this operation because another one in the same request failed.")
    KAFKA_STORAGE_ERROR = (56, True, "The broker hit a disk error while accessing the log.")
    LOG_DIR_NOT_FOUND = (57, False, "The log directory named in the request is not configured on the broker.")
    SASL_AUTHENTICATION_FAILED = (58, False, "SASL authentication failed.")
    UNKNOWN_PRODUCER_ID = (59, False, "The broker has no state for this producer id, e.g. because retention removed all its records.")
    REASSIGNMENT_IN_PROGRESS = (60, False, "A partition reassignment is in progress.")
    DELEGATION_TOKEN_AUTH_DISABLED = (61, False, "Delegation tokens are not enabled.")
    DELEGATION_TOKEN_NOT_FOUND = (62, False, "The delegation token does not exist on the broker.")
    DELEGATION_TOKEN_OWNER_MISMATCH = (63, False, "The principal is neither the owner nor a renewer of the token.")
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = (64, False, "Delegation token requests are not allowed on plaintext, 1-way SSL or token-authenticated connections.")
    DELEGATION_TOKEN_AUTHORIZATION_FAILED = (65, False, "The principal is not authorized for this delegation token operation.")
    DELEGATION_TOKEN_EXPIRED = (66, False, "The delegation token has expired.")
    INVALID_PRINCIPAL_TYPE = (67, False, "The principal type is not supported.")
    NON_EMPTY_GROUP = (68, False, "The group still has members.")
    GROUP_ID_NOT_FOUND = (69, False, "No group with this id exists.")
    FETCH_SESSION_ID_NOT_FOUND = (70, True, "The broker has no fetch session with this id.")
    INVALID_FETCH_SESSION_EPOCH = (71, True, "The fetch session epoch is not the one the broker expected.")
    LISTENER_NOT_FOUND = (72, True, "The partition leader has no listener matching the one this request arrived on.")
    TOPIC_DELETION_DISABLED = (73, False, "Topic deletion is disabled.")
    FENCED_LEADER_EPOCH = (74, True, "The leader epoch in the request is older than the broker's.")
    UNKNOWN_LEADER_EPOCH = (75, True, "The leader epoch in the request is newer than the broker's.")
    UNSUPPORTED_COMPRESSION_TYPE = (76, False, "The request version cannot carry the compression type the partition uses.")
    STALE_BROKER_EPOCH = (77, False, "The broker epoch in the request is out of date.")
    OFFSET_NOT_AVAILABLE = (78, True, "The new leader's high watermark has not caught up yet, so the offset cannot be served.")
    MEMBER_ID_REQUIRED = (79, False, "The member has to join again with the member id the coordinator just assigned it.")
    PREFERRED_LEADER_NOT_AVAILABLE = (80, True, "The preferred leader is not available.")
    GROUP_MAX_SIZE_REACHED = (81, False, "The group already has group.max.size members.")
    FENCED_INSTANCE_ID = (82, False, "Another member with the same group.instance.id has taken this member's place.")
    ELIGIBLE_LEADERS_NOT_AVAILABLE = (83, True, "No replica eligible to lead the partition is available.")
    ELECTION_NOT_NEEDED = (84, True, "The partition already has the leader the election would choose.")
    NO_REASSIGNMENT_IN_PROGRESS = (85, False, "There is no partition reassignment in progress.")
    GROUP_SUBSCRIBED_TO_TOPIC = (86, False, "A topic's offsets cannot be deleted while the group subscribes to it.")
    INVALID_RECORD = (87, False, "The broker rejected a record that failed its validation.")
    UNSTABLE_OFFSET_COMMIT = (88, True, "Offsets are pending in an open transaction and must settle first.")
    THROTTLING_QUOTA_EXCEEDED = (89, True, "The request exceeded a throttling quota.")
    PRODUCER_FENCED = (90, False, "A newer producer with the same transactional id has fenced this one.")
    RESOURCE_NOT_FOUND = (91, False, "The request refers to a resource that does not exist.")
    DUPLICATE_RESOURCE = (92, False, "The request names the same resource twice.")
    UNACCEPTABLE_CREDENTIAL = (93, False, "The credential does not meet the broker's acceptance criteria.")
    INCONSISTENT_VOTER_SET = (94, False, "The sender or receiver of a voter-only request is not among the expected voters.")
    INVALID_UPDATE_VERSION = (95, False, "The update version is invalid.")
    FEATURE_UPDATE_FAILED = (96, False, "The finalized features could not be updated because of an unexpected error.")
    PRINCIPAL_DESERIALIZATION_FAILURE = (97, False, "The principal of a forwarded request could not be deserialized.")
    SNAPSHOT_NOT_FOUND = (98, False, "The requested snapshot does not exist.")
    POSITION_OUT_OF_RANGE = (99, False, "The requested position is negative or beyond the end of the snapshot.")
    UNKNOWN_TOPIC_ID = (100, True, "This broker does not host a topic with this topic id.")
    DUPLICATE_BROKER_REGISTRATION = (101, False, "This broker id is already registered.")
    BROKER_ID_NOT_REGISTERED = (102, False, "No broker is registered with this id.")
    INCONSISTENT_TOPIC_ID = (103, True, "The topic id in the request does not match the topic id of the log.")
    INCONSISTENT_CLUSTER_ID = (104, False, "The cluster id in the request does not match this cluster's.")
    TRANSACTIONAL_ID_NOT_FOUND = (105, False, "No transactional id with this name exists.")
    FETCH_SESSION_TOPIC_ID_ERROR = (106, True, "The fetch session uses topic ids inconsistently.")
    INELIGIBLE_REPLICA = (107, False, "The proposed ISR contains a replica that is not eligible to join it.")
    NEW_LEADER_ELECTED = (108, False, "The partition state was updated, but the partition has a new leader since.")
    OFFSET_MOVED_TO_TIERED_STORAGE = (109, False, "The requested offset is only available from tiered storage.")
    FENCED_MEMBER_EPOCH = (110, False, "The member epoch is fenced; the member must give up its partitions and rejoin.")
    UNRELEASED_INSTANCE_ID = (111, False, "Another member still holds this instance id and has to leave first.")
    UNSUPPORTED_ASSIGNOR = (112, False, "The group does not support this assignor or this version of it.")
    STALE_MEMBER_EPOCH = (113, False, "The member epoch is stale; retry once a heartbeat has returned the current one.")
    MISMATCHED_ENDPOINT_TYPE = (114, False, "The request reached the wrong kind of endpoint (broker or controller).")
    UNSUPPORTED_ENDPOINT_TYPE = (115, False, "This endpoint type is not supported yet.")
    UNKNOWN_CONTROLLER_ID = (116, False, "No controller with this id is known.")
    UNKNOWN_SUBSCRIPTION_ID = (117, False, "The client telemetry subscription id is unknown or outdated.")
    TELEMETRY_TOO_LARGE = (118, False, "The pushed client telemetry is larger than the broker accepts.")
    INVALID_REGISTRATION = (119, False, "The controller considers the broker's registration invalid.")
    TRANSACTION_ABORTABLE = (120, False, "The transaction hit an error; abort it to go on using the transactional id.")
    INVALID_RECORD_STATE = (121, False, "The record's delivery state does not allow this acknowledgement.")
    SHARE_SESSION_NOT_FOUND = (122, True, "The broker has no share session with this id.")
    INVALID_SHARE_SESSION_EPOCH = (123, True, "The share session epoch is not the one the broker expected.")
    FENCED_STATE_EPOCH = (124, False, "The share-group state epoch in the request does not match the share coordinator's.")
    INVALID_VOTER_KEY = (125, False, "The voter key does not match the receiving replica's key.")
    DUPLICATE_VOTER = (126, False, "The voter is already in the set of voters.")
    VOTER_NOT_FOUND = (127, False, "The voter is not in the set of voters.")
