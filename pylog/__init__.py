"""pylog: a Kafka-compatible log broker in Python.

The broker lives here; `protocol/` (the wire codec) and `storage/` (the log on disk)
are separate packages that never import this one.
"""


def __getattr__(name):
    # `pylog.Broker`: the in-process broker for tests; `pylog.Cluster`: a controller and
    # brokers as processes. Imported on first use so that `import pylog` stays cheap.
    if name == "Broker":
        from pylog.testing import EmbeddedBroker
        return EmbeddedBroker
    if name == "Cluster":
        from pylog.cluster import Cluster
        return Cluster
    raise AttributeError(name)
