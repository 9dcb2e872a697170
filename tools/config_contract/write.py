"""The contract as TOML: per engine version, each entry point (draft class or config adapter)
with every field read (one inline table each: field, access, default, what it is used as, and
whether None reaches a use that raises, with file and lines) and every field the engine's own
code writes. Reads and writes are summarised here from the extractor's records."""

from __future__ import annotations

import json
from typing import Any

from config_contract.entries import Entry
from config_contract.model import RAISING, RANK, Read, Write

# What a raising use needs the value to be.
NEEDS = {
    "arithmetic": "number",
    "compare": "number",
    "shape": "int",
    "count": "int",
    "cast": "number",
    "length": "sized",
    "iterate": "iterable",
    "index": "indexable",
    "object": "object",
    "load": "str",
    "required": "present",
}


def summarise(read: Read) -> dict[str, Any]:
    """One read as a flat record (what the rules module loads)."""
    out: dict[str, Any] = {"field": read.ref.dotted, "access": read.access}
    if read.ref.root != "config":
        out["root"] = read.ref.root
    if read.guard:
        out["guard"] = read.guard
    if read.default is not None:
        out["default"] = read.default
    if read.default_field is not None:
        out["default_field"] = read.default_field
    if read.none_default is not None:
        out["none_default"] = read.none_default
    if read.engine_set:
        out["engine_set"] = True
    if read.caught:
        out["caught"] = True
    if read.when:
        out["when"] = list(read.when)
    if read.conditional:
        out["conditional"] = True
    raising = [u for u in read.uses if u.kind in RAISING and not u.guarded]
    none_safe = read.none_default is not None or read.engine_set
    chosen = min(raising, key=lambda u: (RANK[u.kind], u.line)) if raising else read.strongest()
    out["use"] = chosen.kind if chosen else "value"
    out["line"] = read.line
    if chosen is not None and (chosen.line != read.line or chosen.via):
        out["use_line"] = chosen.line
        if chosen.via:
            out["use_in"] = chosen.via
    if raising and not none_safe:
        out["raises_on_none"] = True
    if chosen is not None and chosen.kind in NEEDS:
        out["needs"] = NEEDS[chosen.kind]
    return out


def summarise_write(write: Write) -> dict[str, Any]:
    out: dict[str, Any] = {"field": write.ref.dotted}
    if write.ref.root != "config":
        out["root"] = write.ref.root
    if write.copy is not None:
        out["copy"] = write.copy
        if write.default is not None:
            out["default"] = write.default
    elif write.literal is not None:
        out["literal"] = write.literal
    else:
        out["computed"] = True
    if write.when:
        out["when"] = write.when
    if write.if_none:
        out["if_none"] = True
    out["line"] = write.line
    out["at"] = write.where
    return out


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def entry_lines(version: str, entry: Entry, reads: list[Read], writes: list[Write]) -> list[str]:
    """The TOML tables of one entry point: its writes, then its reads grouped by the engine
    function they are in (the entry's own file first)."""
    kind = "models" if entry.kind == "model" else "adapters"
    path = f'versions."{version}".{kind}.{_key(entry.name)}'
    lines = [f"[{path}]", f"file = {toml_value(entry.module.path)}"]
    if entry.architectures:
        lines.append(f"architectures = {toml_value(sorted(entry.architectures))}")
    if entry.algorithm:
        lines.append(f"algorithm = {toml_value(entry.algorithm)}")
    if writes:
        lines.append("writes = [")
        ordered = sorted(writes, key=lambda w: (w.where, w.line))
        lines += [f"  {toml_value(summarise_write(w))}," for w in ordered]
        lines.append("]")
    by_function: dict[str, list[Read]] = {}
    for read in sorted(reads, key=lambda r: (r.line, r.ref.dotted)):
        by_function.setdefault(read.where, []).append(read)
    own = entry.module.path
    for where in sorted(by_function, key=lambda w: (w.split(":")[0] != own, w)):
        lines += [f"[[{path}.functions]]", f"at = {toml_value(where)}", "reads = ["]
        lines += [f"  {toml_value(summarise(r))}," for r in by_function[where]]
        lines.append("]")
    return lines
