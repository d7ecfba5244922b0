"""The segmented log engine: Kafka's on-disk format, blocking file I/O, no asyncio.

Start at `storage/log.py` (one partition) and `storage/manager.py` (a data directory);
`storage/segment.py`, `offset_index.py` and `time_index.py` are the files underneath.
Storage imports nothing from `pylog` and, from `protocol`, only the record-batch codec.
"""
