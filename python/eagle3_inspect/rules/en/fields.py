"""The pieces the profile schema is written with: `spec()` declares one dataclass field together
with its TOML key, its parser and its documentation; the parsers turn one TOML value into the
field's value or raise `ProfileError`; `parse_table` builds any schema dataclass from a TOML
table by walking its fields (so the parser is never written out by hand).

The parsers carry a `kind` (the type as the documentation shows it).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, TypeVar

from eagle3_inspect.rules.en.conditions import validate_term
from eagle3_inspect.rules.en.versions import parse_version

UNKNOWN_POLICIES = ("silent-drop", "error", "warn")
MISSING_POLICIES = ("random", "error")
CONVENTIONS = ("output-of", "input-of", "output-of-if-first-is-1")
CAPTURE_MAX = ("N", "N-1")
POSITION_POLICIES = ("", "draft", "target", "target-if-cache-only-rope", "refuse-longer-context")

T = TypeVar("T")


class SchemaError(ValueError):
    """A value does not follow the schema (re-raised as `ProfileError` by the profile parser)."""


class Parser:
    """One TOML value -> one field value; `kind` is the type as documented."""

    def __init__(self, kind: str, parse: Callable[[Any, str], Any]) -> None:
        self.kind = kind
        self._parse = parse

    def __call__(self, value: Any, where: str) -> Any:
        return self._parse(value, where)


def spec(
    doc: str,
    parser: Parser,
    *,
    default: Any = None,
    default_factory: Callable[[], Any] | None = None,
    required: bool = False,
    toml: str | None = None,
    table: str = "",
) -> Any:
    """A schema field: `toml` is its key (default: the field name), `table` the sub-table of the
    section it lives in (`names`, `config`; empty = the section itself)."""
    metadata = {"doc": doc, "parser": parser, "required": required, "toml": toml, "table": table}
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def schema_fields(cls: type) -> list[dataclasses.Field[Any]]:
    """The fields of `cls` that come from the file (those declared with `spec`)."""
    return [f for f in dataclasses.fields(cls) if "parser" in f.metadata]


def toml_key(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata["toml"] or f.name)


def _fail(where: str, message: str) -> SchemaError:
    return SchemaError(f"{where}: {message}")


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, "expected a string")
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(where, "expected a list of strings")
    return tuple(value)


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, "expected a boolean (true or false)")
    return value


def _regex(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, "pattern must be a string")
    try:
        re.compile(value)
    except re.error as exc:
        raise _fail(where, f"bad regex {value!r}: {exc}") from exc
    return value


def _regexes(value: Any, where: str) -> tuple[str, ...]:
    return tuple(_regex(v, where) for v in _strings(value, where))


def _when(value: Any, where: str) -> tuple[str, ...]:
    terms = _strings(value, where)
    for term in terms:
        try:
            validate_term(term)
        except ValueError as exc:
            raise _fail(where, str(exc)) from exc
    return terms


def _str_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _fail(where, "expected a table that maps strings to strings")
    return dict(value)


def _version(value: Any, where: str) -> tuple[int, int, int]:
    try:
        return parse_version(_string(value, where))
    except ValueError as exc:
        raise _fail(where, str(exc)) from exc


def _count(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise _fail(where, "expected a positive integer")
    return value


def _shift(value: Any, where: str) -> int:
    if value not in (0, 1) or isinstance(value, bool):
        raise _fail(where, "expected 0 or 1")
    return int(value)


def _optional_strs(value: Any, where: str) -> tuple[str, ...] | None:
    return None if value is None else _strings(value, where)


STRING = Parser("string", _string)
STRINGS = Parser("list of strings", _strings)
BOOLEAN = Parser("boolean", _boolean)
REGEX = Parser("regex", _regex)
REGEXES = Parser("list of regexes", _regexes)
CONDITIONS = Parser("list of conditions", _when)
STR_MAP = Parser("table of strings", _str_map)
VERSION = Parser("version string", _version)
OPTIONAL_STRINGS = Parser("list of strings", _optional_strs)
COUNT = Parser("positive integer", _count)
SHIFT = Parser("0 or 1", _shift)


def choice(options: tuple[str, ...]) -> Parser:
    shown = ", ".join(f"`{o}`" for o in options if o)

    def parse(value: Any, where: str) -> str:
        if value not in options:
            raise _fail(where, f"{value!r} is not one of {tuple(o for o in options if o)}")
        return str(value)

    return Parser(f"one of {shown}", parse)


def tables(cls: type, *, keyed: bool = False) -> Parser:
    """An array of tables (`[[x]]`), or with `keyed` a table of named tables (`[x.<name>]`),
    each parsed as a `cls`."""
    if keyed:

        def parse_keyed(value: Any, where: str) -> dict[str, Any]:
            if not isinstance(value, dict):
                raise _fail(where, "expected a table of tables")
            return {k: parse_table(cls, v, f"{where}.{k}") for k, v in value.items()}

        return Parser(f"tables of {cls.__name__}", parse_keyed)

    def parse_list(value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise _fail(where, "expected an array of tables")
        return tuple(parse_table(cls, item, f"{where}[{n}]") for n, item in enumerate(value))

    return Parser(f"array of {cls.__name__}", parse_list)


def _section(data: dict[str, Any], table: str, where: str) -> tuple[dict[str, Any], str]:
    if not table:
        return data, where
    node = data.get(table, {})
    if not isinstance(node, dict):
        raise _fail(f"{where}.{table}", "expected a table")
    return node, f"{where}.{table}"


def parse_table(cls: type[T], data: Any, where: str) -> T:
    """A `cls` from one TOML table: every key checked against the schema, every value parsed."""
    if not isinstance(data, dict):
        raise _fail(where, "expected a table")
    declared = schema_fields(cls)
    subtables = {str(f.metadata["table"]) for f in declared} - {""}
    allowed: dict[str, set[str]] = {"": subtables.copy()}
    for f in declared:
        allowed.setdefault(str(f.metadata["table"]), set()).add(toml_key(f))
    values: dict[str, Any] = {}
    for table, keys in allowed.items():
        node, at = _section(data, table, where)
        extra = set(node) - keys
        if extra:
            raise _fail(at, f"unknown keys {sorted(extra)}")
    for f in declared:
        node, at = _section(data, str(f.metadata["table"]), where)
        key = toml_key(f)
        if key not in node:
            if f.metadata["required"]:
                raise _fail(at, f"needs `{key}`")
            continue
        value = f.metadata["parser"](node[key], f"{at}.{key}")
        if isinstance(f.default, frozenset) or f.type == "frozenset[str]":
            value = frozenset(value)
        values[f.name] = value
    return cls(**values)
