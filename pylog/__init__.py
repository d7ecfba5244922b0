"""pylog: a Kafka-compatible log broker in Python.

The broker lives here; `protocol/` (the wire codec) and `storage/` (the log on disk)
are separate packages that never import this one.
"""
