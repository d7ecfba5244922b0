"""LogConfig: Kafka's names and defaults, parsing from strings, and clear rejections."""

from __future__ import annotations

import pytest

from storage.config import CONFIG_KEYS, KAFKA_DEFINITION_ORDER, LONG_MAX, LogConfig
from storage.errors import InvalidConfig


def test_kafka_defaults():
    config = LogConfig()
    assert config.segment_bytes == 1024**3
    assert config.segment_ms == 7 * 24 * 3600 * 1000
    assert config.segment_jitter_ms == 0
    assert config.segment_index_bytes == 10 * 1024 * 1024
    assert config.index_interval_bytes == 4096
    assert config.flush_messages == config.flush_ms == LONG_MAX
    assert config.message_timestamp_type == "CreateTime"
    assert config.max_message_bytes == 1048588
    assert config.retention_ms == 604800000 and config.retention_bytes == -1
    assert config.cleanup_policy == ("delete",)
    assert config.delete_retention_ms == 86400000
    assert config.min_cleanable_dirty_ratio == 0.5
    assert config.file_delete_delay_ms == 60000
    # Kafka 4's bound on future timestamps (ServerLogConfigs: one hour); the past stays unbounded
    assert config.message_timestamp_after_max_ms == 3_600_000
    assert config.message_timestamp_before_max_ms == LONG_MAX


def test_every_field_has_a_kafka_name():
    assert {key.attribute for key in CONFIG_KEYS.values()} == set(LogConfig.__slots__)
    config = LogConfig()
    assert all(getattr(config, key.attribute) is not None for key in CONFIG_KEYS.values() if not key.internal)
    assert [key.name for key in CONFIG_KEYS.values() if key.internal] == ["internal.segment.bytes"]
    assert config.internal_segment_bytes is None


def test_a_config_is_immutable_and_compares_by_value():
    config = LogConfig(segment_bytes=1 << 20)
    with pytest.raises(AttributeError):
        config.segment_bytes = 1
    with pytest.raises(TypeError):
        LogConfig(segment_byte=1)
    assert config == LogConfig.from_properties({"segment.bytes": "1048576"})
    assert hash(config) == hash(LogConfig(segment_bytes=1 << 20))
    assert config != LogConfig()
    assert "segment_bytes=1048576" in repr(config)


def test_from_properties_parses_strings_and_typed_values():
    config = LogConfig.from_properties(
        {
            "segment.bytes": " 1048576 ",
            "segment.ms": 60000,
            "cleanup.policy": "compact, delete",
            "min.cleanable.dirty.ratio": "0.25",
            "preallocate": "TRUE",
            "message.timestamp.type": "LogAppendTime",
            "leader.replication.throttled.replicas": "0:1,1:2",
        }
    )
    assert config.segment_bytes == 1048576 and config.segment_ms == 60000
    assert config.cleanup_policy == ("compact", "delete") and config.compact and config.delete
    assert config.min_cleanable_dirty_ratio == 0.25 and config.preallocate is True
    assert config.log_append_time
    assert config.leader_replication_throttled_replicas == ("0:1", "1:2")


def test_to_properties_round_trips():
    config = LogConfig.from_properties({"cleanup.policy": "compact", "retention.ms": "-1", "flush.ms": "100"})
    properties = config.to_properties()
    assert properties["cleanup.policy"] == "compact" and properties["flush.ms"] == "100"
    assert properties["internal.segment.bytes"] is None
    assert LogConfig.from_properties(properties) == config
    assert set(properties) == set(CONFIG_KEYS)
    small = LogConfig.from_properties({"internal.segment.bytes": "4096"})
    assert LogConfig.from_properties(small.to_properties()) == small


def test_overrides_keep_the_other_settings():
    base = LogConfig(segment_bytes=5 << 20)
    changed = base.with_overrides({"retention.ms": "1000"})
    assert (changed.segment_bytes, changed.retention_ms) == (5 << 20, 1000)


