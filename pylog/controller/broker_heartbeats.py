"""What the active controller remembers about each broker between heartbeats, in memory
only (Kafka's `BrokerHeartbeatManager` and `BrokerHeartbeatTracker`).

    sessions      (broker id, broker epoch) -> last contact ms. A session is valid while
                  now_ms <= last_contact_ms + session_timeout_ms. A restarted controller
                  starts the session of every registered unfenced broker at its start
                  (`activate`), so a broker that died with the old controller is fenced
                  one session timeout later.
    states        broker id -> (fenced, metadata offset it reported, controlled shutdown
                  offset: the end of the batch that put it in controlled shutdown, -1 if not)
    registration offsets
                  broker id -> offset of its RegisterBrokerRecord in the metadata log (fed
                  by `replay` for every committed record, so it survives a restart through
                  the log); a broker is caught up once it has read that far.

A broker's control state, from these (`control_state`): CONTROLLED_SHUTDOWN while it has
a controlled shutdown offset, else FENCED or UNFENCED. A controlled shutdown may end
(SHUTDOWN_NOW) once the broker leads nothing and every active broker (unfenced, not
shutting down) has read past that offset (`lowest_active_offset`; none active: no limit).

Times come in as `now_ms`; no clock is read here. One owner (the controller's event loop)
calls everything, so nothing is locked. A crash loses it all, by design: the registration
offsets come back from the log through `replay`, the sessions start again at `activate`.
"""

from __future__ import annotations

from pylog.metadata_image import MetadataImage

FENCED = "FENCED"
UNFENCED = "UNFENCED"
CONTROLLED_SHUTDOWN = "CONTROLLED_SHUTDOWN"
SHUTDOWN_NOW = "SHUTDOWN_NOW"

# state -> (is_fenced, should_shut_down) in the heartbeat response
STATE_FLAGS = {
    FENCED: (True, False),
    UNFENCED: (False, False),
    CONTROLLED_SHUTDOWN: (False, False),
    SHUTDOWN_NOW: (True, True),
}


class BrokerHeartbeatState:
    __slots__ = ("broker_id", "fenced", "metadata_offset", "controlled_shutdown_offset")

    def __init__(self, broker_id: int, fenced: bool, metadata_offset: int = -1, controlled_shutdown_offset: int = -1):
        self.broker_id = broker_id
        self.fenced = fenced
        self.metadata_offset = metadata_offset
        self.controlled_shutdown_offset = controlled_shutdown_offset

    @property
    def shutting_down(self) -> bool:
        return self.controlled_shutdown_offset >= 0


class BrokerHeartbeats:
    def __init__(self, session_timeout_ms: int):
        self.session_timeout_ms = session_timeout_ms
        self._contact_ms: dict[tuple[int, int], int] = {}
        self._states: dict[int, BrokerHeartbeatState] = {}
        self._registration_offsets: dict[int, int] = {}

    # -- sessions ------------------------------------------------------------------------

    def activate(self, image: MetadataImage, now_ms: int) -> None:
        """Become the active controller over `image`: every registered broker gets a state,
        every unfenced one a session starting now."""
        self._contact_ms.clear()
        self._states.clear()
        for broker in image.brokers.values():
            self.register(broker.broker_id, broker.fenced)
            if not broker.fenced:
                self._contact_ms[(broker.broker_id, broker.epoch)] = now_ms

    def forget_session(self, broker_id: int) -> None:
        """Drop every session of `broker_id`: the controller knows that broker is gone (a
        combined node's own broker, when the process starts)."""
        for key in [key for key in self._contact_ms if key[0] == broker_id]:
            del self._contact_ms[key]

    def update_contact(self, broker_id: int, broker_epoch: int, now_ms: int) -> None:
        self._contact_ms[(broker_id, broker_epoch)] = now_ms

    def contact_ms(self, broker_id: int, broker_epoch: int) -> int | None:
        return self._contact_ms.get((broker_id, broker_epoch))

    def _expired(self, contact_ms: int, now_ms: int) -> bool:
        return now_ms > contact_ms and contact_ms + self.session_timeout_ms < now_ms

    def has_valid_session(self, broker_id: int, broker_epoch: int, now_ms: int) -> bool:
        contact = self._contact_ms.get((broker_id, broker_epoch))
        return contact is not None and not self._expired(contact, now_ms)

    def remove_expired(self, now_ms: int) -> tuple[int, int] | None:
        """One expired session (broker id, epoch), forgotten; None if none expired."""
        for key, contact in list(self._contact_ms.items()):
            if self._expired(contact, now_ms):
                del self._contact_ms[key]
                return key
        return None

    # -- per-broker state ----------------------------------------------------------------

    def state(self, broker_id: int) -> BrokerHeartbeatState | None:
        return self._states.get(broker_id)

    def register(self, broker_id: int, fenced: bool) -> None:
        state = self._states.get(broker_id)
        metadata_offset = -1
        if state is None:
            state = self._states[broker_id] = BrokerHeartbeatState(broker_id, fenced)
        elif state.fenced != fenced:
            metadata_offset = state.metadata_offset
        self.touch(broker_id, fenced, metadata_offset)

    def remove(self, broker_id: int) -> None:
        self._states.pop(broker_id, None)

    def touch(self, broker_id: int, fenced: bool, metadata_offset: int) -> None:
        state = self._states[broker_id]
        state.fenced = fenced
        state.metadata_offset = metadata_offset
        if fenced:
            state.controlled_shutdown_offset = -1

    def fence(self, broker_id: int) -> None:
        state = self._states.get(broker_id)
        if state is not None:
            state.fenced = True

    def controlled_shutdown_started(self, broker_id: int, offset: int) -> None:
        """The batch that put the broker in controlled shutdown ends at `offset` (Kafka's
        `maybeUpdateControlledShutdownOffset`; the first offset sticks)."""
        state = self._states[broker_id]
        if state.fenced:
            raise RuntimeError("Fenced brokers cannot enter controlled shutdown.")
        if state.controlled_shutdown_offset < 0:
            state.controlled_shutdown_offset = offset

    def control_state(self, broker_id: int) -> str:
        state = self._states[broker_id]
        if state.shutting_down:
            return CONTROLLED_SHUTDOWN
        return FENCED if state.fenced else UNFENCED

    def lowest_active_offset(self) -> int | None:
        """The lowest metadata offset an active broker reported; None when none is active."""
        offsets = [s.metadata_offset for s in self._states.values() if not s.fenced and not s.shutting_down]
        return min(offsets) if offsets else None

    # -- registration offsets, from the log ----------------------------------------------

    def registration_offset(self, broker_id: int) -> int | None:
        return self._registration_offsets.get(broker_id)

    def replay(self, record, offset: int) -> None:
        """Keep up with one committed record at `offset` (call for every record applied, in
        log order, before and after activation)."""
        name = record.schema_name
        if name == "RegisterBrokerRecord":
            self._registration_offsets[record.broker_id] = offset
            if record.broker_id in self._states:
                self.remove(record.broker_id)
                self.register(record.broker_id, record.fenced)
        elif name == "UnregisterBrokerRecord":
            self._registration_offsets.pop(record.broker_id, None)
            self.remove(record.broker_id)
        elif name in ("FenceBrokerRecord", "UnfenceBrokerRecord"):
            if record.id in self._states:
                self.register(record.id, name == "FenceBrokerRecord")
        elif name == "BrokerRegistrationChangeRecord":
            state = self._states.get(record.broker_id)
            if state is not None:
                self.register(record.broker_id, record.fenced > 0 if record.fenced else state.fenced)
