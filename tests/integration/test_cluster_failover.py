"""Leader failover on a 3-broker pylog cluster: acks=all loses nothing, acks=1 may.

The campaign: RF 3, `min.insync.replicas=2`, producers streaming while the test kills the
current leader of partition 0 with SIGKILL and restarts it, again and again; each kill waits
for every producer to be acknowledged again (the failover) and for the ISR to be whole
again before the next. Halfway, the controller process is killed and restarted too (the
brokers serve on meanwhile; it reads its metadata log back). Then a group consumer reads
everything back.

With acks=all (confluent-kafka idempotent, and kafka-python): every acknowledged record is
there, exactly once per idempotent producer, in the order each producer's records were
acknowledged within a partition. With acks=1 a leader may acknowledge records no follower
has yet, and a kill loses them: the test reports how many (Kafka 4.1.1, measured with five
kills: 5 of 79,670).
"""

from __future__ import annotations



import pytest

from pylog.cluster import CONTROLLER_NODE_ID, Cluster
from tests.integration.cluster_support import (
    ConfluentStream,
    KafkaPythonStream,
    create_topic,
    read_all,
    wait_for_progress,
    wait_full_isr,
)

KILLS = 20
PARTITIONS = 3


def campaign(tmp_path, acks: str, kills: int):
    with Cluster(brokers=3, data_dir=tmp_path / "cluster", config={"min.insync.replicas": 2}) as cluster:
        create_topic(cluster, "campaign", PARTITIONS, 3)
        streams = [ConfluentStream(cluster, "campaign", "confluent", acks=acks, idempotent=acks == "all").start(),
                   KafkaPythonStream(cluster, "campaign", "kafka-python", acks=-1 if acks == "all" else 1).start()]
        failovers = []
        wait_for_progress(streams, 100)
        for round_number in range(kills):
            if round_number == kills // 2:
                # the controller too: killed and restarted with its metadata log, while the
                # brokers go on serving; the kills after it need it to fence and elect
                cluster.kill(CONTROLLER_NODE_ID)
                wait_for_progress(streams, 20)
                cluster.restart(CONTROLLER_NODE_ID)
            leader = cluster.leader("campaign", 0)
            cluster.kill(leader)
            failovers.append(wait_for_progress(streams, 20))
            cluster.restart(leader)
            wait_full_isr(cluster, "campaign", PARTITIONS, 3)
        results = [stream.stop() for stream in streams]
        total = sum(len(r.acked) for r in results)
        stored = read_all(cluster, "campaign", "campaign-readers", total)
    return results, stored, failovers


@pytest.mark.timeout(600)
def test_acks_all_loses_no_acknowledged_record_through_twenty_leader_kills(tmp_path):
    results, stored, failovers = campaign(tmp_path, "all", KILLS)
    everything = [value for values in stored.values() for value in values]
    position = {value: (partition, i) for partition, values in stored.items() for i, value in enumerate(values)}
    for result in results:
        assert result.acked, "the producer got acknowledgements"
        missing = [value for value in result.acked if value not in position]
        assert missing == [], f"{len(missing)} acknowledged records lost, e.g. {missing[:5]}"
    confluent = results[0]
    confluent_values = [v for v in everything if v.startswith(b"confluent-")]
    assert len(confluent_values) == len(set(confluent_values)), "the idempotent producer wrote duplicates"
    # per partition, an idempotent producer's records are stored in the order it sent them
    for partition, values in stored.items():
        sent_order = [int(v.split(b"-")[-1]) for v in values if v.startswith(b"confluent-")]
        assert sent_order == sorted(sent_order), f"partition {partition}: out of order"
    assert len(confluent.acked) > 0
    print(f"\nacks=all: {sum(len(r.acked) for r in results)} acknowledged, 0 lost; "
          f"failover (kill to the next acknowledgement of every producer) "
          f"median {sorted(failovers)[len(failovers) // 2]:.2f} s, max {max(failovers):.2f} s")


@pytest.mark.timeout(600)
def test_acks_one_may_lose_acknowledged_records_and_the_test_says_how_many(tmp_path):
    results, stored, _ = campaign(tmp_path, "1", 5)
    position = {value for values in stored.values() for value in values}
    lost = sum(1 for result in results for value in result.acked if value not in position)
    acknowledged = sum(len(r.acked) for r in results)
    assert acknowledged > 0
    print(f"\nacks=1: {lost} of {acknowledged} acknowledged records lost through 5 leader kills")
