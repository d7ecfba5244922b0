"""Topics across restarts: creation, deletion, and a deletion interrupted by a crash."""

from pylog.metadata import ClusterMetadata
from pylog.testing import EmbeddedBroker


def test_topics_and_ids_survive_a_restart(tmp_path):
    with EmbeddedBroker(tmp_path) as embedded:
        topic = embedded.call(lambda: embedded.broker.create_topic("kept", 3, {"retention.ms": "1000"}))
        embedded.restart()
        again = embedded.call(lambda: embedded.broker.metadata.topics["kept"])
        assert (again.topic_id, again.num_partitions, again.configs) == (topic.topic_id, 3, {"retention.ms": "1000"})
        assert embedded.call(lambda: embedded.broker.partition("kept", 2).log.config.retention_ms) == 1000


def test_a_delete_interrupted_by_a_crash_is_finished_at_start(tmp_path):
    with EmbeddedBroker(tmp_path) as embedded:
        embedded.call(lambda: embedded.broker.create_topic("doomed", 2))
        embedded.call(lambda: embedded.broker.create_topic("survivor", 1))
    # The crash came right after the delete was marked, before any log was removed.
    metadata = ClusterMetadata.load(tmp_path, 1)
    metadata.mark_deleting("doomed")
    assert (tmp_path / "doomed-0").is_dir()
    with EmbeddedBroker(tmp_path) as embedded:
        topics = embedded.call(lambda: sorted(embedded.broker.metadata.topics))
        assert topics == ["survivor"]
        assert embedded.call(lambda: embedded.broker.partition("doomed", 0)) is None
    assert not (tmp_path / "doomed-0").exists() and not (tmp_path / "doomed-1").exists()
