"""Kafka's JSON message definitions, taken from Kafka's sources jars in the Maven repository.

    python -m protocol.kafka_specs            # fetch (once) and print the folders

The generator (`protocol/codegen.py`) reads Kafka's own definitions rather than a copy kept in
this repository. Apache Kafka publishes them inside its sources jars:

    org.apache.kafka:kafka-clients:<v>:sources                  common/message/*.json
        every request and response, the request/response headers, the consumer protocol
    org.apache.kafka:kafka-group-coordinator:<v>:sources        common/message/*.json
        the records of __consumer_offsets (OffsetCommitKey/Value, GroupMetadataKey/Value, ...)
    org.apache.kafka:kafka-transaction-coordinator:<v>:sources  common/message/*.json
        the records of __transaction_state (TransactionLogKey/Value)
    org.apache.kafka:kafka-metadata:<v>:sources                 common/metadata/*.json
        the KRaft metadata records (__cluster_metadata)

`fetch()` downloads each jar once, checks it against the SHA-1 the repository publishes beside
it, and unpacks only the JSON files into a cache folder:

    <cache>/kafka-specs/<version>/messages/   from kafka-clients
    <cache>/kafka-specs/<version>/internal/<artifact>/

`<cache>` is `$PYLOG_CACHE_DIR`, else `$XDG_CACHE_HOME/pylog`, else `~/.cache/pylog`. A folder
is written under a temporary name and renamed when complete, so an interrupted fetch leaves
nothing that a later run would take for a finished one. The repository is
`$PYLOG_MAVEN_REPOSITORY` when set (a mirror), else Maven Central.

The version is pinned here, in `KAFKA_SPECS_VERSION`, and nowhere else. It is 3.9.0: the last
release that still defines every version from 0 (Kafka 4.0 dropped the oldest versions, which
older clients still send; KIP-896).

This module is a build tool of the generator: nothing at run time imports it, and the broker
never touches the network for it.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import sys
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

KAFKA_SPECS_VERSION = "3.9.0"
MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2"

MESSAGES_ARTIFACT = "kafka-clients"
INTERNAL_ARTIFACTS = ("kafka-group-coordinator", "kafka-transaction-coordinator", "kafka-metadata")
# where each jar keeps its JSON files
JSON_FOLDERS = {
    "kafka-clients": "common/message/",
    "kafka-group-coordinator": "common/message/",
    "kafka-transaction-coordinator": "common/message/",
    "kafka-metadata": "common/metadata/",
}
DOWNLOAD_TIMEOUT_S = 120


@dataclass(frozen=True)
class SpecFolders:
    """Where one Kafka version's definitions were unpacked."""

    version: str
    messages: Path          # kafka-clients' common/message
    internal: list[Path]    # one folder per internal-records artifact


def cache_root() -> Path:
    if os.environ.get("PYLOG_CACHE_DIR"):
        return Path(os.environ["PYLOG_CACHE_DIR"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "pylog"
    return Path.home() / ".cache" / "pylog"


def sources_jar_url(artifact: str, version: str, repository: str | None = None) -> str:
    repository = (repository or os.environ.get("PYLOG_MAVEN_REPOSITORY") or MAVEN_CENTRAL).rstrip("/")
    return f"{repository}/org/apache/kafka/{artifact}/{version}/{artifact}-{version}-sources.jar"


def fetch(version: str = KAFKA_SPECS_VERSION, cache: Path | None = None) -> SpecFolders:
    """The definitions of Kafka `version`, downloaded and unpacked on first use."""
    root = (cache or cache_root()) / "kafka-specs" / version
    folders = {MESSAGES_ARTIFACT: root / "messages"}
    folders.update({artifact: root / "internal" / artifact for artifact in INTERNAL_ARTIFACTS})
    for artifact, folder in folders.items():
        if not folder.is_dir():
            _unpack(_download(sources_jar_url(artifact, version)), JSON_FOLDERS[artifact], folder)
    return SpecFolders(version, folders[MESSAGES_ARTIFACT],
                       [folders[artifact] for artifact in INTERNAL_ARTIFACTS])


def _download(url: str) -> bytes:
    """The jar's bytes, checked against the repository's `.sha1` of it."""
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response:
        data = response.read()
    with urllib.request.urlopen(url + ".sha1", timeout=DOWNLOAD_TIMEOUT_S) as response:
        expected = response.read().decode("ascii").split()[0].strip().lower()
    actual = hashlib.sha1(data).hexdigest()
    if actual != expected:
        raise OSError(f"{url}: SHA-1 {actual} does not match the published {expected}")
    return data


def _unpack(jar: bytes, prefix: str, folder: Path) -> None:
    """Write the jar's `prefix*.json` files into `folder` (flat), atomically."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        count = 0
        with zipfile.ZipFile(io.BytesIO(jar)) as archive:
            for name in archive.namelist():
                if name.startswith(prefix) and name.endswith(".json") and "/" not in name[len(prefix):]:
                    (staging / name[len(prefix):]).write_bytes(archive.read(name))
                    count += 1
        if count == 0:
            raise OSError(f"no {prefix}*.json in the jar")
        staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    version = args[0] if args else KAFKA_SPECS_VERSION
    folders = fetch(version)
    print(f"Kafka {folders.version} definitions:")
    print(f"  messages  {folders.messages}")
    for folder in folders.internal:
        print(f"  internal  {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
