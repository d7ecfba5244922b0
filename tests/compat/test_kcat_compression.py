"""kcat (Debian's, librdkafka 2.0.2) asked to compress, against both brokers: the batches
stored carry the codec asked for on both.

librdkafka reads the brokers' ApiVersions ranges to choose what it writes, and this one
writes uncompressed batches to a broker that advertises Produce from v3; Kafka 4.1
advertises it from v0 (KAFKA-18659), and so does pylog (pylog/handlers/api_versions.py).
Each broker's first batch is read back with Fetch and its codec compared.
"""

from __future__ import annotations

import pytest

from protocol.compression import Compression
from protocol.messages import FetchRequest
from protocol.records import COMPRESSION_MASK, read_batch_header
from tests.compat.client_programs import Kcat, run_command
from tests.compat.conftest import unique
from tests.integration.support import WireClient

RECORDS = 200   # compressible, so that librdkafka keeps the compressed form


def first_batch_codec(bootstrap: str, topic: str) -> int:
    with WireClient(bootstrap) as client:
        answer = client.request(1, 12, FetchRequest(
            replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0, session_id=0,
            session_epoch=-1, forgotten_topics_data=[], rack_id="", topics=[FetchRequest.FetchTopic(
                topic=topic, partitions=[FetchRequest.FetchPartition(
                    partition=0, current_leader_epoch=-1, fetch_offset=0, last_fetched_epoch=-1,
                    log_start_offset=-1, partition_max_bytes=1 << 20)])]))
    header = read_batch_header(bytes(answer.responses[0].partitions[0].records))
    return header.attributes & COMPRESSION_MASK


@pytest.mark.parametrize("codec", ["lz4", "gzip", "snappy", "zstd"])
def test_kcat_compresses_as_asked_on_both(both, codec):
    Kcat()   # fails with the install hint when kcat is missing
    topic = unique(f"kcat-{codec}")
    lines = "".join(f"{'a' * 60}-{i}\n" for i in range(RECORDS))
    stored = {}
    for broker, server in both.items():
        run_command(["kcat", "-b", server.bootstrap_servers, "-P", "-t", topic, "-z", codec, "-X", "acks=all"],
                    what=f"kcat -P -z {codec}", stdin=lines)
        stored[broker] = first_batch_codec(server.bootstrap_servers, topic)
    # (how many records each batch holds depends on when the topic's leader is ready: not compared)
    assert stored == {"pylog": Compression[codec.upper()], "kafka": Compression[codec.upper()]}
