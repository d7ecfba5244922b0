"""The error-code table: Kafka 3.9's codes, names and retriable flags.

Cross-checked against kafka-python's `kafka.errors`, an independent transcription of the
same table. Where the two differ, the difference is listed here with the reason; the
facts were settled against Kafka's own source (`Errors.java` and the exception classes
in `org.apache.kafka.common.errors`).
"""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():  # kafka-python's import warns about importlib.resources
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka.errors  # kafka-python: a required test dependency, so never skipped

from protocol.error_codes import ErrorCode

# ---------------------------------------------------------------------------------------
# The table itself


def test_codes_are_unique():
    # @enum.unique already refuses aliases at import; check the outcome too.
    assert len(ErrorCode.__members__) == len(list(ErrorCode))
    assert len({int(e) for e in ErrorCode}) == len(list(ErrorCode))


def test_codes_cover_kafka_3_9_without_gaps():
    assert sorted(int(e) for e in ErrorCode) == list(range(-1, 128))


def test_every_member_has_a_flag_and_a_message():
    for e in ErrorCode:
        assert type(e.retriable) is bool, e.name
        assert isinstance(e.message, str) and e.message.strip(), e.name
        assert e.name.isupper() and " " not in e.name


def test_codes_fit_an_int16():
    assert all(-(2**15) <= e <= 2**15 - 1 for e in ErrorCode)


@pytest.mark.parametrize(
    "name, code, retriable",
    [
        ("UNKNOWN_SERVER_ERROR", -1, False),
        ("NONE", 0, False),
        ("OFFSET_OUT_OF_RANGE", 1, False),
        ("CORRUPT_MESSAGE", 2, True),
        ("UNKNOWN_TOPIC_OR_PARTITION", 3, True),
        ("LEADER_NOT_AVAILABLE", 5, True),
        ("NOT_LEADER_OR_FOLLOWER", 6, True),
        ("REQUEST_TIMED_OUT", 7, True),
        ("MESSAGE_TOO_LARGE", 10, False),
        ("COORDINATOR_LOAD_IN_PROGRESS", 14, True),
        ("COORDINATOR_NOT_AVAILABLE", 15, True),
        ("NOT_COORDINATOR", 16, True),
        ("INVALID_TOPIC_EXCEPTION", 17, False),
        ("NOT_ENOUGH_REPLICAS", 19, True),
        ("ILLEGAL_GENERATION", 22, False),
        ("UNKNOWN_MEMBER_ID", 25, False),
        ("REBALANCE_IN_PROGRESS", 27, False),
        ("UNSUPPORTED_VERSION", 35, False),
        ("TOPIC_ALREADY_EXISTS", 36, False),
        ("INVALID_REPLICA_ASSIGNMENT", 39, False),
        ("NOT_CONTROLLER", 41, True),
        ("INVALID_REQUEST", 42, False),
        ("OUT_OF_ORDER_SEQUENCE_NUMBER", 45, False),
        ("DUPLICATE_SEQUENCE_NUMBER", 46, False),
        ("INVALID_PRODUCER_EPOCH", 47, False),
        ("CONCURRENT_TRANSACTIONS", 51, True),
        ("KAFKA_STORAGE_ERROR", 56, True),
        ("UNKNOWN_PRODUCER_ID", 59, False),
        ("FENCED_LEADER_EPOCH", 74, True),
        ("UNKNOWN_LEADER_EPOCH", 75, True),
        ("MEMBER_ID_REQUIRED", 79, False),
        ("FENCED_INSTANCE_ID", 82, False),
        ("UNSTABLE_OFFSET_COMMIT", 88, True),
        ("THROTTLING_QUOTA_EXCEEDED", 89, True),
        ("PRODUCER_FENCED", 90, False),
        ("UNKNOWN_TOPIC_ID", 100, True),
        ("TRANSACTION_ABORTABLE", 120, False),
        ("SHARE_SESSION_NOT_FOUND", 122, True),
        ("VOTER_NOT_FOUND", 127, False),
    ],
)
def test_well_known_codes(name, code, retriable):
    e = ErrorCode[name]
    assert e == code
    assert ErrorCode(code) is e
    assert e.retriable is retriable


