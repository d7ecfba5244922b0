"""protocol/spec_union.py: one definition out of an older and a newer release's, on made-up
definitions shaped like Kafka's KIP-896 changes (the older release's low versions dropped, a
field narrowed, fields added and removed). Kafka's real 3.9 and 4.1 definitions are checked
version by version in tests/compat/test_codegen_against_kafka.py."""

from __future__ import annotations

import json

import pytest

from protocol import codegen
from protocol.spec_union import SpecUnionError, format_range, parse_range, union_spec

OLDER = {
    "apiKey": 910, "type": "request", "name": "ToyProduceRequest", "listeners": ["zkBroker", "broker"],
    "validVersions": "0-11", "deprecatedVersions": "0-6", "flexibleVersions": "9+",
    "fields": [
        {"name": "Acks", "type": "int16", "versions": "0+"},
        {"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
            {"name": "Name", "type": "string", "versions": "0+"},
            {"name": "OldStyle", "type": "int32", "versions": "0"},
            {"name": "Records", "type": "records", "versions": "0+", "nullableVersions": "0+"},
        ]},
    ],
}
NEWER = {
    "apiKey": 910, "type": "request", "name": "ToyProduceRequest", "listeners": ["broker"],
    "validVersions": "3-13", "flexibleVersions": "9+", "latestVersionUnstable": False,
    "fields": [
        {"name": "Acks", "type": "int16", "versions": "0+"},
        {"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
            {"name": "Name", "type": "string", "versions": "0-12", "ignorable": True},
            {"name": "TopicId", "type": "uuid", "versions": "13+", "ignorable": True},
            {"name": "Records", "type": "records", "versions": "0+", "nullableVersions": "0+"},
        ]},
        {"name": "Hint", "type": "int32", "versions": "12+", "taggedVersions": "12+", "tag": 0},
    ],
}


def fields(spec, path=()):
    out = {}
    for field in spec["fields"]:
        name = ".".join((*path, field["name"]))
        out[name] = {k: field[k] for k in ("versions", "nullableVersions", "taggedVersions", "ignorable") if k in field}
        out.update(fields(field, (*path, field["name"])) if "fields" in field else {})
    return out


def test_the_union_serves_the_older_versions_as_the_older_release_and_the_rest_as_the_newer():
    united = union_spec(OLDER, NEWER)
    assert united["validVersions"] == "0-13"
    assert united["listeners"] == ["broker"] and "deprecatedVersions" not in united   # the newer's: none
    assert fields(united) == {
        "Acks": {"versions": "0+"},
        "Topics": {"versions": "0+"},
        "Topics.Name": {"versions": "0-12", "ignorable": True},
        "Topics.OldStyle": {"versions": "0"},          # only the older release has it: in its place
        "Topics.TopicId": {"versions": "13+", "ignorable": True},
        "Topics.Records": {"versions": "0+", "nullableVersions": "0+"},
        "Hint": {"versions": "12+", "taggedVersions": "12+"},
    }
    assert [f["name"] for f in united["fields"][1]["fields"]] == ["Name", "OldStyle", "TopicId", "Records"]
    assert OLDER["fields"][1]["fields"][0]["versions"] == "0+"   # the inputs are left alone


def test_a_newer_release_that_covers_every_older_version_is_taken_whole():
    newer = {**NEWER, "validVersions": "0-13", "fields": NEWER["fields"][:1]}
    assert union_spec(OLDER, newer) == newer
    assert union_spec(OLDER, {**NEWER, "validVersions": "none"}) == OLDER


def test_a_field_renamed_inside_the_shared_versions_is_refused():
    renamed = json.loads(json.dumps(NEWER))
    renamed["fields"][0]["name"] = "RequiredAcks"
    with pytest.raises(SpecUnionError, match="disagree on versions at version 3"):
        union_spec(OLDER, renamed)


def test_a_nullability_the_releases_disagree_on_is_refused():
    changed = json.loads(json.dumps(NEWER))
    changed["fields"][1]["fields"][2]["nullableVersions"] = "5+"
    with pytest.raises(SpecUnionError, match="Topics.Records: the releases disagree on nullableVersions at version 3"):
        union_spec(OLDER, changed)


def test_a_type_change_is_refused():
    changed = json.loads(json.dumps(NEWER))
    changed["fields"][0]["type"] = "int32"
    with pytest.raises(SpecUnionError, match="type int16 in one release, int32 in the other"):
        union_spec(OLDER, changed)


@pytest.mark.parametrize("text", ["0+", "3-7", "5", "none"])
def test_ranges_round_trip(text):
    assert format_range(parse_range(text)) == text


def test_the_generator_unites_two_folders_oldest_first(tmp_path):
    for release, spec in (("old", OLDER), ("new", NEWER)):
        folder = tmp_path / release
        folder.mkdir()
        (folder / "ToyProduceRequest.json").write_text("// header\n" + json.dumps(spec), encoding="utf-8")
        response = {"apiKey": 910, "type": "response", "name": "ToyProduceResponse",
                    "validVersions": spec["validVersions"], "flexibleVersions": "9+",
                    "fields": [{"name": "ErrorCode", "type": "int16", "versions": "0+"}]}
        (folder / "ToyProduceResponse.json").write_text(json.dumps(response), encoding="utf-8")
    outputs = codegen.generate([tmp_path / "old", tmp_path / "new"], [])
    text = next(t for p, t in outputs.items() if p.name == "toy_produce_request.py")
    namespace: dict = {}
    exec(compile(text, "toy_produce_request.py", "exec"), namespace)
    cls = namespace["ToyProduceRequest"]
    assert cls.valid_versions == (0, 13) and cls.api_listeners == ("broker",)
    assert [f.name for f in cls.Topic.FIELDS] == ["name", "old_style", "topic_id", "records"]
    assert [f.versions for f in cls.Topic.FIELDS][:3] == [(0, 12), (0, 0), (13, codegen.MAX_VERSION)]
    response = next(t for p, t in outputs.items() if p.name == "toy_produce_response.py")
    assert "valid_versions = (0, 13)" in response
