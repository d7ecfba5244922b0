"""Reading `server.properties`: the `java.util.Properties` text format, and `--override`s.

    parse_properties("a=1\\nb : two")       -> {"a": "1", "b": "two"}
    load_properties("server.properties")    -> the same, from a file
    parse_overrides(["log.dirs=/tmp/x"])    -> {"log.dirs": "/tmp/x"}

A file is read as UTF-8, falling back to ISO-8859-1 (Java reads ISO-8859-1 only; `\\uXXXX`
escapes work in both). Values stay text; BrokerConfig types them. A malformed escape or
override raises InvalidConfig. Stateless.
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterable, Mapping

from storage.errors import InvalidConfig

__all__ = ["parse_properties", "load_properties", "decode_properties", "parse_overrides"]

_WHITESPACE = " \t\f"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def parse_properties(text: str) -> dict[str, str]:
    """Parse text in `java.util.Properties` format into an ordered dict (last key wins).

    Lines end at \\n, \\r or \\r\\n. Leading blanks are skipped; a line whose first
    non-blank character is '#' or '!' is a comment. A line ending in an odd number of
    backslashes continues on the next line, whose leading blanks are dropped. The key ends
    at the first unescaped '=', ':' or blank; blanks and one '=' or ':' after it are skipped,
    and the rest of the line is the value. Escapes: \\t \\n \\r \\f \\uXXXX, and a backslash
    before any other character stands for that character.
    """
    lines = re.split(r"\r\n|\r|\n", text)
    result: dict[str, str] = {}
    i = 0
    while i < len(lines):
        lineno = i + 1
        logical = lines[i].lstrip(_WHITESPACE)
        i += 1
        if not logical or logical[0] in "#!":
            continue
        while _ends_with_odd_backslashes(logical):
            logical = logical[:-1]
            if i >= len(lines):
                break
            logical += lines[i].lstrip(_WHITESPACE)
            i += 1
        key_text, value_text = _split_key_value(logical)
        key = _unescape(key_text, lineno)
        result[key] = _unescape(value_text, lineno, key)
    return result


def _ends_with_odd_backslashes(line: str) -> bool:
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def _split_key_value(line: str) -> tuple[str, str]:
    end = len(line)
    key_end = end
    value_start = end
    has_separator = False
    escaped = False
    for j, ch in enumerate(line):
        if not escaped and ch in "=:":
            key_end, value_start, has_separator = j, j + 1, True
            break
        if not escaped and ch in _WHITESPACE:
            key_end, value_start = j, j + 1
            break
        escaped = (ch == "\\") and not escaped
    while value_start < end:
        ch = line[value_start]
        if ch not in _WHITESPACE:
            if not has_separator and ch in "=:":
                has_separator = True
            else:
                break
        value_start += 1
    return line[:key_end], line[value_start:]


def _unescape(text: str, lineno: int, key: str | None = None) -> str:
    if "\\" not in text:
        return text
    out: list[str] = []
    j = 0
    while j < len(text):
        ch = text[j]
        j += 1
        if ch != "\\":
            out.append(ch)
            continue
        if j >= len(text):
            break  # a lone trailing backslash stands for nothing
        ch = text[j]
        j += 1
        if ch == "u":
            digits = text[j:j + 4]
            if len(digits) != 4 or not re.fullmatch(r"[0-9A-Fa-f]{4}", digits):
                raise InvalidConfig(key, f"malformed \\uXXXX escape on line {lineno}")
            out.append(chr(int(digits, 16)))
            j += 4
        else:
            out.append(_ESCAPES.get(ch, ch))
    return "".join(out)


def decode_properties(data: bytes) -> str:
    """The text of a properties file: UTF-8, or ISO-8859-1 when it is not valid UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")


def load_properties(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read a properties file (UTF-8, or ISO-8859-1 when not valid UTF-8)."""
    with open(path, "rb") as f:
        return parse_properties(decode_properties(f.read()))


def parse_overrides(
    overrides: Mapping[str, Any] | Iterable[str | tuple[str, Any]] | None,
) -> dict[str, Any]:
    """Overrides as a dict: a mapping as is, or `["key=value", ...]` (split at the first
    '='; the key is stripped, the value kept), or `[(key, value), ...]`."""
    if overrides is None:
        return {}
    if isinstance(overrides, Mapping):
        return {str(k).strip(): v for k, v in overrides.items()}
    if isinstance(overrides, (str, bytes)):
        raise TypeError("overrides must be a mapping or a list of 'key=value' strings")
    result: dict[str, Any] = {}
    for item in overrides:
        if isinstance(item, tuple) and len(item) == 2:
            key, value = item
        elif isinstance(item, str):
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise InvalidConfig(None, f"an override must look like key=value, got {item!r}")
        else:
            raise TypeError(f"an override must be 'key=value' or (key, value), got {item!r}")
        result[str(key).strip()] = value
    return result
