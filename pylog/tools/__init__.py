"""The command-line tools besides `pylog serve`, run as `pylog <tool>` (pylog/cli.py).

- `dump_log`: `pylog dump-log`, segment, index and snapshot files printed the way
  `kafka-dump-log.sh` prints them; it reads the files itself (storage's on-disk formats
  and protocol's record codec only), so that it can check what storage wrote.
- `groups_cli`: `pylog groups`, consumer groups and their lag over the wire, the way
  `kafka-consumer-groups.sh` shows them; it speaks to any Kafka-compatible broker.
- `kafka_surface`: the README's table of the APIs, versions and features pylog presents,
  rendered from the broker's table (`python -m pylog.tools.kafka_surface --write`).
"""
