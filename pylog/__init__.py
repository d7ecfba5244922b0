"""pylog: a Kafka-compatible log broker in Python.

The broker lives here; `protocol/` (the wire codec) and `storage/` (the log on disk)
are separate packages that never import this one.
"""


def __getattr__(name):
    # `pylog.Broker`: the in-process broker for tests, imported on first use so that
    # `import pylog` stays cheap.
    if name == "Broker":
        from pylog.testing import EmbeddedBroker
        return EmbeddedBroker
    raise AttributeError(name)