def test_from_code():
    assert ErrorCode.from_code(0) is ErrorCode.NONE
    assert ErrorCode.from_code(6) is ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert ErrorCode.from_code(-1) is ErrorCode.UNKNOWN_SERVER_ERROR
    # Codes Kafka added after 3.9, and nonsense, become UNKNOWN_SERVER_ERROR (as in Kafka's clients).
    for unknown in (128, 129, 1000, 32767, -2, -32768):
        assert ErrorCode.from_code(unknown) is ErrorCode.UNKNOWN_SERVER_ERROR


def test_behaves_as_an_int_and_none_is_falsy():
    assert not ErrorCode.NONE
    assert all(e for e in ErrorCode if e is not ErrorCode.NONE)
    assert ErrorCode.TOPIC_ALREADY_EXISTS + 0 == 36
    assert f"{ErrorCode.UNSUPPORTED_VERSION:d}" == "35"


# ---------------------------------------------------------------------------------------
# Cross-check with kafka-python

# kafka-python spells these codes differently. Ours are the names in Kafka 3.9's Errors.java.
KAFKA_PYTHON_NAMES = {
    -1: "UNKNOWN",  # Kafka renamed it UNKNOWN_SERVER_ERROR in 2.0
    0: "NO_ERROR",  # Kafka: NONE
    6: "NOT_LEADER_FOR_PARTITION",  # Kafka renamed it NOT_LEADER_OR_FOLLOWER in 2.6 (KIP-392)
    10: "MESSAGE_SIZE_TOO_LARGE",  # Kafka: MESSAGE_TOO_LARGE
    17: "INVALID_TOPIC",  # Kafka: INVALID_TOPIC_EXCEPTION
    39: "INVALID_REPLICATION_ASSIGNMENT",  # Kafka: INVALID_REPLICA_ASSIGNMENT
}

# kafka-python's `retriable` differs from Kafka for these codes. Kafka's flag is the one
# its generated protocol docs print: the exception class extends RetriableException.
KAFKA_PYTHON_RETRIABLE_DIFFERS = {
    # CorruptRecordException extends RetriableException in Kafka (a corrupt batch may be a
    # transient network or disk error, so the producer resends); kafka-python's
    # CorruptRecordError is not marked retriable.
    2: (True, False),  # code: (Kafka, kafka-python)
}


def kafka_python_table() -> dict[int, type]:
    """code -> kafka-python's BrokerResponseError subclass for it."""
    table = {code: cls for code, cls in kafka.errors.kafka_errors.items() if code is not None}
    assert len(table) > 100  # the lookup really found kafka-python's table
    return table


def test_kafka_python_knows_the_same_codes():
    theirs = kafka_python_table()
    ours = {int(e) for e in ErrorCode}
    assert ours - set(theirs) == set(), "codes kafka-python lacks"
    # A newer kafka-python may know codes added after Kafka 3.9 (128+); nothing else.
    assert all(code > 127 for code in set(theirs) - ours)


def test_names_match_kafka_python_except_the_listed_renames():
    theirs = kafka_python_table()
    differences = {
        code: cls.message
        for code, cls in theirs.items()
        if code in ErrorCode._value2member_map_ and cls.message != ErrorCode(code).name
    }
    assert differences == KAFKA_PYTHON_NAMES


def test_retriable_flags_match_kafka_python_except_the_listed_ones():
    theirs = kafka_python_table()
    differences = {
        code: (ErrorCode(code).retriable, bool(cls.retriable))
        for code, cls in theirs.items()
        if code in ErrorCode._value2member_map_ and bool(cls.retriable) != ErrorCode(code).retriable
    }
    assert differences == KAFKA_PYTHON_RETRIABLE_DIFFERS
