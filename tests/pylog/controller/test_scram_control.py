"""SCRAM credentials: AlterUserScramCredentials at the controller
(pylog/controller/scram_control.py), the image that keeps them (pylog/metadata_image.py) and
DescribeUserScramCredentials from it (pylog/handlers/scram.py). The requests are those of a
probe run against Kafka 4.1.1, and the answers expected are Kafka's to them, orders included
(they follow the users' names, which are the probe's); the keys are those Kafka wrote."""

from __future__ import annotations

import pytest

from protocol.messages import AlterUserScramCredentialsRequest as Alter
from protocol.messages import DescribeUserScramCredentialsRequest as Describe
from protocol.metadata import RemoveUserScramCredentialRecord
from pylog.controller.scram_control import alter_user_scram_credentials, credential_record
from pylog.handlers.scram import describe_user_scram_credentials
from pylog.metadata_image import MetadataImage, MetadataImageError
from tests.compat.answers import plain

PASSWORD = b"p" * 32   # the salted password of every upsertion below but j's


def up(name: str, mechanism: int = 1, iterations: int = 4096, salt: bytes = b"salt", salted: bytes = PASSWORD):
    return Alter.ScramCredentialUpsertion(name="t1-" + name if name else "", mechanism=mechanism,
                                          iterations=iterations, salt=salt, salted_password=salted)


def delete(name: str, mechanism: int = 1):
    return Alter.ScramCredentialDeletion(name="t1-" + name if name else "", mechanism=mechanism)


def describe(*names: str):
    return Describe(users=[Describe.UserName(name="t1-" + name) for name in names])


def ok(user: str) -> dict:
    return {"user": "t1-" + user, "error_code": 0, "error_message": None}


def refused(user: str, code: int, message: str | None) -> dict:
    return {"user": "t1-" + user if user else "", "error_code": code, "error_message": message}


def found(user: str, *infos: tuple[int, int]) -> dict:
    return {"user": "t1-" + user, "error_code": 0, "error_message": "",
            "credential_infos": [{"mechanism": m, "iterations": i} for m, i in infos]}


def missing(user: str) -> dict:
    return {"user": "t1-" + user, "error_code": 91, "credential_infos": [],
            "error_message": f"Attempt to describe a user credential that does not exist: t1-{user}"}


TWICE = "A user credential cannot be altered twice in the same request"


class Cluster:
    """An image and what the controller commits to it."""

    def __init__(self):
        self.image = MetadataImage()

    def alter(self, *, deletions=(), upsertions=()) -> list[dict]:
        result = alter_user_scram_credentials(self.image, Alter(deletions=list(deletions), upsertions=list(upsertions)))
        for record, _ in result.records:
            self.image.replay(record)
        return plain(result.response)["results"]

    def describe(self, request) -> list[dict]:
        response = plain(describe_user_scram_credentials(self.image, request))
        assert (response["error_code"], response["error_message"]) == (0, "")
        return response["results"]


def test_the_probe_against_kafka():
    c = Cluster()
    assert c.alter(upsertions=[up("alice"), up("bob", 2, 8192), up("carol"), up("dave")]) == [
        ok("carol"), ok("dave"), ok("alice"), ok("bob")]
    assert c.describe(describe("alice", "bob", "zed", "alice")) == [
        missing("zed"),
        refused("alice", 92, "Cannot describe SCRAM credentials for the same user twice in a single request: t1-alice")
        | {"credential_infos": []},
        found("bob", (2, 8192))]
    assert c.alter(deletions=[delete("alice"), delete("zed")], upsertions=[up("bob", 1, 5000), up("alice", 2)]) == [
        ok("bob"), refused("zed", 91, "Attempt to delete a user credential that does not exist"),
        refused("alice", 92, TWICE)]
    assert c.alter(upsertions=[up(""), up("e", 0), up("f", 3), up("g", 1, 4095), up("h", 1, 16385), up("i", 1, 16384),
                               up("j", 1, 4096, b"", b"x"), up("k", 1, 4096, b"s", b"")]) == [
        ok("i"), ok("j"), refused("", 93, "Username must not be empty"), refused("e", 33, "Unknown SCRAM mechanism"),
        refused("g", 93, "Too few iterations"), refused("f", 33, "Unknown SCRAM mechanism"),
        refused("h", 93, "Too many iterations"), refused("k", -1, None)]
    assert c.alter(deletions=[delete("carol"), delete("carol", 2)]) == [refused("carol", 92, TWICE)]
    assert c.alter(deletions=[delete("dave")], upsertions=[up("dave"), up("dave")]) == [refused("dave", 92, TWICE)]
    assert c.alter(deletions=[delete(""), delete("x", 0), delete("bob", 1)], upsertions=[up("new1"), up("new1", 2)]) == [
        ok("bob"), refused("", 93, "Username must not be empty"), refused("new1", 92, TWICE),
        refused("x", 33, "Unknown SCRAM mechanism")]
    assert c.describe(describe("alice", "bob", "carol", "dave", "i", "j", "k", "new1")) == [
        found("carol", (1, 4096)), found("dave", (1, 4096)), found("i", (1, 16384)), missing("new1"),
        found("alice", (1, 4096)), missing("k"), found("bob", (2, 8192)), found("j", (1, 4096))]


def test_no_user_named_describes_every_user_with_a_credential():
    c = Cluster()
    c.alter(upsertions=[up("alice"), up("bob", 2, 8192)])
    c.alter(upsertions=[up("alice", 2, 5000)])
    every = c.describe(Describe(users=None))
    assert every == c.describe(Describe(users=[])) == [found("alice", (1, 4096), (2, 5000)), found("bob", (2, 8192))]


@pytest.mark.parametrize("mechanism,iterations,stored_key,server_key", [
    (1, 16384, "e5f154c55d000f6eb15a4a09260edb5d5adfb02d7ca0effdb5ea09c7d3c9b53d",
     "1c4b5802f3b04ee6d6d368c92fee4c1049636db3a6b17850b86afd785a8948ed"),
    (2, 8192, "2f019c9fd0e0cd1c8550b0262d889a78aabec7a633154690571d95821c66e6e5"
              "2419a7850ba722968a04c7b4a56cb0138c4ad02f132cb031410c2ddf8d709a58",
     "fa4001a1f3891c81bbfa10103051238a78c5331b4e6570a7b1ce284abada378d"
     "79ae460817c73d1dfaae687c48eee251a7116087529b010203926eb62bbd1f6d"),
])
def test_the_record_holds_the_keys_kafka_derives(mechanism, iterations, stored_key, server_key):
    record = credential_record(up("i", mechanism, iterations))
    assert (record.name, record.mechanism, record.iterations, bytes(record.salt)) == ("t1-i", mechanism, iterations,
                                                                                     b"salt")
    assert (bytes(record.stored_key).hex(), bytes(record.server_key).hex()) == (stored_key, server_key)


def test_the_image_refuses_to_remove_a_credential_it_lacks():
    image = MetadataImage()
    with pytest.raises(MetadataImageError):
        image.replay(RemoveUserScramCredentialRecord(name="nobody", mechanism=1))
    assert image.scram == {}
