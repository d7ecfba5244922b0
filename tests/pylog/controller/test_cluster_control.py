"""Broker registration, heartbeats, controlled shutdown and session expiry, each checked
by replaying the records into the image."""

import uuid

from protocol.error_codes import ErrorCode
from protocol.messages.broker_registration_request import Feature
from protocol.messages.unregister_broker_request import UnregisterBrokerRequest
from pylog.controller.cluster_control import fence_check_interval_ms, unregister_broker
from tests.pylog.controller.harness import SESSION_TIMEOUT_MS, Controller


def test_a_new_broker_registers_fenced_with_the_offset_of_its_batch_as_epoch():
    c = Controller()
    offset = c.next_offset
    response = c.register(1)
    assert response.error_code == 0 and response.broker_epoch == offset
    broker = c.image.brokers[1]
    assert broker.fenced and not broker.in_controlled_shutdown and broker.epoch == offset
    assert broker.endpoint("PLAINTEXT").port == 9001
    assert c.heartbeats.registration_offset(1) == offset


def test_a_heartbeat_unfences_once_the_broker_has_read_its_registration():
    c = Controller()
    c.register(1)
    registered_at = c.heartbeats.registration_offset(1)
    behind = c.heartbeat(1, offset=registered_at - 1)
    assert behind.is_fenced and not behind.is_caught_up and c.image.brokers[1].fenced
    caught_up = c.heartbeat(1, offset=registered_at)
    assert caught_up.error_code == 0 and caught_up.is_caught_up and not caught_up.is_fenced
    assert not caught_up.should_shut_down and not c.image.brokers[1].fenced


def test_want_fence_keeps_a_caught_up_broker_fenced():
    c = Controller()
    c.register(1)
    response = c.heartbeat(1, want_fence=True)
    assert response.is_fenced and c.image.brokers[1].fenced


def test_a_heartbeat_with_a_wrong_epoch_or_from_an_unknown_broker_is_stale():
    c = Controller()
    c.start_broker(1)
    assert c.heartbeat(1, epoch=c.image.brokers[1].epoch + 5).error_code == ErrorCode.STALE_BROKER_EPOCH
    assert c.heartbeat(7, epoch=3).error_code == ErrorCode.STALE_BROKER_EPOCH


def test_another_incarnation_with_a_live_session_is_a_duplicate_registration():
    c = Controller()
    c.start_broker(1)
    records_before = c.image.offset
    response = c.register(1)
    assert response.error_code == ErrorCode.DUPLICATE_BROKER_REGISTRATION
    assert c.image.offset == records_before


def test_the_same_incarnation_again_keeps_epoch_and_fencing():
    c = Controller()
    c.start_broker(1)
    epoch = c.image.brokers[1].epoch
    response = c.register(1, new_incarnation=False, rack="r1")
    assert response.error_code == 0 and response.broker_epoch == epoch
    broker = c.image.brokers[1]
    assert broker.epoch == epoch and not broker.fenced and broker.rack == "r1"


def test_registration_errors():
    c = Controller()
    assert c.register(1, cluster_id="other").error_code == ErrorCode.INCONSISTENT_CLUSTER_ID
    assert c.register(1, is_migrating_zk_broker=True).error_code == ErrorCode.BROKER_ID_NOT_REGISTERED
    assert c.register(1, log_dirs=[]).error_code == ErrorCode.INVALID_REGISTRATION
    assert c.register(1, log_dirs=[uuid.UUID(int=5)]).error_code == ErrorCode.INVALID_REGISTRATION
    same = uuid.uuid4()
    assert c.register(1, log_dirs=[same, same]).error_code == ErrorCode.INVALID_REGISTRATION
    assert c.register(1, features=[]).error_code == ErrorCode.INVALID_REGISTRATION
    too_old = [Feature(name="metadata.version", min_supported_version=1, max_supported_version=20)]
    assert c.register(1, features=too_old).error_code == ErrorCode.UNSUPPORTED_VERSION
    assert 1 not in c.image.brokers
    c.register(1)
    taken = c.image.brokers[1].directories[0]
    assert c.register(2, log_dirs=[taken]).error_code == ErrorCode.INVALID_REGISTRATION


def test_an_expired_session_fences_the_broker_and_moves_its_leadership():
    c = Controller()
    for broker_id in (1, 2):
        c.start_broker(broker_id)
    c.create_topic("t", [[1, 2]])
    c.now_ms += SESSION_TIMEOUT_MS // 2
    c.heartbeat(2)
    c.now_ms += SESSION_TIMEOUT_MS // 2 + 1
    assert c.fence_stale() == [1]
    assert c.image.brokers[1].fenced and not c.image.brokers[2].fenced
    partition = c.partition("t")
    assert (partition.leader, partition.isr, partition.leader_epoch) == (2, (2,), 1)


def test_several_expired_sessions_are_fenced_in_one_pass_each_seeing_the_last():
    c = Controller()
    for broker_id in (1, 2, 3):
        c.start_broker(broker_id)
    c.create_topic("t", [[1, 2, 3]])
    c.now_ms += SESSION_TIMEOUT_MS + 1
    c.heartbeat(3)
    assert sorted(c.fence_stale()) == [1, 2]
    partition = c.partition("t")
    assert partition.leader == 3 and partition.isr == (3,)


def test_the_last_isr_member_stays_in_the_isr_and_the_partition_loses_its_leader():
    c = Controller()
    c.start_broker(1)
    c.create_topic("t", [[1]])
    c.now_ms += SESSION_TIMEOUT_MS + 1
    assert c.fence_stale() == [1]
    partition = c.partition("t")
    assert (partition.leader, partition.isr, partition.leader_epoch) == (-1, (1,), 1)


