"""ApiVersions (key 18): which APIs and versions this node serves, and its features.

Clients send it first on every connection and pick, per API, the highest version both
sides know. The answer lists the dispatcher's table. A version the node does not serve
never reaches this handler: the dispatcher answers it with the KIP-511 fallback.

One range is advertised wider than it is served, as Kafka 4.1 advertises it: Produce from
v0, though a Produce below v3 closes the connection (Kafka's
`ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION`, KAFKA-18659). librdkafka reads the
range to choose its features: librdkafka 2.0.2 (Debian's kcat 1.7.1) asked for lz4 writes
uncompressed batches to a broker whose Produce starts at v3, lz4 ones to Kafka 4.1.

From v3 the answer also carries the features (KIP-584), as Kafka's DefaultApiVersionManager
and ApiVersionsResponse build them:

- `supported_features`: the ranges this node supports, the same ones its registration
  with the controller states (a broker's: pylog/broker_lifecycle.py; a controller-only
  node's: pylog/controller/bootstrap.py). Below v4 a feature whose minimum is 0 is left
  out: older clients cannot read a range starting at 0 (KAFKA-17492).
- `finalized_features`: the levels the metadata log has finalized, metadata.version
  among them; a feature at level 0 is not listed.
- `finalized_features_epoch`: the offset of the metadata image the levels were read from.

Both lists come in the order Kafka's Java maps iterate them (protocol/java_order.py). The
supported ranges are a HashMap filled by `put` (BrokerFeatures.defaultSupportedFeatures,
metadata.version first), so 16 buckets. The finalized levels are the image's non-zero
levels copied into a new HashMap, which sizes its table for them (2 levels: 4 buckets,
3: 8), with metadata.version put after them (FinalizedFeatures); so metadata.version may
come last where a table of 16 would put it second. A broker copies them twice (its
metadata cache, then FinalizedFeatures) into tables of the same size, which keeps the
order of the first copy.

From v3 the request names the client's software and its version (KIP-511). Kafka takes
either only when it is letters and digits, with `-` and `.` between them
(`ApiVersionsRequest.isValid`), and answers anything else INVALID_REQUEST with no API
listed; so does pylog.

`NodeFeatures` is what the caller gives: a function of no argument, called per request,
so the answer follows the metadata as it moves. The answer is encoded once per version and
sent as it is while the features stay the same (`EncodedBody`, protocol/headers.py).
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

from protocol import codec
from protocol.error_codes import ErrorCode
from protocol.headers import EncodedBody
from protocol.java_order import copied_hash_map, hash_map_order
from protocol.messages import ApiVersionsResponse
from pylog.dispatch import Dispatcher, RequestContext

SERVED_VERSIONS = (0, 4)       # the ApiVersions versions a broker or controller answers
FEATURES_VERSION = 3           # the first version that carries features
MIN_ZERO_FEATURES_VERSION = 4  # the first that may list a supported range starting at 0
SOFTWARE_VERSION = 3           # the first version that names the client's software
PRODUCE_KEY = 0
PRODUCE_ADVERTISED_MIN_VERSION = 0   # Kafka's, on a broker listener (module docstring)
METADATA_VERSION = "metadata.version"
SOFTWARE_NAME_OR_VERSION = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


class NodeFeatures(NamedTuple):
    supported: tuple[tuple[str, int, int], ...]   # (name, min, max)
    finalized: dict[str, int]                     # name -> level
    epoch: int


def image_features(supported: tuple[tuple[str, int, int], ...], image) -> NodeFeatures:
    """The features of a node supporting `supported` that acts on metadata `image`."""
    finalized = dict(image.features)
    if image.metadata_version is not None:
        finalized[METADATA_VERSION] = image.metadata_version
    return NodeFeatures(supported, finalized, image.offset)


def make_handler(dispatcher: Dispatcher, features: Callable[[], NodeFeatures]):
    # Every client asks on every connection, and the answer changes only with the features
    # (the node fills the dispatcher's table before it serves, and the versions stay as they
    # are): so it is encoded once per version and kept while the features it tells are the
    # same. A metadata change moves the features' epoch, and the next request encodes anew.
    encoded: dict[int, tuple[NodeFeatures | None, EncodedBody]] = {}

    async def handle(request, context: RequestContext) -> EncodedBody | ApiVersionsResponse:
        version = context.api_version
        if version >= SOFTWARE_VERSION and not names_software(request):
            return ApiVersionsResponse(error_code=ErrorCode.INVALID_REQUEST)
        node = features() if version >= FEATURES_VERSION else None
        kept = encoded.get(version)
        if kept is not None and kept[0] == node:
            return kept[1]
        body = EncodedBody(codec.encode(answer(dispatcher.advertised(), node, version), version))
        encoded[version] = (node, body)
        return body

    return handle


def names_software(request) -> bool:
    """Whether a v3+ request's client software name and version are both well formed."""
    return (SOFTWARE_NAME_OR_VERSION.fullmatch(request.client_software_name) is not None
            and SOFTWARE_NAME_OR_VERSION.fullmatch(request.client_software_version) is not None)


def answer(advertised: list[tuple[int, int, int]], node: NodeFeatures | None, version: int) -> ApiVersionsResponse:
    """The answer at `version`: the APIs (key, min, max) and, from v3, the node's features."""
    response = ApiVersionsResponse(error_code=0, api_keys=[
        ApiVersionsResponse.ApiVersion(api_key=key, min_version=PRODUCE_ADVERTISED_MIN_VERSION if key == PRODUCE_KEY
                                       else low, max_version=high) for key, low, high in advertised])
    if version >= FEATURES_VERSION:
        response.supported_features = [
            ApiVersionsResponse.SupportedFeatureKey(name=name, min_version=low, max_version=high)
            for name, low, high in supported_in_kafkas_order(node.supported)
            if low > 0 or version >= MIN_ZERO_FEATURES_VERSION]
        response.finalized_features = [
            ApiVersionsResponse.FinalizedFeatureKey(name=name, min_version_level=level, max_version_level=level)
            for name, level in finalized_in_kafkas_order(node.finalized)]
        response.finalized_features_epoch = node.epoch
    return response


def supported_in_kafkas_order(supported: tuple[tuple[str, int, int], ...]) -> list[tuple[str, int, int]]:
    """The (name, min, max) ranges, put in their given order, as a HashMap iterates them."""
    ranges = {name: (low, high) for name, low, high in supported}
    return [(name, *ranges[name]) for name in hash_map_order(ranges)]


def finalized_in_kafkas_order(finalized: dict[str, int]) -> list[tuple[str, int]]:
    """The (name, level) of the levels other than 0, as Kafka's FinalizedFeatures iterates
    them: the image's levels copied into a table sized for them, metadata.version put last."""
    table = copied_hash_map((name, level) for name, level in finalized.items()
                            if level != 0 and name != METADATA_VERSION)
    if finalized.get(METADATA_VERSION):
        table[METADATA_VERSION] = finalized[METADATA_VERSION]
    return table.items()
