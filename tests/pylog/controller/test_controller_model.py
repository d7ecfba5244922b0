"""A Hypothesis state machine over the controller rules: random registrations,
heartbeats (fence, shut down, fall behind), session expiry, controller restarts,
AlterPartition from the leader, elections and reassignments, every result committed into
the image. A broker that asked to shut down keeps asking, and once told to shut down stays
silent, until it registers a new incarnation, as a real one does. After each step:

- every partition with replicas has a non-empty ISR within its replicas;
- a leader, if any, is in the ISR, registered, unfenced and not in controlled shutdown
  (so no partition is led by a fenced broker after a fence pass);
- the leader epoch and partition epoch never go down; the leader epoch goes up whenever the
  leader changes, and otherwise only when a replica was dropped.
"""

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from protocol.error_codes import ErrorCode
from protocol.messages.alter_partition_reassignments_request import (
    AlterPartitionReassignmentsRequest, ReassignablePartition, ReassignableTopic,
)
from protocol.messages.alter_partition_request import (
    AlterPartitionRequest, BrokerState, PartitionData, TopicData,
)
from protocol.messages.elect_leaders_request import ElectLeadersRequest
from pylog.controller.alter_partition import alter_partition
from pylog.controller.leadership import auto_leader_rebalance, elect_leaders
from pylog.controller.reassignment import alter_partition_reassignments
from tests.pylog.controller.harness import SESSION_TIMEOUT_MS, Controller

BROKERS = (1, 2, 3, 4)
brokers = st.sampled_from(BROKERS)
partitions = st.sampled_from([("a", 0), ("a", 1), ("b", 0)])


class ControllerModel(RuleBasedStateMachine):
    @initialize()
    def start(self):
        self.c = Controller()
        for broker_id in BROKERS:
            self.c.start_broker(broker_id)
        self.c.create_topic("a", [[1, 2, 3], [2, 3, 4]])
        self.c.create_topic("b", [[4, 1]])
        self.seen = self.snapshot()
        self.stopping = set()   # asked to shut down: it keeps asking until it registers anew
        self.exited = set()     # told to shut down: the process is gone until it registers anew

    def snapshot(self):
        return {(t.name, i): p for t in self.c.image.topics.values() for i, p in t.partitions.items()}

    @rule(broker_id=brokers, same_incarnation=st.booleans())
    def register(self, broker_id, same_incarnation):
        if same_incarnation and broker_id in self.exited | self.stopping:
            return
        response = self.c.register(broker_id, new_incarnation=not same_incarnation)
        assert response.error_code in (ErrorCode.NONE, ErrorCode.DUPLICATE_BROKER_REGISTRATION)
        if response.error_code == ErrorCode.NONE:
            self.exited.discard(broker_id)
            self.stopping.discard(broker_id)

    @rule(broker_id=brokers, want_fence=st.booleans(), want_shut_down=st.booleans(), behind=st.booleans())
    def heartbeat(self, broker_id, want_fence, want_shut_down, behind):
        if broker_id not in self.c.image.brokers or broker_id in self.exited:
            return
        offset = self.c.heartbeats.registration_offset(broker_id) - 1 if behind else None
        if want_shut_down:
            self.stopping.add(broker_id)
        want_shut_down = broker_id in self.stopping
        response = self.c.heartbeat(broker_id, offset=offset, want_fence=want_fence,
                                    want_shut_down=want_shut_down)
        assert response.error_code == 0
        assert response.is_fenced == self.c.image.brokers[broker_id].fenced
        if response.should_shut_down:
            self.exited.add(broker_id)

    @rule(ms=st.integers(0, 2 * SESSION_TIMEOUT_MS))
    def time_passes_and_stale_brokers_are_fenced(self, ms):
        self.c.now_ms += ms
        fenced = self.c.fence_stale()
        for broker_id in fenced:
            assert self.c.image.brokers[broker_id].fenced

    @rule()
    def controller_restarts(self):
        self.c.heartbeats.activate(self.c.image, self.c.now_ms)

    @rule(where=partitions, members=st.sets(brokers), stale=st.booleans())
    def alter_partition(self, where, members, stale):
        topic, index = where
        partition = self.c.partition(topic, index)
        if partition.leader == -1:
            return
        isr = sorted(members | {partition.leader})
        data = PartitionData(
            partition_index=index, leader_epoch=partition.leader_epoch,
            partition_epoch=partition.partition_epoch - (1 if stale else 0),
            new_isr_with_epochs=[BrokerState(broker_id=b, broker_epoch=-1) for b in isr])
        leader = self.c.image.brokers[partition.leader]
        request = AlterPartitionRequest(broker_id=leader.broker_id, broker_epoch=leader.epoch, topics=[
            TopicData(topic_id=self.c.image.topics_by_name[topic].topic_id, partitions=[data])])
        got = self.c.commit(alter_partition(self.c.image, request, 3)).topics[0].partitions[0]
        if got.error_code == ErrorCode.NONE:
            assert tuple(got.isr) == self.c.partition(topic, index).isr

    @rule(unclean=st.booleans())
    def elect_everywhere(self, unclean):
        self.c.commit(elect_leaders(self.c.image, ElectLeadersRequest(election_type=int(unclean),
                                                                      topic_partitions=None), 2))

    @rule()
    def rebalance(self):
        self.c.commit(auto_leader_rebalance(self.c.image))

    @rule(where=partitions, replicas=st.none() | st.lists(brokers, min_size=1, max_size=3, unique=True))
    def reassign(self, where, replicas):
        topic, index = where
        request = AlterPartitionReassignmentsRequest(topics=[ReassignableTopic(
            name=topic, partitions=[ReassignablePartition(partition_index=index, replicas=replicas)])])
        self.c.commit(alter_partition_reassignments(self.c.image, request, 0))

    @invariant()
    def partitions_are_sound(self):
        if not hasattr(self, "c"):
            return
        now = self.snapshot()
        for key, partition in now.items():
            assert partition.isr and set(partition.isr) <= set(partition.replicas), (key, partition)
            if partition.leader != -1:
                broker = self.c.image.brokers[partition.leader]
                assert partition.leader in partition.isr, (key, partition)
                assert not broker.fenced and not broker.in_controlled_shutdown, (key, partition, broker)
            before = self.seen[key]
            assert partition.leader_epoch >= before.leader_epoch
            assert partition.partition_epoch >= before.partition_epoch
            if partition.leader != before.leader:
                assert partition.leader_epoch > before.leader_epoch, (key, before, partition)
            elif partition.leader_epoch > before.leader_epoch:
                assert not set(before.replicas) <= set(partition.replicas), (key, before, partition)
        self.seen = now


ControllerModel.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None,
                                             suppress_health_check=[HealthCheck.too_slow])
test_controller_model = ControllerModel.TestCase