def test_kill_and_restart_of_a_single_node_bumps_the_leader_epoch_twice():
    c = Controller()
    c.start_broker(1)
    c.create_topic("t", [[1]])
    c.now_ms += SESSION_TIMEOUT_MS + 1     # the old incarnation's session runs out
    c.fence_stale()
    c.register(1)                          # the restarted process
    assert c.partition("t").leader == -1
    assert not c.heartbeat(1).is_fenced
    partition = c.partition("t")
    assert (partition.leader, partition.isr, partition.leader_epoch) == (1, (1,), 2)


def test_a_restarted_controller_gives_unfenced_brokers_a_fresh_session_then_expires_them():
    c = Controller()
    c.start_broker(1)
    c.create_topic("t", [[1]])
    c.now_ms += 10 * SESSION_TIMEOUT_MS
    c.heartbeats.activate(c.image, c.now_ms)          # the controller restarts
    assert c.fence_stale() == []
    assert c.register(1).error_code == ErrorCode.DUPLICATE_BROKER_REGISTRATION
    c.now_ms += SESSION_TIMEOUT_MS + 1
    assert c.fence_stale() == [1]
    assert c.register(1).error_code == 0


def test_a_new_incarnation_of_an_unfenced_broker_first_takes_its_leadership_away():
    c = Controller()
    for broker_id in (1, 2):
        c.start_broker(broker_id)
    c.create_topic("t", [[1, 2]])
    c.now_ms += SESSION_TIMEOUT_MS + 1     # session gone but not yet fenced by the periodic task
    c.heartbeat(2)
    first_offset = c.next_offset
    response = c.register(1)
    assert response.error_code == 0 and response.broker_epoch == first_offset
    partition = c.partition("t")
    assert (partition.leader, partition.isr, partition.leader_epoch) == (2, (2,), 1)
    assert c.image.brokers[1].fenced
    assert c.heartbeats.registration_offset(1) == first_offset + 1   # after the partition change


def test_controlled_shutdown_moves_leadership_then_lets_the_broker_go():
    c = Controller()
    for broker_id in (1, 2):
        c.start_broker(broker_id)
    c.create_topic("t", [[1, 2], [2, 1]])
    response = c.heartbeat(1, want_shut_down=True)
    assert not response.is_fenced and not response.should_shut_down
    assert c.image.brokers[1].in_controlled_shutdown
    p0, p1 = c.partition("t", 0), c.partition("t", 1)
    assert (p0.leader, p0.isr, p0.leader_epoch) == (2, (2,), 1)
    assert (p1.leader, p1.isr, p1.leader_epoch) == (2, (2,), 0)
    c.heartbeat(2)                                      # the other broker reads past the shutdown
    response = c.heartbeat(1, want_shut_down=True)
    assert response.should_shut_down and response.is_fenced
    assert c.image.brokers[1].fenced


def test_controlled_shutdown_waits_until_the_active_brokers_have_read_past_it():
    c = Controller()
    for broker_id in (1, 2):
        c.start_broker(broker_id)
    c.create_topic("t", [[1, 2]])
    stale_offset = c.image.offset
    c.heartbeat(1, want_shut_down=True)
    c.heartbeat(2, offset=stale_offset)
    assert not c.heartbeat(1, want_shut_down=True).should_shut_down
    c.heartbeat(2)
    assert c.heartbeat(1, want_shut_down=True).should_shut_down


def test_a_broker_that_leads_nothing_shuts_down_at_once():
    c = Controller()
    c.start_broker(1)
    response = c.heartbeat(1, want_shut_down=True)
    assert response.should_shut_down and response.is_fenced and c.image.brokers[1].fenced


def test_controlled_shutdown_of_the_only_replica_leaves_it_leaderless_and_in_the_isr():
    c = Controller()
    c.start_broker(1)
    c.create_topic("t", [[1]])
    c.heartbeat(1, want_shut_down=True)
    partition = c.partition("t")
    assert (partition.leader, partition.isr) == (-1, (1,))
    assert c.heartbeat(1, want_shut_down=True).should_shut_down


def test_unfencing_elects_the_broker_where_it_is_in_the_isr_of_a_leaderless_partition():
    c = Controller()
    c.start_broker(1)
    c.start_broker(2)
    c.create_topic("t", [[1, 2]])
    for broker_id in (1, 2):
        c.heartbeat(broker_id, want_fence=True)
    partition = c.partition("t")
    assert partition.leader == -1 and partition.isr == (2,)
    c.heartbeat(1)
    assert c.partition("t").leader == -1          # 1 is not in the ISR
    c.heartbeat(2)
    partition = c.partition("t")
    assert (partition.leader, partition.isr) == (2, (2,))


def test_unregistering_removes_the_broker_after_taking_its_leadership_away():
    c = Controller()
    for broker_id in (1, 2):
        c.start_broker(broker_id)
    c.create_topic("t", [[1, 2]])
    missing = unregister_broker(c.image, UnregisterBrokerRequest(broker_id=9), 0).response
    assert (missing.error_code, missing.error_message) == (ErrorCode.BROKER_ID_NOT_REGISTERED,
                                                           "Broker ID 9 is not currently registered")
    response = c.commit(unregister_broker(c.image, UnregisterBrokerRequest(broker_id=1), 0))
    assert response.error_code == 0 and 1 not in c.image.brokers
    assert c.heartbeats.registration_offset(1) is None
    partition = c.partition("t")
    assert (partition.leader, partition.isr) == (2, (2,))


def test_the_stale_broker_check_runs_every_eighth_of_a_session():
    assert fence_check_interval_ms(2000) == 250 and fence_check_interval_ms(5) == 1