def test_segment_bytes_is_at_least_a_mib_and_internal_segment_bytes_takes_any_int():
    """Kafka 4's bounds: segment.bytes at least 1 MiB; internal.segment.bytes, for tests, is
    unchecked and, when set, is the segment size the log uses (Kafka's segmentSize())."""
    assert LogConfig(segment_bytes=1 << 20).max_segment_bytes == 1 << 20
    with pytest.raises(InvalidConfig, match="Value must be at least 1048576"):
        LogConfig.from_properties({"segment.bytes": str((1 << 20) - 1)})
    for value in (4096, 13, 0, -5):
        config = LogConfig.from_properties({"internal.segment.bytes": str(value), "segment.bytes": "2097152"})
        assert (config.internal_segment_bytes, config.segment_bytes, config.max_segment_bytes) == (
            value, 2097152, value)
    with pytest.raises(InvalidConfig, match="Not a number of type INT"):
        LogConfig.from_properties({"internal.segment.bytes": str(2**31)})


@pytest.mark.parametrize(
    "name, value, fragment",
    [
        ("segment.byte", "1", "unknown topic config name"),
        ("segment.bytes", "abc", "Not a number of type INT"),
        ("segment.bytes", "16384", "Value must be at least 1048576"),
        ("segment.bytes", str(2**31), "Not a number of type INT"),
        ("segment.ms", "0", "at least 1"),
        ("index.interval.bytes", "-1", "at least 0"),
        ("flush.messages", "0", "at least 1"),
        ("retention.ms", "-2", "at least -1"),
        ("cleanup.policy", "compact,forever", "String must be one of: compact, delete"),
        ("min.cleanable.dirty.ratio", "1.5", "Value must be no more than 1"),
        ("message.timestamp.type", "NowTime", "String must be one of: CreateTime, LogAppendTime"),
        ("preallocate", "yes", "Expected value to be either true or false"),
        ("compression.type", "brotli", "String must be one of: "),
        ("compression.gzip.level", "0", "-1"),
        ("follower.replication.throttled.replicas", "x", "must be the literal '*' or a list of replicas"),
    ],
)
def test_invalid_values_are_rejected_clearly(name, value, fragment):
    with pytest.raises(InvalidConfig) as raised:
        LogConfig.from_properties({name: value})
    assert raised.value.name == name
    assert fragment in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_direct_construction_validates_too():
    with pytest.raises(InvalidConfig):
        LogConfig(segment_bytes=0)
    assert LogConfig(cleanup_policy=["compact"]).cleanup_policy == ("compact",)


def test_compaction_lags_are_checked_apart():
    # a broker default changed under a topic's override makes this config: Kafka runs it,
    # and refuses it only where the settings are chosen
    conflicting = LogConfig(min_compaction_lag_ms=10, max_compaction_lag_ms=5)
    with pytest.raises(InvalidConfig, match=r"conflict topic config setting min.compaction.lag.ms \(10\) > "
                                            r"max.compaction.lag.ms \(5\)"):
        conflicting.check_compaction_lags()
    LogConfig(min_compaction_lag_ms=5, max_compaction_lag_ms=5).check_compaction_lags()


def test_derived_values():
    import random

    assert LogConfig(segment_ms=1000).max_segment_ms == 1000
    assert LogConfig(segment_ms=1000, cleanup_policy=("compact",), max_compaction_lag_ms=300).max_segment_ms == 300
    assert LogConfig().random_segment_jitter_ms(random.Random(1)) == 0
    jitters = {LogConfig(segment_ms=100, segment_jitter_ms=1000).random_segment_jitter_ms(random.Random(s)) for s in range(50)}
    assert all(0 <= j < 100 for j in jitters) and len(jitters) > 10


def test_of_several_bad_values_the_first_in_kafkas_definition_order_is_refused():
    """Kafka's ConfigDef parses a topic's configs in LogConfig's definition order: a bad
    retention.bytes is reported before a bad message.timestamp.type, whatever the order given."""
    assert set(KAFKA_DEFINITION_ORDER) == set(CONFIG_KEYS)
    with pytest.raises(InvalidConfig) as refused:
        LogConfig.from_properties({"message.timestamp.type": "delete,compact", "retention.bytes": "abc"})
    assert refused.value.name == "retention.bytes"
