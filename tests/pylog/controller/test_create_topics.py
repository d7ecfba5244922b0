"""CreateTopics at the controller: the records it writes (replayed into the image), the
placement it uses, and Kafka's answers for every refusal."""

from __future__ import annotations

import random
import uuid
from collections import Counter

import pytest

from protocol.error_codes import ErrorCode
from protocol.messages import CreateTopicsRequest
from storage.config import LogConfig

from pylog.config import ConfigSource
from pylog.controller.configuration_control import TopicSettings
from pylog.controller.replica_placement import MIGRATING_DIRECTORY
from pylog.controller.replication_control import create_topics
from pylog.metadata_image import RECOVERED

from tests.pylog.controller.cluster_images import cluster, commit, record_names

Topic = CreateTopicsRequest.CreatableTopic
Assignment = CreateTopicsRequest.CreatableReplicaAssignment
Config = CreateTopicsRequest.CreatableTopicConfig
SETTINGS = TopicSettings()


def request(*topics, validate_only=False) -> CreateTopicsRequest:
    return CreateTopicsRequest(topics=list(topics), timeout_ms=1000, validate_only=validate_only)


def topic(name, partitions=1, replication_factor=1, configs=None, assignments=None) -> Topic:
    return Topic(name=name, num_partitions=partitions, replication_factor=replication_factor,
                 assignments=[Assignment(partition_index=i, broker_ids=b) for i, b in assignments or []],
                 configs=[Config(name=k, value=v) for k, v in (configs or {}).items()])


def answers(result) -> dict[str, tuple[int, str | None]]:
    return {t.name: (t.error_code, t.error_message) for t in result.response.topics}


def test_a_new_topic_is_a_topic_record_its_configs_and_one_partition_record_each():
    image = cluster(1, 2, 3)
    result = create_topics(image, request(topic("orders", 6, 3, {"retention.ms": "1000"})), SETTINGS,
                           random.Random(1))
    assert record_names(result) == ["TopicRecord", "ConfigRecord"] + ["PartitionRecord"] * 6
    [answer] = result.response.topics
    assert (answer.error_code, answer.error_message) == (ErrorCode.NONE, None)
    assert (answer.num_partitions, answer.replication_factor) == (6, 3)
    commit(image, result)
    created = image.topics_by_name["orders"]
    assert created.topic_id == answer.topic_id != uuid.UUID(int=0)
    assert image.topic_configs("orders") == {"retention.ms": "1000"}
    assert sorted(created.partitions) == list(range(6))
    for partition in created.partitions.values():
        assert sorted(partition.replicas) == [1, 2, 3]
        assert partition.isr == partition.replicas
        assert partition.leader == partition.replicas[0]
        assert (partition.leader_epoch, partition.partition_epoch) == (0, 0)
        assert partition.leader_recovery_state == RECOVERED
        assert partition.directories == (MIGRATING_DIRECTORY,) * 3
    assert Counter(p.leader for p in created.partitions.values()) == {1: 2, 2: 2, 3: 2}


def test_replicas_go_to_each_brokers_only_directory():
    dirs = {1: [uuid.UUID(int=0xD1)], 2: [uuid.UUID(int=0xD2)]}
    image = cluster(1, 2, log_dirs=dirs)
    commit(image, create_topics(image, request(topic("t", 1, 2)), SETTINGS, random.Random(0)))
    partition = image.topics_by_name["t"].partitions[0]
    assert partition.directories == tuple(dirs[b][0] for b in partition.replicas)


@pytest.mark.parametrize("metadata_version, record_version, with_directories", [
    (27, 2, True), (23, 2, True), (22, 1, True), (17, 1, True), (16, 0, False), (7, 0, False)])
def test_the_partition_record_version_follows_the_metadata_version(metadata_version, record_version,
                                                                   with_directories):
    image = cluster(1, log_dirs={1: [uuid.UUID(int=0xD1)]}, metadata_version=metadata_version)
    result = create_topics(image, request(topic("t")), SETTINGS, random.Random(0))
    [(record, version)] = [(r, v) for r, v in result.records if r.schema_name == "PartitionRecord"]
    assert version == record_version
    assert record.directories == ([uuid.UUID(int=0xD1)] if with_directories else [])
    commit(image, result)   # and it frames and replays at that version
    assert image.topics_by_name["t"].partitions[0].replicas == (1,)


