"""A restart's reading of the metadata log: the controller's image and its heartbeat tracker
are built in one decoding of the log, and the tracker still sees every metadata record,
those the start itself appends included."""

from pylog.controller import metadata_log as metadata_log_module
from pylog.controller.bootstrap import start_controller
from pylog.controller.metadata_log import MetadataLog, partition_dir
from pylog.testing import EmbeddedBroker

NOW_MS = 1_700_000_000_000


def test_start_controller_hands_on_every_metadata_record_in_log_order(tmp_path):
    log = MetadataLog.open(partition_dir(tmp_path), now_ms=NOW_MS)
    seen: list[tuple[str, int]] = []
    start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS,
                     on_record=lambda record, offset: seen.append((record.schema_name, offset)))
    # a first start appends the bootstrap records after its LeaderChange: the callback sees them
    expected = [(entry.record.schema_name, entry.offset)
                for _, entries in log.batches() for entry in entries if entry.control_type is None]
    assert seen == expected and any(name == "FeatureLevelRecord" for name, _ in seen)
    assert all(offset > 0 for _, offset in seen)   # offset 0 is the LeaderChange control record

    seen.clear()
    start_controller(log, node_id=1, voters=[1], log_dir=tmp_path, now_ms=NOW_MS,
                     on_record=lambda record, offset: seen.append((record.schema_name, offset)))
    assert seen == expected   # the second start's LeaderChange is a control record: nothing new
    log.close()


def test_a_restart_decodes_the_metadata_log_once(tmp_path, monkeypatch):
    with EmbeddedBroker(tmp_path, test_defaults={}) as embedded:
        for i in range(12):
            embedded.call(lambda i=i: embedded.broker.create_topic(f"t{i}", 2))
    log = MetadataLog.open(partition_dir(tmp_path), now_ms=NOW_MS)
    batches = sum(1 for _ in log.batches())
    control = sum(1 for header, entries in log.batches() if header.is_control)
    log.close()
    assert batches - control >= 12   # one batch per topic created, besides the registrations

    decoded = []
    real = metadata_log_module.read_metadata_batch

    def counting(data, position):
        decoded.append(position)
        return real(data, position)

    monkeypatch.setattr(metadata_log_module, "read_metadata_batch", counting)
    with EmbeddedBroker(tmp_path, test_defaults={}) as embedded:
        assert embedded.call(lambda: sorted(embedded.broker.metadata.topics)) == sorted(f"t{i}" for i in range(12))
        assert embedded.call(lambda: embedded.broker.controller.heartbeats.registration_offset(1)) is not None
    # every batch once, plus the LeaderChange this start appends (read by the replay) and the
    # first batches read again to tell whether the log holds any metadata record yet
    assert len(decoded) <= batches + 3, (len(decoded), batches)
