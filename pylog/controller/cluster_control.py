"""Brokers joining, heartbeating and leaving, as the controller rules on them: Kafka's
`ClusterControlManager.registerBroker`, `ReplicationControlManager.processBrokerHeartbeat`
and `maybeFenceOneStaleBroker`.

Registration (BrokerRegistration v0-4), checked in Kafka's order:

    cluster id differs                                  INCONSISTENT_CLUSTER_ID
    the id's registration has a valid session and a
      different incarnation                             DUPLICATE_BROKER_REGISTRATION
    is_migrating_zk_broker                              BROKER_ID_NOT_REGISTERED
    (metadata.version >= 3.7-IV2) no log dir, a reserved
      one (the first 100 UUIDs), a duplicate, or one
      another broker registered                         INVALID_REGISTRATION
    a feature's range misses the finalized level (a
      finalized feature it does not list counts as 0-0) UNSUPPORTED_VERSION
    no metadata.version among its features              INVALID_REGISTRATION

A new incarnation gets a RegisterBrokerRecord (fenced, not in controlled shutdown) whose
broker epoch is `next_offset`, the offset the batch's first record will get; the records
that take leadership and ISR membership away from the previous incarnation come first (a
no-op if it was fenced already), the registration last. The same incarnation again amends
the registration and keeps its epoch, fencing and controlled shutdown state. The response
carries the broker epoch.

Heartbeat (BrokerHeartbeat v0-1): the contact time is noted for (id, epoch) first; an id
with no registration, or a different epoch, gets STALE_BROKER_EPOCH. Then the next state:

    FENCED     want_shut_down -> SHUTDOWN_NOW; not want_fence and caught up (its reported
               metadata offset >= its RegisterBrokerRecord's offset) -> UNFENCED
    UNFENCED   want_fence -> SHUTDOWN_NOW if want_shut_down else FENCED;
               want_shut_down -> CONTROLLED_SHUTDOWN if it leads a partition, else SHUTDOWN_NOW
    CONTROLLED_SHUTDOWN
               -> SHUTDOWN_NOW once it leads nothing and every active broker has read past the
               batch that started the shutdown

and the records for a change: FENCED / SHUTDOWN_NOW as fencing (leadership and ISRs first),
UNFENCED (unfence, then leaderless partitions elect), CONTROLLED_SHUTDOWN (the flag once,
leaders moved away, ISRs left). Response: is_caught_up, is_fenced, should_shut_down of the
next state.

UnregisterBroker (`unregister_broker`): an id with no registration gets
BROKER_ID_NOT_REGISTERED; otherwise the broker leaves every ISR and leadership (as when
fenced), then an UnregisterBrokerRecord removes it.

Session expiry (`fence_stale_brokers`, run every `fence_check_interval_ms`): every broker
whose session expired is fenced, one after the other, each seeing the previous one's
records. A session of an older epoch, or of a broker already fenced (a fenced broker
heartbeats too), just ends: no record (Kafka writes a redundant fence for the latter).

Crash behaviour: nothing here is durable. The records are the state; the heartbeat state is
rebuilt by `BrokerHeartbeats.replay` over the log and `activate` when a controller starts.

Pure over the image; the in-memory `BrokerHeartbeats` is updated here as Kafka's manager
is (the caller serializes access: the controller's event loop).
"""

from __future__ import annotations

import logging
import uuid

from protocol.error_codes import ErrorCode
from protocol.messages.broker_heartbeat_response import BrokerHeartbeatResponse
from protocol.messages.broker_registration_response import BrokerRegistrationResponse
from protocol.messages.unregister_broker_response import UnregisterBrokerResponse
from protocol.metadata import RegisterBrokerRecord, UnregisterBrokerRecord
from protocol.metadata.register_broker_record import BrokerEndpoint, BrokerFeature
from pylog.controller.broker_heartbeats import (
    CONTROLLED_SHUTDOWN, FENCED, SHUTDOWN_NOW, STATE_FLAGS, UNFENCED, BrokerHeartbeats,
)
from pylog.controller.leadership import (
    controlled_shutdown_records, fence_broker_records, leader_and_isr_updates, leads_any,
    partitions_with_broker_in_isr, shutdown_cleanup_records, unfence_broker_records,
)
from pylog.controller.results import (
    ControllerResult, directory_assignment_supported, register_broker_record_version,
)
from pylog.metadata_image import METADATA_VERSION_FEATURE, KRAFT_VERSION_FEATURE, MetadataImage

