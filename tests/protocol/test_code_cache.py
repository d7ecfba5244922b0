"""The codec's compiled code kept on disk (protocol/code_cache.py): an entry is read back
instead of compiling only when it holds the same source text; anything else compiles and
rewrites it; nothing is written where bytecode would not be."""

from __future__ import annotations

import os
import sys

import pytest

from protocol import code_cache, codec
from protocol.messages import MetadataRequest

TEXT = "def f(x):\n    return x + 1\n"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "codec"
    monkeypatch.setattr(code_cache, "CACHE_DIR", str(directory))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return directory


@pytest.fixture
def compile_calls(monkeypatch):
    """The texts the cache compiled (builtins.compile, seen through the module's global)."""
    calls = []

    def counting(text, filename, mode):
        calls.append(text)
        return compile(text, filename, mode)

    monkeypatch.setattr(code_cache, "compile", counting, raising=False)
    return calls


def _run(code) -> int:
    namespace: dict = {}
    exec(code, namespace)
    return namespace["f"](41)


def _entry(directory) -> str:
    (entry,) = os.listdir(directory)
    return os.path.join(directory, entry)


def test_an_entry_is_written_then_read_instead_of_compiling(cache_dir, compile_calls):
    first = code_cache.compiled(TEXT, "<test>", "k")
    assert compile_calls == [TEXT]
    assert os.path.basename(_entry(cache_dir)) == f"k.{sys.implementation.cache_tag}.bin"
    second = code_cache.compiled(TEXT, "<test>", "k")
    assert compile_calls == [TEXT]   # read back, not compiled
    assert second is not first and second.co_code == first.co_code and _run(second) == 42


def test_another_text_under_the_same_key_is_compiled_and_replaces_the_entry(cache_dir, compile_calls):
    code_cache.compiled(TEXT, "<test>", "k")
    changed = TEXT.replace("+ 1", "+ 2")
    assert _run(code_cache.compiled(changed, "<test>", "k")) == 43
    assert compile_calls == [TEXT, changed]
    assert _run(code_cache.compiled(changed, "<test>", "k")) == 43
    assert compile_calls == [TEXT, changed]


@pytest.mark.parametrize("damage", ["truncated", "other magic", "not marshal", "empty"])
def test_a_damaged_entry_is_a_miss_and_is_rewritten(cache_dir, compile_calls, damage):
    code_cache.compiled(TEXT, "<test>", "k")
    path = _entry(cache_dir)
    data = open(path, "rb").read()
    damaged = {"truncated": data[:len(data) // 2], "other magic": b"\0\0\0\0" + data[4:],
               "not marshal": data[:4] + b"\xff" * 20, "empty": b""}[damage]
    with open(path, "wb") as f:
        f.write(damaged)
    assert _run(code_cache.compiled(TEXT, "<test>", "k")) == 42
    assert compile_calls == [TEXT, TEXT]
    assert open(path, "rb").read() == data


def test_nothing_is_written_when_bytecode_is_not(cache_dir, compile_calls, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert _run(code_cache.compiled(TEXT, "<test>", "k")) == 42
    assert not cache_dir.exists()


def test_a_directory_that_cannot_be_made_leaves_compiling_as_it_was(tmp_path, monkeypatch, compile_calls):
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"")
    monkeypatch.setattr(code_cache, "CACHE_DIR", str(blocker / "codec"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert _run(code_cache.compiled(TEXT, "<test>", "k")) == 42
    assert _run(code_cache.compiled(TEXT, "<test>", "k")) == 42
    assert compile_calls == [TEXT, TEXT]
    assert os.listdir(tmp_path) == ["a-file"]


def test_the_codec_reads_its_functions_back_in_a_fresh_cache(cache_dir, compile_calls, monkeypatch):
    """A message's encoder and decoder, compiled once, then taken from the entries by a codec
    whose in-memory cache is empty (as in the next process), give the same bytes."""
    monkeypatch.setattr(codec, "_compiled", {})
    request = MetadataRequest(topics=None, allow_auto_topic_creation=True)
    wire = bytes(codec.encode(request, 12))
    assert codec.decode(MetadataRequest, wire, 12) == request
    assert len(compile_calls) == 2
    assert sorted(os.listdir(cache_dir)) == [
        f"{MetadataRequest.__module__}.MetadataRequest-v12-{direction}.{sys.implementation.cache_tag}.bin"
        for direction in ("decode", "encode")]
    monkeypatch.setattr(codec, "_compiled", {})
    assert bytes(codec.encode(request, 12)) == wire
    assert codec.decode(MetadataRequest, wire, 12) == request
    assert len(compile_calls) == 2
