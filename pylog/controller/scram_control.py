"""AlterUserScramCredentials (key 51, v0) at the controller: a user's SCRAM credentials
deleted and upserted as metadata records (Kafka's ScramControlManager.alterCredentials).
pylog authenticates nobody (its listeners are PLAINTEXT), so the credentials are kept and
described, never checked; a cluster moved to Kafka takes them as they are.

    deletion (name, mechanism)            RemoveUserScramCredentialRecord(name, mechanism)
    upsertion (name, mechanism, iterations, salt, salted_password)
                                          UserScramCredentialRecord(name, mechanism, salt,
                                              stored_key = H(HMAC(salted_password, "Client Key")),
                                              server_key = HMAC(salted_password, "Server Key"),
                                              iterations)

H and HMAC are SHA-256 for mechanism 1 (SCRAM-SHA-256) and SHA-512 for 2 (SCRAM-SHA-512), as
RFC 5802 and Kafka's ScramFormatter compute them. The rules, per user, in request order:

- a user already refused is skipped;
- a user named a second time (two deletions, or a deletion or an upsertion and then an
  upsertion) is DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same
  request", and none of its changes is made;
- an empty name is UNACCEPTABLE_CREDENTIAL "Username must not be empty"; a mechanism other than
  1 or 2 UNSUPPORTED_SASL_MECHANISM "Unknown SCRAM mechanism";
- a deletion of a credential the image lacks is RESOURCE_NOT_FOUND, "Attempt to delete a user
  credential that does not exist"; an upsertion's iterations must be 4096 to 16384
  (UNACCEPTABLE_CREDENTIAL "Too few iterations" / "Too many iterations");
- an empty salted password cannot key an HMAC: UNKNOWN_SERVER_ERROR, no message (Java's
  SecretKeySpec refuses an empty key).

The answer lists the deletions made, then the upsertions made, then the refusals, each group
in the order of Kafka's HashMap of the user names (protocol/java_order.py); the records come
in the same order, all committed together or none.
"""

from __future__ import annotations

import hashlib
import hmac

from protocol.error_codes import ErrorCode
from protocol.java_order import JavaHashMap
from protocol.messages import AlterUserScramCredentialsResponse
from protocol.metadata import RemoveUserScramCredentialRecord, UserScramCredentialRecord

from pylog.controller.results import ControllerResult
from pylog.metadata_image import MetadataImage

HASHES = {1: hashlib.sha256, 2: hashlib.sha512}   # mechanism type -> its hash
MIN_ITERATIONS = 4096                              # both mechanisms' minimum (ScramMechanism)
MAX_ITERATIONS = 16384
TWICE = "A user credential cannot be altered twice in the same request"


def alter_user_scram_credentials(image: MetadataImage, request) -> ControllerResult:
    """The answer and the records of AlterUserScramCredentials (see the module docstring)."""
    deletions, upsertions, refused = JavaHashMap(), JavaHashMap(), JavaHashMap()
    for deletion in request.deletions:
        name = deletion.name
        if name in refused:
            continue
        if deletions.pop(name, None) is not None:
            refused[name] = (ErrorCode.DUPLICATE_RESOURCE, TWICE)
            continue
        error = _name_and_mechanism_refusal(name, deletion.mechanism)
        if error is None and (name, deletion.mechanism) not in image.scram:
            error = (ErrorCode.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist")
        if error is None:
            deletions[name] = deletion
        else:
            refused[name] = error
    for upsertion in request.upsertions:
        name = upsertion.name
        if name in refused:
            continue
        if deletions.pop(name, None) is not None or upsertions.pop(name, None) is not None:
            refused[name] = (ErrorCode.DUPLICATE_RESOURCE, TWICE)
            continue
        error = _name_and_mechanism_refusal(name, upsertion.mechanism)
        if error is None and upsertion.iterations < MIN_ITERATIONS:
            error = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations")
        elif error is None and upsertion.iterations > MAX_ITERATIONS:
            error = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations")
        if error is None:
            upsertions[name] = upsertion
        else:
            refused[name] = error
    Result = AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult
    results, records = [], []
    for name, deletion in deletions.items():
        results.append(Result(user=name, error_code=ErrorCode.NONE, error_message=None))
        records.append((RemoveUserScramCredentialRecord(name=name, mechanism=deletion.mechanism), 0))
    for name, upsertion in upsertions.items():
        if not upsertion.salted_password:
            refused[name] = (ErrorCode.UNKNOWN_SERVER_ERROR, None)
            continue
        results.append(Result(user=name, error_code=ErrorCode.NONE, error_message=None))
        records.append((credential_record(upsertion), 0))
    for name, (error, message) in refused.items():
        results.append(Result(user=name, error_code=error, error_message=message))
    return ControllerResult(AlterUserScramCredentialsResponse(results=results), records)


def credential_record(upsertion) -> UserScramCredentialRecord:
    """The record of an upsertion: the keys a SCRAM server checks a client's proof with."""
    digest = HASHES[upsertion.mechanism]
    salted = bytes(upsertion.salted_password)
    client_key = hmac.new(salted, b"Client Key", digest).digest()
    return UserScramCredentialRecord(name=upsertion.name, mechanism=upsertion.mechanism, salt=bytes(upsertion.salt),
                                     stored_key=digest(client_key).digest(),
                                     server_key=hmac.new(salted, b"Server Key", digest).digest(),
                                     iterations=upsertion.iterations)


def _name_and_mechanism_refusal(name: str, mechanism: int) -> tuple[ErrorCode, str] | None:
    if not name:
        return ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"
    if mechanism not in HASHES:
        return ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"
    return None
