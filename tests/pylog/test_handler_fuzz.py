"""Hostile but well-formed requests to every handler: each is answered or refused, never a
handler failure.

`tests/protocol/test_decoder_fuzz.py` covers bytes that do not decode. This covers the
step after: requests that decode, with any value a field's type allows, for every API
and version the broker serves, sent to the dispatcher of one running broker (so that
requests meet the state earlier ones left: topics created, deleted, grown; groups
joined; offsets committed). Each must come back as a response frame, as no response
(Produce acks=0), or as `CloseConnection` (the request cannot be answered, as Kafka
closes the connection). Anything else escaping a handler would close the client's
connection with a traceback where Kafka answers with an error code: an integer that
overflows a record field, a name the codec cannot encode in the answer's version, a
count that makes the broker allocate without bound.

Values are drawn from the schema (tests/protocol/strategies.py), with names, partitions,
offsets, epochs, counts and waits drawn from small sets part of the time, so that
requests reach past "unknown topic" to the partitions, groups and producers that exist;
strings are also drawn from names just short of legal ones, integers from their type's
bounds. A request still waiting after `ANSWER_WAIT_S` (a long poll, a join waiting for its group)
is cancelled, as a client's hang-up cancels it, and passes. 25 requests per API version by
default; a deeper search:

    PYLOG_FUZZ_EXAMPLES=500 .venv/bin/python -m pytest tests/pylog/test_handler_fuzz.py
"""

from __future__ import annotations

import asyncio
import functools
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import messages
from protocol.schema import Array, Message, Struct, in_versions
from pylog.dispatch import CloseConnection
from pylog.testing import EmbeddedBroker
from tests.protocol import strategies as S
from tests.protocol.test_decoder_fuzz import frame_for

ANSWER_WAIT_S = 1.0
# CreatePartitions is checked, not carried out: a count past the 10,000 records one request
# may write still adds 10,000 partitions (Kafka's rule), and a few such requests would leave
# the broker with tens of thousands for every later request to meet
CREATE_PARTITIONS_KEY = 37
EXAMPLES = int(os.environ.get("PYLOG_FUZZ_EXAMPLES", "25"))   # per API version; more for a deeper search
TOPICS = ["fuzz-a", "fuzz-b", "__consumer_offsets", "__transaction_state", "fuzz-new"]
GROUPS = ["fuzz-g", "fuzz-h", ""]
TRANSACTIONAL_IDS = ["fuzz-tx", "fuzz-ty"]
# names that are one character away from legal ones, and those Kafka refuses outright
HOSTILE_NAMES = ["fuzz-a\n", "fuzz-a ", "", ".", "..", "a/b", "x" * 250]


def _pool(field_name: str, type_name: str) -> st.SearchStrategy | None:
    """A small set of likely values for a field, by its name and type; None for none."""
    name = field_name.lower()
    if type_name == "string":
        if name in ("name", "topic", "resource_name") or ("topic" in name and "id" not in name):
            return st.sampled_from(TOPICS)
        if "group" in name and "instance" not in name:
            return st.sampled_from(GROUPS)
        if "transactional" in name:
            return st.sampled_from(TRANSACTIONAL_IDS)
        return None
    if type_name not in S.INT_RANGES:
        return None
    if "partition" in name and "max" not in name and "count" not in name:
        return st.sampled_from([0, 0, 1, 2, -1])
    if "count" in name or "num_partitions" in name or "replication_factor" in name:
        return st.sampled_from([-1, 0, 1, 2, 3, 2**31 - 1])
    if "offset" in name:
        return st.sampled_from([0, 1, 5, 100, -1, -2, 2**62])
    if "producer_id" in name:
        return st.sampled_from([0, 1, -1, 1000])
    if "epoch" in name or "generation" in name:
        return st.sampled_from([0, 1, -1, 5])
    if "timeout" in name or "wait" in name:
        return st.sampled_from([0, 10, -1])
    return None


def _field(field, version: int) -> st.SearchStrategy:
    drawn = S.field_values(field, version)
    if isinstance(field.type, Array) and isinstance(field.type.element, type):
        return st.lists(_struct(field.type.element, version), max_size=S.MAX_LIST) | drawn
    if isinstance(field.type, type):   # a struct: its own fields drawn the same way
        return _struct(field.type, version) | drawn
    pool = _pool(field.name, field.type)
    likely = [pool] if pool is not None else []
    if field.type == "string":
        likely.append(st.sampled_from(HOSTILE_NAMES))
    elif field.type in S.INT_RANGES:   # the type's bounds, where sums and counts overflow
        low, high = S.INT_RANGES[field.type]
        likely.append(st.sampled_from([low, high, high - 1]))
    return st.one_of(*likely, drawn)


@functools.lru_cache(maxsize=None)
def _struct(cls: type[Struct], version: int) -> st.SearchStrategy:
    parts = {f.name: _field(f, version) for f in cls.FIELDS if in_versions(version, f.versions)}
    return st.fixed_dictionaries(parts).map(lambda kwargs: cls(**kwargs))


def _encodable(cls: type[Message], version: int, body) -> bytes | None:
    try:
        return frame_for(cls, version, body)
    except Exception:   # a likely value the field's type cannot carry (2^62 in an int32)
        return None


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    embedded = EmbeddedBroker(tmp_path_factory.mktemp("handler-fuzz") / "data")
    embedded.start()
    for topic in ("fuzz-a", "fuzz-b"):
        embedded.call(lambda topic=topic: embedded.broker.create_topic(topic, 2))
    embedded.wait_for_group_coordinator()
    yield embedded
    embedded.stop()


def _served() -> list[tuple[int, type[Message], int]]:
    """(API key, request class, version) for every version the broker serves."""
    from pylog.handlers import SERVED
    from pylog.handlers.api_versions import SERVED_VERSIONS
    found = []
    for key, low, high in [(18, *SERVED_VERSIONS), *((key, low, high) for key, low, high, _, _ in SERVED)]:
        name = messages.REQUESTS.get(key)
        if name is not None:
            found += [(key, getattr(messages, name), v) for v in range(low, high + 1)]
    return found


@pytest.mark.parametrize("key,cls,version", _served(), ids=lambda p: getattr(p, "__name__", str(p)))
def test_a_request_is_answered_or_refused_never_a_handler_failure(broker, key, cls, version):
    @S.fast(EXAMPLES)
    @given(body=_struct(cls, version))
    def check(body):
        if key == CREATE_PARTITIONS_KEY:
            body.validate_only = True
        frame = _encodable(cls, version, body)
        if frame is None:
            return

        async def answer():
            try:
                response = await asyncio.wait_for(broker.broker.dispatcher.handle(bytearray(frame), "127.0.0.1", 1),
                                                  ANSWER_WAIT_S)
            except (CloseConnection, asyncio.TimeoutError):
                return None
            assert response is None or isinstance(response, (bytes, bytearray)), type(response)
            return response

        broker.call(answer)
    check()
