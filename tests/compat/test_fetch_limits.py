"""Fetch requests with odd offsets and byte limits, against the reference Kafka, every field
of the answers compared, the record bytes included (both brokers hold the same batches).

Drawn at random (a fixed seed), 120 requests at v4, v7, v11, v12, v13, v16 and v17, read
uncommitted and read committed:
fetch offsets below the log start, inside a batch, at and past the log end; partition and
request byte limits from 0 to 1 MiB; partitions named twice; unknown topics (by id from
v13: the zero id, which is what a client sends for a topic whose id it does not know).
What this checks, besides the order of the answer (tests/compat/test_partition_list_answers.py):

- the first partition with records gets its first batch whole whatever the limits (KIP-74);
  a later one whose first batch is cut by its limit gets no records at all, as Kafka's
  ReplicaManager answers it (`firstEntryIncomplete`; for read_committed, with a null list
  of aborted transactions where a read gives an empty one), and a batch cut after a whole
  one stays cut;
- from v13, an answer where a partition follows one of the zero topic id fails whole with
  UNKNOWN_SERVER_ERROR (Kafka 4.1.1 throws while it groups the answer by topic).

Then, timed: a partition the metadata does not know does not end a long poll's wait.
"""

from __future__ import annotations

import random
import time

from protocol.messages import FetchRequest
from protocol.records import build_batch
from protocol.schema import ZERO_UUID
from tests.compat.answers import plain, topics_with_records
from tests.compat.conftest import unique
from tests.integration.support import WireClient

PARTITIONS = 2
VERSIONS = (4, 7, 11, 12, 13, 16, 17)
BATCHES = [build_batch([(b"k%d" % j, b"v" * (j * 37 % 300)) for j in range(i % 5 + 1)],
                       timestamp_ms=1_700_000_000_000 + i) for i in range(6)]


SKIPPED = ("throttle_time_ms", "topic_id", "node_endpoints")


def draws(names: list[str]):
    rng = random.Random(1016)
    for _ in range(120):
        parts = [(rng.choice(names + ["no-such-topic"]), rng.randrange(PARTITIONS + 1),
                  rng.choice([-1, 0, 1, 3, 7, 12, 15, 16, 30]), rng.choice([0, 1, 50, 100, 500, 1 << 20]),
                  rng.choice([-1, 0, 1])) for _ in range(rng.randrange(1, 6))]
        yield rng.choice(VERSIONS), parts, rng.choice([0, 1, 100, 1000, 1 << 20]), rng.choice([0, 1])


def test_fetch_limits_and_odd_offsets_are_answered_as_kafka_answers_them(both):
    names = [unique("limits") for _ in range(3)]
    answers = {}
    for broker, server in both.items():
        found = answers[broker] = []
        with WireClient(server.bootstrap_servers) as client:
            ids = topics_with_records(client, names, PARTITIONS, *BATCHES)
            for version, parts, max_bytes, isolation_level in draws(names):
                topics = [FetchRequest.FetchTopic(
                    topic=name, topic_id=ids.get(name, ZERO_UUID) if version >= 13 else ZERO_UUID,
                    partitions=[FetchRequest.FetchPartition(
                        partition=index, current_leader_epoch=epoch, fetch_offset=offset, last_fetched_epoch=-1,
                        log_start_offset=-1, partition_max_bytes=partition_max)])
                    for name, index, offset, partition_max, epoch in parts]
                found.append(plain(client.request(1, version, FetchRequest(
                    replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=max_bytes, isolation_level=isolation_level,
                    session_id=0, session_epoch=-1, topics=topics, forgotten_topics_data=[], rack_id="")), SKIPPED))
    assert answers["pylog"] == answers["kafka"]
    assert any(answer["error_code"] == -1 for answer in answers["kafka"])   # the zero-id case was drawn


def test_a_partition_the_metadata_does_not_know_does_not_end_the_wait(both):
    """A Fetch of a partition at its end and of an unknown one waits its `max_wait_ms` on
    both brokers; of the unknown one alone, it is answered at once."""
    topic = unique("waits")
    waited = {}
    for broker, server in both.items():
        with WireClient(server.bootstrap_servers) as client:
            topics_with_records(client, [topic], 1, BATCHES[0])   # its leader ready; fetched at its end
            for label, indexes in (("with an empty partition", (0, 5)), ("alone", (5,))):
                started = time.monotonic()
                answer = client.request(1, 12, FetchRequest(
                    replica_id=-1, max_wait_ms=1000, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                    session_id=0, session_epoch=-1, forgotten_topics_data=[], rack_id="", topics=[
                        FetchRequest.FetchTopic(topic=topic, partitions=[FetchRequest.FetchPartition(
                            partition=index, current_leader_epoch=-1, fetch_offset=1, last_fetched_epoch=-1,
                            log_start_offset=-1, partition_max_bytes=1 << 20) for index in indexes])]))
                waited[(broker, label)] = time.monotonic() - started >= 0.9
                assert [p.error_code for t in answer.responses for p in t.partitions] == [0, 3][-len(indexes):]
    assert waited == {("pylog", "with an empty partition"): True, ("pylog", "alone"): False,
                      ("kafka", "with an empty partition"): True, ("kafka", "alone"): False}
