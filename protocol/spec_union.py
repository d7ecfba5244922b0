"""One message definition out of two Kafka releases' definitions of it: the union of their versions.

Kafka 4.0 removed the oldest versions of many APIs (KIP-896: Produce 0-2, Fetch 0-3,
OffsetCommit 0-1, ...) and later releases add new ones on top. pylog serves both ends: the
versions old clients still send, and Kafka 4.1's newest. The generator therefore reads an
older release's JSON (the last to define every version from 0) and a newer one's, and
`union_spec(older, newer)` makes one definition that is each of them on its own versions:

- versions up to the older release's highest are the older definition's;
- versions above it are the newer definition's;
- where both define a version (Produce 3-11 in 3.9 and 4.1), they must agree on which
  fields exist, are nullable and are tagged at it; a disagreement (a field renamed, as
  VoteRequest's Candidate* fields) is a SchemaError unless the newer release covers all of
  the older one's versions, in which case the newer definition is taken whole.

Field by field (matched by name, recursively through nested and common structs):
`versions`, `nullableVersions` and `taggedVersions` are recomputed by that rule and must come
out contiguous; a field only the older release has keeps its place after the field that
precedes it there; `ignorable` is true if either release says so (the encoder may then drop
the field where a version lacks it); `type` must be the same; `tag`, `default` and
`flexibleVersions` are the newer release's when it has the field. The message's
`listeners`, `latestVersionUnstable` and `deprecatedVersions` are the newer release's.

Pure functions over parsed JSON (dicts); the result is a new dict, the inputs are not changed.
"""

from __future__ import annotations

import copy

OPEN = 0x7FFF  # "n+" as the top of a range


class SpecUnionError(ValueError):
    pass


def parse_range(text) -> tuple[int, int] | None:
    text = str(text).strip()
    if text in ("none", ""):
        return None
    if text.endswith("+"):
        return int(text[:-1]), OPEN
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def format_range(versions: tuple[int, int] | None) -> str:
    if versions is None:
        return "none"
    low, high = versions
    if high == OPEN:
        return f"{low}+"
    return str(low) if low == high else f"{low}-{high}"


def _contains(versions: tuple[int, int] | None, version: int) -> bool:
    return versions is not None and versions[0] <= version <= versions[1]


def union_spec(older: dict, newer: dict) -> dict:
    """The definition serving `older`'s versions as `older` and the rest as `newer`."""
    old_valid, new_valid = parse_range(older.get("validVersions")), parse_range(newer.get("validVersions"))
    if new_valid is None:
        return copy.deepcopy(older)
    if old_valid is None or new_valid[0] <= old_valid[0]:
        return copy.deepcopy(newer)   # the newer release defines every version the older one does
    merged = copy.deepcopy(newer)
    merged["validVersions"] = format_range((old_valid[0], max(old_valid[1], new_valid[1])))
    where = newer.get("name", "?")
    # the cut: versions <= split come from the older definition, the rest from the newer one
    context = (old_valid[1], new_valid[0], max(old_valid[1], new_valid[1]))
    merged["fields"] = _union_fields(older.get("fields", []), newer.get("fields", []), context, where)
    old_common = {s["name"]: s for s in older.get("commonStructs", [])}
    new_common = {s["name"]: s for s in newer.get("commonStructs", [])}
    commons = []
    for name in _ordered_names(list(old_common), list(new_common)):
        if name in old_common and name in new_common:
            struct = copy.deepcopy(new_common[name])
            struct["fields"] = _union_fields(old_common[name]["fields"], new_common[name]["fields"],
                                             context, f"{where}.{name}")
        else:
            struct = copy.deepcopy(new_common.get(name) or old_common[name])
        commons.append(struct)
    if commons:
        merged["commonStructs"] = commons
    return merged


def _ordered_names(old: list[str], new: list[str]) -> list[str]:
    """`new`'s order, with each name only `old` has placed after its predecessor in `old`."""
    out = list(new)
    for index, name in enumerate(old):
        if name in out:
            continue
        before = next((old[i] for i in range(index - 1, -1, -1) if old[i] in out), None)
        out.insert(0 if before is None else out.index(before) + 1, name)
    return out


def _union_fields(old_fields: list[dict], new_fields: list[dict], context, where: str) -> list[dict]:
    old = {f["name"]: f for f in old_fields}
    new = {f["name"]: f for f in new_fields}
    common = [name for name in old if name in new]
    if common != [name for name in new if name in old]:
        raise SpecUnionError(f"{where}: the two releases order their fields differently")
    fields = []
    for name in _ordered_names(list(old), list(new)):
        o, n = old.get(name), new.get(name)
        path = f"{where}.{name}"
        field = copy.deepcopy(n if n is not None else o)
        if o is not None and n is not None and o["type"].strip() != n["type"].strip():
            raise SpecUnionError(f"{path}: type {o['type']} in one release, {n['type']} in the other")
        field["versions"] = format_range(_union_range(o, n, "versions", "0+", context, path))
        for attr in ("nullableVersions", "taggedVersions"):
            versions = _union_range(o, n, attr, "none", context, path)
            if versions is None:
                field.pop(attr, None)
            else:
                field[attr] = format_range(versions)
        if (o or {}).get("ignorable") or (n or {}).get("ignorable"):
            field["ignorable"] = True
        if o is not None and n is not None and (o.get("fields") or n.get("fields")):
            field["fields"] = _union_fields(o.get("fields", []), n.get("fields", []), context, path)
        fields.append(field)
    return fields


def _union_range(old: dict | None, new: dict | None, attr: str, absent: str, context, path: str):
    split, new_low, top = context
    old_range = parse_range(old.get(attr, absent)) if old is not None else None
    new_range = parse_range(new.get(attr, absent)) if new is not None else None
    for version in range(new_low, split + 1):
        if _contains(old_range, version) != _contains(new_range, version):
            raise SpecUnionError(f"{path}: the releases disagree on {attr} at version {version}")
    present = [v for v in range(0, split + 1) if _contains(old_range, v)]
    present += [v for v in range(split + 1, top + 2) if _contains(new_range, v)]
    if not present:
        return None
    low, high = present[0], present[-1]
    if present != list(range(low, high + 1)):
        raise SpecUnionError(f"{path}: {attr} would not be one range of versions")
    # top + 1 stands for "every later version": present there only if the newer range is open
    return low, OPEN if high == top + 1 and _contains(new_range, OPEN) else high
