"""A handler's module is imported at the first request for its API, not at start."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from protocol import headers
from protocol.messages import DescribeClientQuotasRequest, RequestHeader
from pylog.dispatch import Api, Dispatcher, OnFirstRequest
from pylog.handlers import SERVED

pytestmark = pytest.mark.timeout(60)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Runs in a fresh interpreter: what a started broker has imported, before and after one
# Metadata request.
PROBE = """
import json, sys
from pylog.dispatch import OnFirstRequest
from pylog.handlers import SERVED
from pylog.testing import EmbeddedBroker
from protocol.messages import MetadataRequest
from tests.pylog.wire import RawClient

def state(broker):
    return {
        "modules": sorted({m for _, _, _, m, _ in SERVED if "pylog.handlers." + m in sys.modules}),
        "partition": "pylog.partition" in sys.modules,
        "deferred": sorted(key for key, api in broker.dispatcher.apis.items()
                           if isinstance(api.handler, OnFirstRequest)),
    }

embedded = EmbeddedBroker(sys.argv[1]).start()
try:
    started = embedded.call(lambda: state(embedded.broker))
    client = RawClient(embedded.bootstrap_servers)
    response = client.request(3, 12, MetadataRequest(topics=None))
    client.close()
    answered = embedded.call(lambda: state(embedded.broker))
finally:
    embedded.stop()
print(json.dumps({"started": started, "answered": answered, "brokers": len(response.brokers)}))
"""


def test_a_started_broker_has_imported_no_handler_and_the_first_request_imports_its_own(tmp_path):
    env = dict(os.environ, PYTHONPATH=REPO_ROOT)
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], env=env, cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=50)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    every_key = sorted(key for key, *_ in SERVED)
    assert seen["started"] == {"modules": [], "partition": False, "deferred": every_key}
    assert seen["brokers"] == 1
    assert seen["answered"]["modules"] == ["metadata"]
    assert seen["answered"]["deferred"] == [key for key in every_key if key != 3]


def test_every_served_api_names_a_factory_that_makes_a_handler():
    broker = SimpleNamespace()
    for key, low, high, module, factory in SERVED:
        assert 0 <= low <= high, key
        handler = getattr(importlib.import_module(f"pylog.handlers.{module}"), factory)(broker)
        assert inspect.iscoroutinefunction(handler), (key, module, factory)


def test_the_dispatcher_makes_a_deferred_handler_once_and_keeps_it():
    made = []

    def factory(broker):
        made.append(broker)
        return importlib.import_module("pylog.handlers.describe_client_quotas").make_handler(broker)

    module = SimpleNamespace(factory=factory)
    sys.modules["tests.pylog._deferred_probe"] = module
    try:
        dispatcher = Dispatcher([Api(48, 0, 1, OnFirstRequest("tests.pylog._deferred_probe", "factory", "b"))])
        header = RequestHeader(request_api_key=48, request_api_version=1, correlation_id=7, client_id="t")
        frame = headers.encode_request(header, DescribeClientQuotasRequest(components=[], strict=False))
        for _ in range(2):
            response = asyncio.run(dispatcher.handle(bytes(frame)))
            assert response is not None
        assert made == ["b"]
        assert inspect.iscoroutinefunction(dispatcher.apis[48].handler)
        assert (dispatcher.apis[48].min_version, dispatcher.apis[48].max_version) == (0, 1)
    finally:
        del sys.modules["tests.pylog._deferred_probe"]
