"""Which files get fsynced: for the tests of what a flush, a roll or a close makes durable."""

from __future__ import annotations

import os


def recording_fsyncs(monkeypatch) -> list[str]:
    """From now on, the path of every fsync, in order (the real fsync still runs)."""
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced
