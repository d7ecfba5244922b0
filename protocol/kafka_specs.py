"""Kafka's JSON message definitions, taken from Kafka's sources jars in the Maven repository.

    python -m protocol.kafka_specs [VERSION ...]     # fetch (once) and print the folders

The generator (`protocol/codegen.py`) reads Kafka's own definitions rather than a copy kept in
this repository. Apache Kafka publishes them inside its sources jars:

    org.apache.kafka:kafka-clients:<v>:sources                  common/message/*.json
        every request and response, the request/response headers, the consumer protocol
    org.apache.kafka:kafka-group-coordinator:<v>:sources        common/message/*.json
        the records of __consumer_offsets (OffsetCommitKey/Value, GroupMetadataKey/Value, ...)
    org.apache.kafka:kafka-transaction-coordinator:<v>:sources  common/message/*.json
        the records of __transaction_state (TransactionLogKey/Value)
    org.apache.kafka:kafka-metadata:<m>:sources                 common/metadata/*.json
        the KRaft metadata records (__cluster_metadata: RegisterBrokerRecord, TopicRecord, ...)

`fetch()` downloads each jar once, checks it against the SHA-1 the repository publishes beside
it, and unpacks only the JSON files into a cache folder:

    <cache>/kafka-specs/<version>/messages/   from kafka-clients
    <cache>/kafka-specs/<version>/internal/<artifact>/
    <cache>/kafka-specs/<m>/metadata/         from kafka-metadata

`<cache>` is `$PYLOG_CACHE_DIR`, else `$XDG_CACHE_HOME/pylog`, else `~/.cache/pylog`. A folder
is written under a temporary name and renamed when complete, so an interrupted fetch leaves
nothing that a later run would take for a finished one. The repository is
`$PYLOG_MAVEN_REPOSITORY` when set (a mirror), else Maven Central.

The versions are pinned here and nowhere else. `MESSAGE_SPECS_VERSIONS` are the releases
whose requests and responses the generator unites (`protocol/spec_union.py`): 3.9.0, the last
release that still defines every version from 0 (Kafka 4.0 dropped the oldest versions, which
older clients still send; KIP-896), and 4.1.1, the reference Kafka's, for its newest versions
and APIs. `KAFKA_SPECS_VERSION` (3.9.0) is also the release of the coordinator records, whose
4.x definitions renumber their types. `METADATA_SPECS_VERSION` (`<m>`), for the metadata
records, is the reference Kafka's own (tests/compat/versions.properties): metadata records keep
every version they ever had, and `__cluster_metadata` must read what that Kafka writes (4.1
added ClearElrRecord).

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
METADATA_SPECS_VERSION = "4.1.1"
MESSAGE_SPECS_VERSIONS = (KAFKA_SPECS_VERSION, "4.1.1")   # oldest first
MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2"

MESSAGES_ARTIFACT = "kafka-clients"
INTERNAL_ARTIFACTS = ("kafka-group-coordinator", "kafka-transaction-coordinator")
METADATA_ARTIFACT = "kafka-metadata"
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
    metadata: Path          # kafka-metadata's common/metadata, of METADATA_SPECS_VERSION
    metadata_version: str


def cache_root() -> Path:
    if os.environ.get("PYLOG_CACHE_DIR"):
        return Path(os.environ["PYLOG_CACHE_DIR"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "pylog"
    return Path.home() / ".cache" / "pylog"


def sources_jar_url(artifact: str, version: str, repository: str | None = None) -> str:
    repository = (repository or os.environ.get("PYLOG_MAVEN_REPOSITORY") or MAVEN_CENTRAL).rstrip("/")
    return f"{repository}/org/apache/kafka/{artifact}/{version}/{artifact}-{version}-sources.jar"


def fetch(version: str = KAFKA_SPECS_VERSION, cache: Path | None = None,
          metadata_version: str = METADATA_SPECS_VERSION) -> SpecFolders:
    """The definitions of Kafka `version` (and its metadata records of `metadata_version`),
    downloaded and unpacked on first use."""
    specs = (cache or cache_root()) / "kafka-specs"
    root = specs / version
    folders = {(MESSAGES_ARTIFACT, version): root / "messages"}
    folders.update({(artifact, version): root / "internal" / artifact for artifact in INTERNAL_ARTIFACTS})
    folders[(METADATA_ARTIFACT, metadata_version)] = specs / metadata_version / "metadata"
    for (artifact, artifact_version), folder in folders.items():
        if not folder.is_dir():
            _unpack(_download(sources_jar_url(artifact, artifact_version)), JSON_FOLDERS[artifact], folder)
    return SpecFolders(version, folders[(MESSAGES_ARTIFACT, version)],
                       [folders[(artifact, version)] for artifact in INTERNAL_ARTIFACTS],
                       folders[(METADATA_ARTIFACT, metadata_version)], metadata_version)


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


def fetch_message_folders(cache: Path | None = None) -> list[Path]:
    """The requests' and responses' folders of every MESSAGE_SPECS_VERSIONS release, oldest first."""
    return [fetch(version, cache).messages for version in MESSAGE_SPECS_VERSIONS]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for version in args or MESSAGE_SPECS_VERSIONS:
        folders = fetch(version)
        print(f"Kafka {folders.version} definitions:")
        print(f"  messages  {folders.messages}")
        for folder in folders.internal:
            print(f"  internal  {folder}")
        print(f"  metadata  {folders.metadata} (Kafka {folders.metadata_version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
