"""The `pylog` command: `serve` starts and answers on a real socket; `dump-log` reaches storage's tool."""

import contextlib
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

import pytest

from protocol import headers
from protocol.messages import ApiVersionsRequest, RequestHeader
from protocol.records import build_batch, stamp_base_offset
from pylog.cli import UsageError, parse_options

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@contextlib.contextmanager
def serve(*args: str, **popen_kwargs):
    """`pylog serve ARGS` as a child process (stdout piped, stderr piped unless given);
    killed on the way out if the test left it running."""
    popen_kwargs.setdefault("stderr", subprocess.PIPE)
    process = subprocess.Popen([sys.executable, "-m", "pylog", "serve", *args], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True, **popen_kwargs)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def stop_cleanly(process) -> None:
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0


def run_pylog(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "pylog", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, **kwargs)


def test_dump_log_from_console_script(tmp_path):
    segment = bytearray()
    for base_offset in (0, 2):
        batch = bytearray(build_batch([(b"k", b"v1"), (b"k", b"v2")], timestamp_ms=1_700_000_000_000))
        stamp_base_offset(batch, 0, base_offset)
        segment += batch
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(segment)
    result = run_pylog("dump-log", "--print-data-log", str(path))
    assert result.returncode == 0, result.stderr
    batch_lines = [line for line in result.stdout.splitlines() if line.startswith("baseOffset:")]
    assert [re.search(r"baseOffset: (\d+) lastOffset: (\d+)", line).groups() for line in batch_lines] == [
        ("0", "1"), ("2", "3")]
    assert result.stdout.count("payload: v2") == 2


def test_serve_prints_ready_line_and_answers_api_versions(tmp_path):
    with serve("--port", "0", "--data-dir", str(tmp_path / "data")) as process:
        line = process.stdout.readline()
        match = re.match(r"pylog ready on ([\d.]+):(\d+)", line)
        assert match, line
        host, port = match.group(1), int(match.group(2))
        with socket.create_connection((host, port), timeout=10) as sock:
            header = RequestHeader(request_api_key=18, request_api_version=3, correlation_id=42, client_id="t")
            payload = headers.encode_request(header, ApiVersionsRequest(client_software_name="t",
                                                                        client_software_version="1"))
            sock.sendall(struct.pack(">i", len(payload)) + payload)
            size, = struct.unpack(">i", _read_exactly(sock, 4))
            response_header, body = headers.decode_response(18, 3, _read_exactly(sock, size))
        assert response_header.correlation_id == 42
        assert body.error_code == 0
        assert any(api.api_key == 18 for api in body.api_keys)
        stop_cleanly(process)


def _read_exactly(sock, size):
    data = b""
    deadline = time.monotonic() + 10
    while len(data) < size and time.monotonic() < deadline:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    assert len(data) == size
    return data


def _auto_create_topic(process, name: str):
    """Wait for `process`'s ready line, then a Metadata v9 request that auto-creates `name`:
    the topic's answer."""
    from protocol.messages import MetadataRequest
    from tests.pylog.wire import RawClient

    match = re.match(r"pylog ready on ([\d.]+):(\d+)", process.stdout.readline())
    assert match
    client = RawClient(f"{match.group(1)}:{match.group(2)}")
    request = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)],
                              allow_auto_topic_creation=True)
    try:
        return client.request(3, 9, request).topics[0]
    finally:
        client.close()


def test_serve_reads_server_properties_and_overrides(tmp_path):
    """A Kafka server.properties is read as it is; --override wins over it."""
    properties = tmp_path / "server.properties"
    properties.write_text("# a Kafka-style file\nnum.partitions=3\nauto.create.topics.enable=false\n"
                          f"log.dirs={tmp_path / 'from-file'}\n")
    with serve("--port", "0", "--config", str(properties), "--override", "auto.create.topics.enable=true") as process:
        topic = _auto_create_topic(process, "auto")
        assert topic.error_code == 0 and len(topic.partitions) == 3
        assert (tmp_path / "from-file" / "auto-2").is_dir()
        stop_cleanly(process)
        assert (tmp_path / "from-file" / ".kafka_cleanshutdown").exists()


def _serve_log(tmp_path, *overrides):
    """The log `pylog serve` writes up to its ready line, with these --override settings."""
    log_path = tmp_path / "serve.log"
    args = ["--port", "0", "--data-dir", str(tmp_path / "data")]
    for override in overrides:
        args += ["--override", override]
    with open(log_path, "w") as log_file, serve(*args, stderr=log_file) as process:
        assert re.match(r"pylog ready on ", process.stdout.readline())
        stop_cleanly(process)
    return log_path.read_text()


NOT_ACTED_ON = "accepted but not acted on yet"