def test_defaults_come_from_the_settings_when_minus_one():
    image = cluster(1, 2, 3)
    settings = TopicSettings(num_partitions=4, default_replication_factor=2)
    result = create_topics(image, request(topic("d", -1, -1)), settings, random.Random(2))
    [answer] = result.response.topics
    assert (answer.num_partitions, answer.replication_factor) == (4, 2)
    commit(image, result)
    assert [len(p.replicas) for p in image.topics_by_name["d"].partitions.values()] == [2] * 4


def test_more_replicas_than_usable_brokers_is_refused_with_kafkas_message():
    image = cluster(1, 2, 3, shutting_down=(3,))   # controlled shutdown: not usable
    result = create_topics(image, request(topic("wide", 1, 3), topic("fine", 1, 2)), SETTINGS,
                           random.Random(0))
    assert answers(result)["wide"] == (
        ErrorCode.INVALID_REPLICATION_FACTOR,
        "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be "
        "reached because only 2 broker(s) are registered.")
    assert answers(result)["fine"][0] == ErrorCode.NONE
    commit(image, result)
    assert set(image.topics_by_name) == {"fine"}
    assert all(3 not in p.replicas for p in image.topics_by_name["fine"].partitions.values())


def test_a_fenced_broker_may_be_a_follower_but_not_in_the_isr_nor_the_leader():
    image = cluster(1, 2, 3, fenced=(3,))
    commit(image, create_topics(image, request(topic("f", 4, 3)), SETTINGS, random.Random(4)))
    for partition in image.topics_by_name["f"].partitions.values():
        assert sorted(partition.replicas) == [1, 2, 3]
        assert 3 not in partition.isr and partition.leader in (1, 2)
        assert partition.isr == tuple(b for b in partition.replicas if b != 3)


def test_with_every_broker_fenced_nothing_can_be_placed():
    image = cluster(1, 2, fenced=(1, 2))
    result = create_topics(image, request(topic("x")), SETTINGS, random.Random(0))
    assert answers(result)["x"] == (ErrorCode.INVALID_REPLICATION_FACTOR,
                                    "Unable to replicate the partition 1 time(s): All brokers are "
                                    "currently fenced.")
    assert result.records == []
    empty = create_topics(cluster(), request(topic("x")), SETTINGS, random.Random(0))
    assert answers(empty)["x"][0] == ErrorCode.INVALID_REPLICATION_FACTOR


def test_manual_assignments_take_the_given_replicas_and_an_isr_of_the_active_ones():
    image = cluster(1, 2, 3, fenced=(2,))
    result = create_topics(image, request(topic("m", -1, -1, assignments=[(1, [3, 2]), (0, [2, 1])])),
                           SETTINGS, random.Random(0))
    assert answers(result)["m"] == (ErrorCode.NONE, None)
    commit(image, result)
    partitions = image.topics_by_name["m"].partitions
    assert (partitions[0].replicas, partitions[0].isr, partitions[0].leader) == ((2, 1), (1,), 1)
    assert (partitions[1].replicas, partitions[1].isr, partitions[1].leader) == ((3, 2), (3,), 3)
    fenced_only = create_topics(image, request(topic("n", -1, -1, assignments=[(0, [2])])), SETTINGS,
                                random.Random(0))
    assert answers(fenced_only)["n"] == (
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "All brokers specified in the manual partition assignment for partition 0 are fenced or in "
        "controlled shutdown.")


