"""The codec's compiled code kept on disk, as CPython keeps a module's bytecode.

`protocol/codec.py` writes Python source for each (message class, version, direction) it
is asked for and compiles it. Compiling is the costly part: about a millisecond for a
decoder of a few string fields, several for a large message, where writing the source
takes a tenth of that. A broker compiles a dozen of them before it can answer its first
request (the metadata log's records, the registration), and more at each API's first
use; a test suite that starts a broker per test pays that every time. So the code object
is kept, and the next process loads it instead:

    protocol/__pycache__/codec/<module>.<Class>-v<version>-<direction>.<cache tag>.bin

    magic      4 bytes   importlib.util.MAGIC_NUMBER: the interpreter's bytecode format
    payload    rest      marshal of (source text, code object)

An entry is used only when its source text is exactly the text just written, so a change
to a message's definition or to the compiler makes the entry miss and be written again:
there is no stale code to invalidate. Whatever goes wrong reading an entry (missing,
truncated, another interpreter's) is a miss.

Writing follows the interpreter's own rule for bytecode: not when `sys.dont_write_bytecode`
(PYTHONDONTWRITEBYTECODE, `python -B`), and not where the package's directory cannot be
written (a read-only install): then every process compiles, as it would without this
module. An entry is written to a temporary file and renamed into place, so processes
that start together (`pylog cluster`) never read a half-written one.
"""

from __future__ import annotations

import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from types import CodeType

CACHE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__", "codec")


def compiled(text: str, filename: str, key: str) -> CodeType:
    """The code of `text` compiled as a module (`filename` names it in tracebacks), from
    the entry `key` when that entry holds the same text, else compiled and kept there."""
    path = os.path.join(CACHE_DIR, f"{key}.{sys.implementation.cache_tag}.bin")
    code = _read(path, text)
    if code is None:
        code = compile(text, filename, "exec")
        if not sys.dont_write_bytecode:
            _write(path, text, code)
    return code


def _read(path: str, text: str) -> CodeType | None:
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data[:len(MAGIC_NUMBER)] != MAGIC_NUMBER:
            return None
        kept_text, code = marshal.loads(data[len(MAGIC_NUMBER):])
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return code if kept_text == text and isinstance(code, CodeType) else None


def _write(path: str, text: str, code: CodeType) -> None:
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(CACHE_DIR, exist_ok=True)
        with open(temporary, "wb") as f:
            f.write(MAGIC_NUMBER + marshal.dumps((text, code)))
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