log = logging.getLogger(__name__)

DUPLICATE_REGISTRATION_MESSAGE = (
    "Another broker is registered with that broker id. If the broker was recently restarted "
    "this should self-resolve once the heartbeat manager expires the broker's session.")


class RegistrationError(Exception):
    def __init__(self, error: ErrorCode, message: str):
        super().__init__(message)
        self.error = error


def finalized_features(image: MetadataImage, kraft_version: int = 0) -> dict[str, int]:
    """The levels a broker must support: the image's features, metadata.version, and
    Raft's kraft.version."""
    features = dict(image.features)
    if image.metadata_version is not None:
        features[METADATA_VERSION_FEATURE] = image.metadata_version
    features[KRAFT_VERSION_FEATURE] = kraft_version
    return features


def _reserved_directory(directory: uuid.UUID) -> bool:
    return directory.int >> 64 == 0 and (directory.int & ((1 << 64) - 1)) < 100


def _check_registration(image: MetadataImage, heartbeats: BrokerHeartbeats, request, *,
                        now_ms: int, cluster_id: str, kraft_version: int) -> None:
    if request.cluster_id != cluster_id:
        raise RegistrationError(ErrorCode.INCONSISTENT_CLUSTER_ID,
                                f"Expected cluster ID {cluster_id}, but got cluster ID {request.cluster_id}")
    broker_id = request.broker_id
    existing = image.brokers.get(broker_id)
    if existing is not None and heartbeats.has_valid_session(broker_id, existing.epoch, now_ms) \
            and request.incarnation_id != existing.incarnation_id:
        raise RegistrationError(ErrorCode.DUPLICATE_BROKER_REGISTRATION, DUPLICATE_REGISTRATION_MESSAGE)
    if request.is_migrating_zk_broker:
        raise RegistrationError(ErrorCode.BROKER_ID_NOT_REGISTERED,
                                "Controller does not support registering ZK brokers.")
    if directory_assignment_supported(image.metadata_version):
        directories = list(request.log_dirs)
        if not directories:
            raise RegistrationError(ErrorCode.INVALID_REGISTRATION, "No directories specified in request")
        if any(_reserved_directory(d) for d in directories):
            raise RegistrationError(ErrorCode.INVALID_REGISTRATION, "Reserved directory ID in request")
        if len(set(directories)) != len(directories):
            raise RegistrationError(ErrorCode.INVALID_REGISTRATION, "Duplicate directory ID in request")
        for other in image.brokers.values():
            if other.broker_id == broker_id:
                continue
            for directory in directories:
                if directory in other.directories:
                    raise RegistrationError(ErrorCode.INVALID_REGISTRATION,
                                            f"Broker {other.broker_id} is already registered with directory {directory}")
    finalized = finalized_features(image, kraft_version)
    listed = set()
    for feature in request.features:
        _check_feature(broker_id, finalized, feature.name, feature.min_supported_version,
                       feature.max_supported_version)
        listed.add(feature.name)
    if METADATA_VERSION_FEATURE not in listed:
        raise RegistrationError(ErrorCode.INVALID_REGISTRATION,
                                f"Request features do not contain '{METADATA_VERSION_FEATURE}'")
    for name, level in finalized.items():
        if level != 0 and name not in listed:
            _check_feature(broker_id, finalized, name, 0, 0)