def test_serve_names_the_given_settings_it_does_not_act_on(tmp_path):
    log = _serve_log(tmp_path, "log.retention.hours=1", "num.io.threads=4", "broker.rack=r1",
                     "num.partitions=2", "log.cleaner.threads=2")
    lines = [line for line in log.splitlines() if NOT_ACTED_ON in line]
    assert len(lines) == 1, log
    assert lines[0].endswith(": broker.rack=r1, num.io.threads=4"), lines[0]   # the others are acted on


def test_serve_says_nothing_of_settings_it_acts_on_or_left_at_their_default(tmp_path):
    # num.partitions is acted on; log.retention.hours=168 is the default, so it changes nothing
    log = _serve_log(tmp_path, "num.partitions=2", "log.retention.hours=168")
    assert NOT_ACTED_ON not in log, log  # (the test above shows the log is captured)


def _soft_open_files_limit(pid: int) -> int:
    with open(f"/proc/{pid}/limits") as limits:
        line = next(line for line in limits if line.startswith("Max open files"))
    return int(line.split()[3])


def test_serve_raises_its_open_files_limit_to_the_hard_limit(tmp_path):
    """As the JVM does for Kafka (MaxFDLimit): started under a soft limit of 64 open files,
    `pylog serve` runs with the hard limit, and hosts 80 partitions (a descriptor each for
    the active segment's .log; before Python 3.13, two more once its indexes are mapped)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert hard > 64 + 3 * 80, "this test needs a hard limit of open files above 304"
    with serve("--port", "0", "--data-dir", str(tmp_path / "data"), "--override", "num.partitions=80",
               preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))) as process:
        topic = _auto_create_topic(process, "many")
        assert _soft_open_files_limit(process.pid) == hard
        assert topic.error_code == 0 and len(topic.partitions) == 80
        assert all(partition.error_code == 0 for partition in topic.partitions)
        assert len(os.listdir(f"/proc/{process.pid}/fd")) > 64
        stop_cleanly(process)


# Runs `pylog serve` in this interpreter with a thread that reports the collector's state:
# once the broker's module is imported (the start is under way), and once the collector is
# on again, with how many objects were frozen.
GC_WATCHER = """
import gc, sys, threading, time
import pylog.cli

def watch():
    while "pylog.broker" not in sys.modules:
        time.sleep(0.0005)
    print(f"during start: enabled={gc.isenabled()}", file=sys.stderr, flush=True)
    while not gc.isenabled():
        time.sleep(0.001)
    print(f"after: frozen={gc.get_freeze_count()}", file=sys.stderr, flush=True)

threading.Thread(target=watch, daemon=True).start()
sys.exit(pylog.cli.main(sys.argv[1:]))
"""


def test_serve_starts_with_the_collector_paused_then_freezes_and_turns_it_on(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-c", GC_WATCHER, "serve", "--port", "0", "--data-dir", str(tmp_path / "data")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().startswith("pylog ready on ")
        reports = []
        while len(reports) < 2:
            line = process.stderr.readline()
            assert line, "the watcher's reports did not come"
            if line.startswith(("during start:", "after:")):
                reports.append(line.strip())
        assert reports[0] == "during start: enabled=False"
        frozen = int(reports[1].removeprefix("after: frozen="))
        assert frozen > 10_000   # the modules, classes and functions of the start, at least
        stop_cleanly(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_parse_options_reads_both_flag_forms_repeats_and_defaults():
    args = parse_options("serve", ["--port", "0", "--data-dir=/d", "--override", "a=1", "--override=b=2"])
    assert (args.host, args.port, args.data_dir, args.config, args.override) == (None, 0, "/d", None, ["a=1", "b=2"])
    assert parse_options("serve", []).override == []   # the repeats above went to a list of their own
    assert parse_options("cluster", []).brokers == 3


def test_parse_options_refuses_unknown_flags_bad_values_and_missing_values():
    for argv, message in ((["--bogus"], "unrecognized argument: --bogus"),
                          (["--port", "x"], "argument --port: invalid int value: 'x'"),
                          (["--host"], "argument --host: expected one argument")):
        with pytest.raises(UsageError) as refused:
            parse_options("serve", argv)
        assert str(refused.value) == message


def test_command_line_errors_exit_2_and_help_exits_0():
    assert run_pylog().returncode == 2
    refused = run_pylog("serve", "--port", "x")
    assert refused.returncode == 2
    assert "pylog serve: error: argument --port: invalid int value: 'x'" in refused.stderr
    helped = run_pylog("serve", "--help")
    assert helped.returncode == 0 and "--override OVERRIDE" in helped.stdout


def test_reading_the_serve_options_imports_no_argparse():
    # argparse (with gettext, and shutil for its help formatter) is several ms of a start
    probe = ("import sys, pylog.cli; pylog.cli.parse_options('serve', ['--port', '0']); "
             "print(sorted({'argparse', 'gettext', 'shutil'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
