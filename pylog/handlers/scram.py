"""DescribeUserScramCredentials (key 50) and AlterUserScramCredentials (key 51): the SCRAM
credentials kept in the cluster's metadata. A broker answers Describe from its metadata image
(Kafka's ScramImage.describe) and forwards Alter to the controller
(pylog/controller/scram_control.py). pylog authenticates nobody with them (README).

Describe, per user named (every user holding a credential when none is named, or an empty
list): its mechanisms and iterations; RESOURCE_NOT_FOUND "Attempt to describe a user
credential that does not exist: <user>" when it holds none; DUPLICATE_RESOURCE "Cannot describe
SCRAM credentials for the same user twice in a single request: <user>" for a user named twice
(once in the answer). The users come in the order of Kafka's HashMap of their names. A user's
mechanisms come SHA-256 first: Kafka keeps them in a HashMap keyed by an enum, whose order
changes from one JVM to the next.
"""

from __future__ import annotations

from functools import partial

from protocol.error_codes import ErrorCode
from protocol.java_order import JavaHashMap
from protocol.messages import AlterUserScramCredentialsResponse, DescribeUserScramCredentialsResponse

from pylog.errors import BrokerError
from pylog.handlers.forwarding import forwarding_handler
from pylog.metadata_image import MetadataImage

MECHANISMS = (1, 2)   # SCRAM-SHA-256, SCRAM-SHA-512
NOT_FOUND = "Attempt to describe a user credential that does not exist: "
TWICE = "Cannot describe SCRAM credentials for the same user twice in a single request: "


def describe_user_scram_credentials(image: MetadataImage, request) -> DescribeUserScramCredentialsResponse:
    named_twice = JavaHashMap()   # user -> named more than once
    if request.users:
        for user in request.users:
            named_twice[user.name] = user.name in named_twice
    else:   # put mechanism by mechanism (SHA-256 first), as Kafka's ScramImage.describe puts them
        for name, _ in sorted(image.scram, key=lambda key: key[1]):
            named_twice[name] = False
    Result = DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult
    results = []
    for name, twice in named_twice.items():
        if twice:
            results.append(Result(user=name, error_code=ErrorCode.DUPLICATE_RESOURCE, error_message=TWICE + name))
            continue
        infos = [DescribeUserScramCredentialsResponse.CredentialInfo(mechanism=mechanism,
                                                                     iterations=image.scram[(name, mechanism)].iterations)
                 for mechanism in MECHANISMS if (name, mechanism) in image.scram]
        if infos:
            results.append(Result(user=name, error_code=ErrorCode.NONE, error_message="", credential_infos=infos))
        else:
            results.append(Result(user=name, error_code=ErrorCode.RESOURCE_NOT_FOUND, error_message=NOT_FOUND + name))
    return DescribeUserScramCredentialsResponse(error_code=ErrorCode.NONE, error_message="", results=results)


def make_describe_handler(broker):
    async def handle(request, context) -> DescribeUserScramCredentialsResponse:
        return describe_user_scram_credentials(broker.metadata_image(), request)
    return handle


def alter_failed(request, error: BrokerError) -> AlterUserScramCredentialsResponse:
    """Every user named, sorted, with the error (AlterUserScramCredentialsRequest.getErrorResponse)."""
    users = sorted({d.name for d in request.deletions} | {u.name for u in request.upsertions})
    return AlterUserScramCredentialsResponse(results=[
        AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult(
            user=user, error_code=error.code, error_message=error.message) for user in users])


make_alter_handler = partial(forwarding_handler, failed=alter_failed)