def _check_feature(broker_id: int, finalized: dict[str, int], name: str, low: int, high: int) -> None:
    level = finalized.get(name, 0)
    if not low <= level <= high:
        raise RegistrationError(
            ErrorCode.UNSUPPORTED_VERSION,
            f"Unable to register because the broker does not support finalized version {level} of "
            f"{name}. The broker wants a version between {low} and {high}, inclusive.")


def register_broker(image: MetadataImage, heartbeats: BrokerHeartbeats, request, version: int, *,
                    next_offset: int, now_ms: int, cluster_id: str, kraft_version: int = 0,
                    unclean_default: bool = False) -> ControllerResult:
    """BrokerRegistration: the records and response (rules in the module docstring).
    `next_offset` is the offset the first record of this result will get."""
    try:
        _check_registration(image, heartbeats, request, now_ms=now_ms, cluster_id=cluster_id,
                            kraft_version=kraft_version)
    except RegistrationError as e:
        log.info("broker %d registration refused: %s (%s)", request.broker_id, e.error.name, e)
        return ControllerResult(BrokerRegistrationResponse(error_code=e.error), [])
    broker_id = request.broker_id
    existing = image.brokers.get(broker_id)
    record = RegisterBrokerRecord(
        broker_id=broker_id, is_migrating_zk_broker=False, incarnation_id=request.incarnation_id,
        end_points=[BrokerEndpoint(name=l.name, host=l.host, port=l.port, security_protocol=l.security_protocol)
                    for l in request.listeners],
        features=[BrokerFeature(name=f.name, min_supported_version=f.min_supported_version,
                                max_supported_version=f.max_supported_version) for f in request.features],
        rack=request.rack)
    if directory_assignment_supported(image.metadata_version):
        record.log_dirs = list(request.log_dirs)
    records = []
    new_incarnation = existing is None or existing.incarnation_id != request.incarnation_id
    if new_incarnation:
        records += shutdown_cleanup_records(image, broker_id, unclean_default=unclean_default)
        record.broker_epoch = next_offset
        record.fenced = True
        record.in_controlled_shutdown = False
    else:
        record.broker_epoch = existing.epoch
        record.fenced = existing.fenced
        record.in_controlled_shutdown = existing.in_controlled_shutdown
    records.append((record, register_broker_record_version(image.metadata_version)))
    if new_incarnation:
        heartbeats.remove(broker_id)
    heartbeats.register(broker_id, record.fenced)
    return ControllerResult(BrokerRegistrationResponse(broker_epoch=record.broker_epoch), records)


def next_broker_state(image: MetadataImage, heartbeats: BrokerHeartbeats, request,
                      registration_offset: int) -> tuple[str, str]:
    """(current, next) control state of the heartbeating broker."""
    broker_id = request.broker_id
    current = heartbeats.control_state(broker_id)
    if current == FENCED:
        if request.want_shut_down:
            return current, SHUTDOWN_NOW
        if not request.want_fence and request.current_metadata_offset >= registration_offset:
            return current, UNFENCED
        return current, FENCED
    if current == UNFENCED:
        if request.want_fence:
            return current, SHUTDOWN_NOW if request.want_shut_down else FENCED
        if request.want_shut_down:
            return current, CONTROLLED_SHUTDOWN if leads_any(image, broker_id) else SHUTDOWN_NOW
        return current, UNFENCED
    if leads_any(image, broker_id):
        return current, CONTROLLED_SHUTDOWN
    lowest = heartbeats.lowest_active_offset()
    if lowest is None or heartbeats.state(broker_id).controlled_shutdown_offset <= lowest:
        return current, SHUTDOWN_NOW
    return current, CONTROLLED_SHUTDOWN


