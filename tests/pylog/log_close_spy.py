"""Which thread closes each partition log: for the tests of a clean stop's
`num.recovery.threads.per.data.dir` threads."""

from __future__ import annotations

import threading

from storage.log import Log


def closing_threads(monkeypatch) -> dict[str, str]:
    """From now on, the name of the thread each log's close runs on, by partition directory
    (a real close still runs)."""
    closed_on: dict[str, str] = {}
    real_close = Log.close

    def close(log):
        closed_on[log.dir.name] = threading.current_thread().name
        real_close(log)

    monkeypatch.setattr(Log, "close", close)
    return closed_on
