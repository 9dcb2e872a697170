"""Key-path diff of two JSON values (config.json, or a `__metadata__` map): which paths were
added, removed or changed. Paths join object keys with `.` and list indices as `[i]`."""

from __future__ import annotations

from typing import Any


def _same(a: Any, b: Any) -> bool:
    # JSON true is not 1 and 1 is 1.0: compare booleans by identity, numbers by value.
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def key_path_diff(a: Any, b: Any) -> dict[str, dict[str, Any]]:
    """`{"added": {path: b_value}, "removed": {path: a_value}, "changed": {path: [a, b]}}`.

    Objects recurse by key; lists of any length recurse by index (extra indices are added or
    removed); anything else, or a change of JSON type, is one changed path. The whole value
    changing at the root has the path `""`."""
    out: dict[str, dict[str, Any]] = {"added": {}, "removed": {}, "changed": {}}
    _walk(a, b, "", out)
    return {kind: dict(sorted(paths.items())) for kind, paths in out.items()}


def _walk(a: Any, b: Any, path: str, out: dict[str, dict[str, Any]]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            sub = _join(path, str(key))
            if key not in b:
                out["removed"][sub] = a[key]
            elif key not in a:
                out["added"][sub] = b[key]
            else:
                _walk(a[key], b[key], sub, out)
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            sub = f"{path}[{i}]"
            if i >= len(b):
                out["removed"][sub] = a[i]
            elif i >= len(a):
                out["added"][sub] = b[i]
            else:
                _walk(a[i], b[i], sub, out)
    elif not _same(a, b):
        out["changed"][path] = [a, b]


def is_empty(diff: dict[str, dict[str, Any]]) -> bool:
    return not any(diff.values())


def config_diff(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any]:
    """The `"config"` block: presence on each side plus the key-path diff of the two configs
    (a missing config compares as an empty object)."""
    return {
        "a_present": a is not None,
        "b_present": b is not None,
        **key_path_diff(a or {}, b or {}),
    }