def test_every_refusal_in_one_request_with_kafkas_codes_and_messages():
    image = cluster(1, 2)
    commit(image, create_topics(image, request(topic("a.b")), SETTINGS, random.Random(0)))
    topics = [
        topic("dup"), topic("dup"),
        topic("a_b"), topic("a.b"), topic(""), topic("x" * 250), topic("bad/name"), topic("newline\n"),
        topic("rf0", 1, 0), topic("rf-2", 1, -2), topic("p0", 0, 1), topic("p-2", -2, 1),
        topic("nullcfg", configs={"retention.ms": None}),
        topic("badcfg", configs={"cleanup.policy": "sometimes"}),
        topic("unknowncfg", configs={"log.retention.ms": "1"}),
        topic("asg-rf", -1, 1, assignments=[(0, [1])]),
        topic("asg-np", 1, -1, assignments=[(0, [1])]),
        topic("asg-unregistered", -1, -1, assignments=[(0, [7])]),
        topic("asg-twice", -1, -1, assignments=[(0, [1, 1])]),
        topic("asg-empty", -1, -1, assignments=[(0, [])]),
        topic("asg-uneven", -1, -1, assignments=[(0, [1, 2]), (1, [1])]),
        topic("asg-gap", -1, -1, assignments=[(0, [1]), (2, [1])]),
        topic("asg-same-partition", -1, -1, assignments=[(0, [1]), (0, [2])]),
        topic("asg-ok", -1, -1, assignments=[(1, [2, 1]), (0, [1, 2])]),
        topic("__cluster_metadata"),
    ]
    result = create_topics(image, request(*topics), SETTINGS, random.Random(0))
    got = answers(result)
    assert len(result.response.topics) == len(topics) - 1
    names = [t.name for t in result.response.topics]
    assert names[-2:] == ["dup", "__cluster_metadata"]   # Kafka's ControllerApis appends them
    assert got == {
        "dup": (ErrorCode.INVALID_REQUEST, "Duplicate topic name."),
        "a_b": (ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic 'a_b' collides with existing topic: a.b"),
        "a.b": (ErrorCode.TOPIC_ALREADY_EXISTS, "Topic 'a.b' already exists."),
        "": (ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: the empty string is not allowed"),
        "x" * 250: (ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: the length of '" + "x" * 250
                    + "' is longer than the max allowed length 249"),
        "bad/name": (ErrorCode.INVALID_TOPIC_EXCEPTION,
                     "Topic name is invalid: 'bad/name' contains one or more characters other than ASCII "
                     "alphanumerics, '.', '_' and '-'"),
        "newline\n": (ErrorCode.INVALID_TOPIC_EXCEPTION,   # a pattern's "$" would let the last newline in
                      "Topic name is invalid: 'newline\n' contains one or more characters other than ASCII "
                      "alphanumerics, '.', '_' and '-'"),
        "rf0": (ErrorCode.INVALID_REPLICATION_FACTOR,
                "Replication factor must be larger than 0, or -1 to use the default value."),
        "rf-2": (ErrorCode.INVALID_REPLICATION_FACTOR,
                 "Replication factor must be larger than 0, or -1 to use the default value."),
        "p0": (ErrorCode.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value."),
        "p-2": (ErrorCode.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value."),
        "nullcfg": (ErrorCode.INVALID_CONFIG, "Null value not supported for topic configs: retention.ms"),
        "badcfg": (ErrorCode.INVALID_CONFIG, got["badcfg"][1]),
        "unknowncfg": (ErrorCode.INVALID_CONFIG, "Unknown topic config name: log.retention.ms"),
        "asg-rf": (ErrorCode.INVALID_REQUEST,
                   "A manual partition assignment was specified, but replication factor was not set to -1."),
        "asg-np": (ErrorCode.INVALID_REQUEST,
                   "A manual partition assignment was specified, but numPartitions was not set to -1."),
        "asg-unregistered": (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                             "The manual partition assignment includes broker 7, but no such broker is "
                             "registered."),
        "asg-twice": (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                      "The manual partition assignment includes the broker 1 more than once."),
        "asg-empty": (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                      "The manual partition assignment includes an empty replica list."),
        "asg-uneven": (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                       "The manual partition assignment includes a partition with 1 replica(s), but this is "
                       "not consistent with previous partitions, which have 2 replica(s)."),
        "asg-gap": (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                    "partitions should be a consecutive 0-based integer sequence"),
        "asg-same-partition": (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                               "Found multiple manual partition assignments for partition 0"),
        "asg-ok": (ErrorCode.NONE, None),
        "__cluster_metadata": (ErrorCode.INVALID_REQUEST,
                               "Creation of internal topic __cluster_metadata is prohibited."),
    }
    assert "cleanup.policy" in got["badcfg"][1] and "sometimes" in got["badcfg"][1]
    commit(image, result)
    assert set(image.topics_by_name) == {"a.b", "asg-ok"}
    ok = image.topics_by_name["asg-ok"].partitions
    assert (ok[0].replicas, ok[1].replicas) == ((1, 2), (2, 1))


def test_validate_only_checks_everything_and_writes_nothing():
    image = cluster(1)
    result = create_topics(image, request(topic("v", 2), topic("v2", 1, 2), validate_only=True), SETTINGS,
                           random.Random(0))
    assert result.records == []
    assert answers(result)["v"] == (ErrorCode.NONE, None)
    assert answers(result)["v2"][0] == ErrorCode.INVALID_REPLICATION_FACTOR
    [v] = [t for t in result.response.topics if t.name == "v"]
    assert v.topic_id != uuid.UUID(int=0) and v.num_partitions == 2 and v.configs


def test_results_carry_every_topic_config_with_its_source():
    defaults = LogConfig.from_properties({"retention.ms": "5000"})
    settings = TopicSettings(default_log_config=defaults, static_broker_configs=frozenset({"log.retention.ms"}))
    result = create_topics(cluster(1), request(topic("c", configs={"segment.bytes": "1048576"})), settings,
                           random.Random(0))
    [answer] = result.response.topics
    configs = {c.name: (c.value, c.config_source) for c in answer.configs}
    assert configs["segment.bytes"] == ("1048576", ConfigSource.TOPIC_CONFIG)
    assert configs["retention.ms"] == ("5000", ConfigSource.STATIC_BROKER_CONFIG)
    assert configs["cleanup.policy"] == ("delete", ConfigSource.DEFAULT_CONFIG)
    assert [c.name for c in answer.configs] == sorted(configs)
    assert not any(c.read_only or c.is_sensitive for c in answer.configs)


def test_too_many_partitions_in_one_request_fail_every_topic():
    result = create_topics(cluster(1), request(topic("small"), topic("huge", 10_000)), SETTINGS,
                           random.Random(0))
    assert answers(result) == {
        "small": (ErrorCode.POLICY_VIOLATION, "Excessively large number of partitions per request."),
        "huge": (ErrorCode.POLICY_VIOLATION, "Excessively large number of partitions per request.")}
    assert result.records == []
    defaults = TopicSettings(num_partitions=5_001)
    result = create_topics(cluster(1), request(topic("a", -1), topic("b", -1)), defaults, random.Random(0))
    assert {code for code, _ in answers(result).values()} == {ErrorCode.POLICY_VIOLATION}


def test_too_many_records_in_one_request_fail_every_topic():
    # 9,000 partitions pass the partition limit; their configs push the records past 10,000
    configs = {"retention.ms": "1", "segment.ms": "1000"}
    topics = [topic(f"t{i}", 9, 1, configs) for i in range(1000)]
    result = create_topics(cluster(1), request(*topics), SETTINGS, random.Random(0))
    assert {answers(result)[t.name] for t in topics} == {
        (ErrorCode.POLICY_VIOLATION, "Unable to perform excessively large batch operation.")}
    assert result.records == []


def test_a_min_insync_replicas_override_clears_the_topics_elr_when_elr_is_enabled():
    records = create_topics(cluster(1, features={"eligible.leader.replicas.version": 1}),
                            request(topic("e", configs={"min.insync.replicas": "1"})), SETTINGS,
                            random.Random(0)).records
    assert [r.schema_name for r, _ in records] == ["TopicRecord", "ConfigRecord", "ClearElrRecord",
                                                   "PartitionRecord"]
    assert records[2][0].topic_name == "e"
    without = create_topics(cluster(1), request(topic("e", configs={"min.insync.replicas": "1"})), SETTINGS,
                            random.Random(0)).records
    assert [r.schema_name for r, _ in without] == ["TopicRecord", "ConfigRecord", "PartitionRecord"]


def test_the_same_seed_gives_the_same_topic_ids_and_placement():
    def run(seed):
        result = create_topics(cluster(1, 2, 3), request(topic("a", 3, 2), topic("b", 3, 2)), SETTINGS,
                               random.Random(seed))
        return result.records
    assert run(9) == run(9)
    assert run(9) != run(10)
    ids = {t.topic_id for t in create_topics(cluster(1), request(*[topic(f"t{i}") for i in range(50)]),
                                             SETTINGS, random.Random(9)).response.topics}
    assert len(ids) == 50 and uuid.UUID(int=0) not in ids


def test_a_new_topic_never_takes_an_existing_topics_id():
    image = cluster(1)
    commit(image, create_topics(image, request(topic("a")), SETTINGS, random.Random(5)))
    result = create_topics(image, request(topic("b")), SETTINGS, random.Random(5))   # same seed again
    assert result.response.topics[0].topic_id != image.topics_by_name["a"].topic_id
    commit(image, result)
    assert set(image.topics_by_name) == {"a", "b"} and len(image.topics) == 2


def test_a_config_value_longer_than_a_config_record_takes_is_refused():
    result = create_topics(cluster(1), request(topic("long", configs={"compression.type": "x" * 32768})),
                           SETTINGS, random.Random(0))
    assert answers(result)["long"] == (ErrorCode.INVALID_CONFIG,
                                       "The configuration value cannot be added because it exceeds the maximum "
                                       "value size of 32767 bytes.")
    assert result.records == []


def test_several_names_given_twice_come_last_in_the_order_of_kafkas_hash_set():
    """Found in the order s, c, b; Java 17's HashSet of them iterates b, s, c ("b".hashCode()
    is 98, bucket 2 of 16; "s" 115 and "c" 99 share bucket 3, in the order they were added)."""
    image = cluster(1)
    result = create_topics(image, request(topic("c"), topic("s"), topic("ok"), topic("b"), topic("s"),
                                          topic("c"), topic("b")), SETTINGS, random.Random(0))
    assert [(t.name, t.error_code) for t in result.response.topics] == [
        ("ok", ErrorCode.NONE), ("b", ErrorCode.INVALID_REQUEST), ("s", ErrorCode.INVALID_REQUEST),
        ("c", ErrorCode.INVALID_REQUEST)]


def test_a_past_deadline_fails_every_entry_unless_nothing_reaches_the_controller():
    """`timeout_ms` 0 or less fails the request whole (REQUEST_TIMED_OUT, no message, an entry
    for each of the request's, nothing written), unless every topic it names is answered
    before the controller: names given twice, `__cluster_metadata`."""
    image = cluster(1)
    for timeout_ms in (0, -1):
        late = create_topics(image, CreateTopicsRequest(topics=[topic("a"), topic("bad name"), topic("a"),
                                                                topic("ok")], timeout_ms=timeout_ms,
                                                        validate_only=False), SETTINGS, random.Random(0))
        assert [(t.name, t.error_code, t.error_message) for t in late.response.topics] == [
            (name, ErrorCode.REQUEST_TIMED_OUT, None) for name in ("a", "bad name", "a", "ok")]
        assert late.records == []
    answered = create_topics(image, CreateTopicsRequest(topics=[topic("a"), topic("a"), topic("__cluster_metadata")],
                                                        timeout_ms=0, validate_only=False), SETTINGS,
                             random.Random(0))
    assert answers(answered) == {
        "a": (ErrorCode.INVALID_REQUEST, "Duplicate topic name."),
        "__cluster_metadata": (ErrorCode.INVALID_REQUEST,
                               "Creation of internal topic __cluster_metadata is prohibited.")}