def process_heartbeat(image: MetadataImage, heartbeats: BrokerHeartbeats, request, version: int, *,
                      now_ms: int, unclean_default: bool = False) -> ControllerResult:
    """BrokerHeartbeat: the records and response (rules in the module docstring)."""
    broker_id, broker_epoch = request.broker_id, request.broker_epoch
    heartbeats.update_contact(broker_id, broker_epoch, now_ms)
    registration_offset = heartbeats.registration_offset(broker_id)
    broker = image.brokers.get(broker_id)
    if registration_offset is None or broker is None or broker.epoch != broker_epoch \
            or heartbeats.state(broker_id) is None:
        return ControllerResult(BrokerHeartbeatResponse(error_code=ErrorCode.STALE_BROKER_EPOCH), [])
    current, following = next_broker_state(image, heartbeats, request, registration_offset)
    records = []
    if current != following:
        if following in (FENCED, SHUTDOWN_NOW):
            records = fence_broker_records(image, broker_id, unclean_default=unclean_default)
        elif following == UNFENCED:
            records = unfence_broker_records(image, broker_id, broker_epoch, unclean_default=unclean_default)
        else:
            records = controlled_shutdown_records(image, broker_id, broker_epoch, unclean_default=unclean_default)
    fenced, should_shut_down = STATE_FLAGS[following]
    heartbeats.touch(broker_id, fenced, request.current_metadata_offset)
    after_commit = None
    if following == CONTROLLED_SHUTDOWN:
        def controlled_shutdown_committed(offset: int) -> None:
            heartbeats.controlled_shutdown_started(broker_id, offset)
        after_commit = controlled_shutdown_committed
    response = BrokerHeartbeatResponse(
        error_code=ErrorCode.NONE, is_caught_up=request.current_metadata_offset >= registration_offset,
        is_fenced=fenced, should_shut_down=should_shut_down)
    return ControllerResult(response, records, after_commit)


def fence_check_interval_ms(session_timeout_ms: int) -> int:
    """How often the controller should run `fence_stale_brokers`: an eighth of the session
    timeout, at least 1 ms (Kafka's `maybeFenceStaleBrokerPeriodNs`)."""
    return max(1, session_timeout_ms // 8)


def fence_stale_brokers(image: MetadataImage, heartbeats: BrokerHeartbeats, now_ms: int, *,
                        unclean_default: bool = False) -> ControllerResult:
    """Fence every broker whose session expired by `now_ms`. The response is the list of
    fenced broker ids; the records fence them one after the other (each broker's records
    are computed over the image with the previous ones applied)."""
    records = []
    fenced = []
    work = image
    while True:
        expired = heartbeats.remove_expired(now_ms)
        if expired is None:
            break
        broker_id, epoch = expired
        broker = work.brokers.get(broker_id)
        if broker is None:
            heartbeats.remove(broker_id)
            continue
        if broker.epoch != epoch or broker.fenced:
            continue
        log.info("fencing broker %d at epoch %d: its session timed out", broker_id, epoch)
        these = fence_broker_records(work, broker_id, unclean_default=unclean_default)
        heartbeats.fence(broker_id)
        if work is image:
            import copy   # (a fence is rare: not imported by a start)
            work = copy.deepcopy(image)
        for record, _ in these:
            work.replay(record)
        records += these
        fenced.append(broker_id)
    return ControllerResult(fenced, records)


def unregister_broker(image: MetadataImage, request, version: int, *,
                      unclean_default: bool = False) -> ControllerResult:
    """UnregisterBroker v0: the broker leaves ISRs and leadership, then the image."""
    broker = image.brokers.get(request.broker_id)
    if broker is None:
        return ControllerResult(UnregisterBrokerResponse(
            error_code=ErrorCode.BROKER_ID_NOT_REGISTERED,
            error_message=f"Broker ID {request.broker_id} is not currently registered"), [])
    records = leader_and_isr_updates(image, partitions_with_broker_in_isr(image, broker.broker_id),
                                     broker_to_remove=broker.broker_id, unclean_default=unclean_default)
    records.append((UnregisterBrokerRecord(broker_id=broker.broker_id, broker_epoch=broker.epoch), 0))
    return ControllerResult(UnregisterBrokerResponse(error_code=ErrorCode.NONE, error_message=None), records)
