"""The same command against pylog and against Kafka, and the comparison of what each printed.

`OnBoth(kafka_tools, both, table, request)` runs a Kafka tool once per broker: every
`{bootstrap}` in the arguments (and in stdin) becomes that broker's address. `compare()`
masks what must differ between two brokers (the `MASKS`: topic ids, addresses, member ids,
client ids, timestamps), compares the two outputs line by line, records a row in the table
printed at the end of `make compat`, and fails the test at the first difference.

A test marked `xfail(strict=True, reason=...)` is a known difference: its row carries the
reason, and the test turns red the day the outputs start to match.
"""

from __future__ import annotations

import re

from tests.compat.tools import ToolResult, ToolRunner

BROKERS = ("pylog", "kafka")

# what must differ between two brokers, with what it becomes
MASKS = (
    (re.compile(r"TopicId: [A-Za-z0-9_-]{22}"), "TopicId: <topic-id>"),
    (re.compile(r"\b127\.0\.0\.1:\d+"), "<host:port>"),
    (re.compile(r"/127\.0\.0\.1\b"), "/<client-host>"),
    # member ids: "<client id>-<uuid>"
    (re.compile(r"\b[\w.-]*-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<member-id>"),
    # client ids the Java clients make up: console-consumer-12345, perf-consumer-12345,
    # consumer-<group>-<n>, producer-<n>
    (re.compile(r"\b(console-consumer|perf-consumer)-\d+\b"), r"\1-<n>"),
    (re.compile(r"\b(consumer|producer)-[\w.-]+?-\d+\b"), r"\1-<client-id>"),
    (re.compile(r"\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[:.,]\d{3}\b"), "<time>"),
)


def mask(text: str, extra=()) -> str:
    for pattern, replacement in (*MASKS, *extra):
        text = pattern.sub(replacement, text)
    return text


def first_difference(pylog_lines: list[str], kafka_lines: list[str]) -> str | None:
    for number, (ours, theirs) in enumerate(zip(pylog_lines, kafka_lines), 1):
        if ours != theirs:
            return f"line {number}: pylog {ours.strip()!r} / kafka {theirs.strip()!r}"
    if len(pylog_lines) != len(kafka_lines):
        shorter, name = (pylog_lines, "pylog") if len(pylog_lines) < len(kafka_lines) else (kafka_lines, "kafka")
        longer = kafka_lines if shorter is pylog_lines else pylog_lines
        return f"{name} printed {len(shorter)} lines, the other {len(longer)}; next: {longer[len(shorter)].strip()!r}"
    return None


def exception_lines(stderr: str) -> list[str]:
    """The messages of the exceptions a tool printed, without their stack frames."""
    return [line for line in stderr.splitlines()
            if line.strip() and not line.startswith(("\tat ", "\t... ")) and not line.lstrip().startswith("at ")]


def ended(result: ToolResult) -> str:
    return "exit 0" if result.code == 0 else f"exit {result.code}"


class OnBoth:
    """Kafka's tools against both brokers of the session, with the table's rows."""

    def __init__(self, tools: ToolRunner, brokers: dict, table, request):
        self.tools = tools
        self.brokers = brokers
        self.table = table
        self.request = request

    def run(self, script: str, *args: str, stdin: str = "", timeout_s: float = 60) -> dict[str, ToolResult]:
        results = {}
        for name in BROKERS:
            address = self.brokers[name].bootstrap_servers
            results[name] = self.tools.run(script, *(arg.replace("{bootstrap}", address) for arg in args),
                                           stdin=stdin.replace("{bootstrap}", address), timeout_s=timeout_s)
        return results

    def run_checked(self, script: str, *args: str, stdin: str = "", timeout_s: float = 60) -> dict[str, ToolResult]:
        """For a test's set-up: the command must succeed on both."""
        results = self.run(script, *args, stdin=stdin, timeout_s=timeout_s)
        for result in results.values():
            result.check()
        return results

    def compare(self, name: str, results: dict[str, ToolResult], *, lines=None, extra_masks=(),
                stderr: bool = False) -> dict[str, list[str]]:
        """Record the row and assert that the masked outputs are equal.

        `lines(result) -> list[str]` picks what to compare (default: every non-blank stdout
        line, and with `stderr` the exception messages too); the exit codes are compared
        as well."""
        def pick(result: ToolResult) -> list[str]:
            chosen = lines(result) if lines else result.lines + (exception_lines(result.stderr) if stderr else [])
            return [mask(line, extra_masks).rstrip() for line in chosen]

        picked = {broker: pick(results[broker]) for broker in BROKERS}
        difference = first_difference(picked["pylog"], picked["kafka"])
        if results["pylog"].code != results["kafka"].code:
            difference = f"exit {results['pylog'].code} on pylog, {results['kafka'].code} on kafka" + (
                f"; {difference}" if difference else "")
        marker = self.request.node.get_closest_marker("xfail")
        if difference is None:
            outcome = "same"
        elif marker is not None:
            outcome = f"differs (known: {marker.kwargs.get('reason', '')}): {difference}"
        else:
            outcome = f"differs: {difference}"
        self.table.record("tool", name, ended(results["pylog"]), ended(results["kafka"]), outcome)
        assert difference is None, f"{name}: {difference}\n--- pylog\n" + "\n".join(picked["pylog"]) + \
            "\n--- kafka\n" + "\n".join(picked["kafka"])
        return picked
