"""SCRAM credentials through confluent-kafka's and kafka-python's admin clients against a
`pylog serve` process: a credential upserted is described with its iterations, survives a
restart (it is a record of the metadata log), and is deleted again; an unknown user is
RESOURCE_NOT_FOUND. pylog keeps the credentials and authenticates nobody with them."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)
from kafka.admin import KafkaAdminClient


def described(admin: AdminClient, user: str) -> list[tuple[str, int]]:
    description = admin.describe_user_scram_credentials([user])[user].result(30)
    return [(info.mechanism.name, info.iterations) for info in description.scram_credential_infos]


@pytest.mark.timeout(120)
def test_credentials_are_kept_across_a_restart_and_described(serve_factory):
    serve = serve_factory().start()
    admin = AdminClient({"bootstrap.servers": serve.bootstrap_servers})
    futures = admin.alter_user_scram_credentials([
        UserScramCredentialUpsertion("alice", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), b"secret"),
        UserScramCredentialUpsertion("bob", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), b"other")])
    for future in futures.values():
        future.result(30)
    assert described(admin, "alice") == [("SCRAM_SHA_256", 8192)]

    assert serve.stop() == 0, serve.log_text()
    serve.start()
    admin = AdminClient({"bootstrap.servers": serve.bootstrap_servers})
    assert described(admin, "bob") == [("SCRAM_SHA_512", 4096)]
    kafka_python = KafkaAdminClient(bootstrap_servers=serve.bootstrap_servers)
    try:   # every user, when none is named
        every = kafka_python.describe_user_scram_credentials()
        assert {user: [(int(i["mechanism"]), i["iterations"]) for i in d["credential_infos"]]
                for user, d in every.items()} == {"alice": [(1, 8192)], "bob": [(2, 4096)]}
    finally:
        kafka_python.close()

    admin.alter_user_scram_credentials([UserScramCredentialDeletion("alice", ScramMechanism.SCRAM_SHA_256)])[
        "alice"].result(30)
    with pytest.raises(KafkaException, match="does not exist: alice"):
        described(admin, "alice")
