"""The per-tensor records (Finding, TensorInfo, TensorStats), each a frozen slotted dataclass
whose fields are the one definition of what it holds and of its JSON:

- `Shape`: a record class's JSON fields, derived from its dataclass fields (key = field name,
  how the value is written from its annotation). `to_dict()` is `shape.to_dict(record)`; the
  native writers (`rust/python/src/records`) spell the same shape at C speed (`shape.native`).
- `fast_builder`: a constructor with the class's own signature, about 8x faster than its
  `__init__` (a million records for a large header).
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")


class Kind(enum.IntEnum):
    """How a field's value is written (the numbers the native writers know)."""

    STR = 0  # str (or None)
    INT = 1  # int (or None)
    FLOAT = 2  # float (or None); a non-finite one as "inf", "-inf" or "nan" (strict JSON)
    INT_TUPLE = 3  # a tuple of ints, as a list
    ENUM = 4  # an enum member, as its value


# Annotation (as written, under `from __future__ import annotations`) -> kind.
KINDS = {
    "str": Kind.STR,
    "str | None": Kind.STR,
    "int": Kind.INT,
    "int | None": Kind.INT,
    "float | None": Kind.FLOAT,
    "tuple[int, ...]": Kind.INT_TUPLE,
    "Severity": Kind.ENUM,
}
NON_FINITE = {math.inf: "inf", -math.inf: "-inf"}


def json_float(value: Any) -> Any:
    """`value` as valid JSON: a non-finite float becomes "inf", "-inf" or "nan"."""
    if not isinstance(value, float) or -math.inf < value < math.inf:
        return value
    return "nan" if math.isnan(value) else NON_FINITE[value]


def _enum_value(member: enum.Enum) -> Any:
    return member.value


CONVERT: dict[Kind, Callable[[Any], Any]] = {
    Kind.FLOAT: json_float,
    Kind.INT_TUPLE: list,
    Kind.ENUM: _enum_value,
}


class Shape:
    """The JSON fields of one record class, in order: each `(name, kind, omit_none)`."""

    __slots__ = ("_convert", "_get", "_names", "_omit", "fields", "native")

    def __init__(self, fields: Iterable[tuple[str, Kind, bool]]) -> None:
        self.fields = tuple(fields)
        self._names = tuple(name for name, _, _ in self.fields)
        if len(self._names) < 2:  # attrgetter of one name returns the value, not a tuple
            raise ValueError("a record shape has two fields or more")
        self._get = attrgetter(*self._names)
        # Only the fields that need it are touched after the C-speed zip (a report may hold a
        # record per tensor of a million-tensor header).
        self._convert = tuple((n, CONVERT[k]) for n, k, _ in self.fields if k in CONVERT)
        self._omit = tuple(name for name, _, omit in self.fields if omit)
        # What the native writers take: `"name": ` text, attribute, kind, omit_none.
        self.native = tuple((f'"{n}": ', n, int(k), omit) for n, k, omit in self.fields)

    def to_dict(self, record: object) -> dict[str, Any]:
        """The record's JSON object (plain values, in field order)."""
        out = dict(zip(self._names, self._get(record), strict=True))
        for name, convert in self._convert:
            value = out[name]
            if value is not None:
                out[name] = convert(value)
        for name in self._omit:
            if out[name] is None:
                del out[name]
        return out


def shape_of(
    cls: type,
    *,
    first: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    omit_none: bool = False,
) -> Shape:
    """`cls`'s shape from its dataclass fields: `first` in that order, then the other fields in
    field order (left out when None if `omit_none`), less `exclude`."""
    annotations = {f.name: str(f.type) for f in dataclasses.fields(cls)}
    unknown = {n: a for n, a in annotations.items() if n not in exclude and a not in KINDS}
    if unknown:
        raise TypeError(f"{cls.__name__}: no JSON kind for {unknown}")
    rest = [n for n in annotations if n not in first and n not in exclude]
    return Shape(
        [(n, KINDS[annotations[n]], False) for n in first]
        + [(n, KINDS[annotations[n]], omit_none) for n in rest]
    )


def fast_builder(cls: type[T]) -> type[T]:
    """A callable with `cls`'s constructor signature (fields positionally or by name, the same
    defaults) returning `cls` instances, for frozen slotted dataclasses whose fields have plain
    defaults (no factories) and no `__post_init__` (anything else raises TypeError).

    A frozen dataclass's `__init__` stores each field through `object.__setattr__` (its own
    `__setattr__` refuses): about 0.15 us a field, seconds over a million-tensor header. The
    builder is a plain slotted class with the same slots whose `__init__` stores the fields
    directly and then turns the instance into `cls` (CPython allows `__class__` assignment
    between classes of identical slot layout): an ordinary `cls` instance, equal to one its own
    `__init__` builds."""
    params = dataclasses.fields(cls)  # type: ignore[arg-type]
    names = tuple(f.name for f in params)
    if getattr(cls, "__slots__", None) != names or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} is not a slotted dataclass without __post_init__")
    if any(f.default_factory is not dataclasses.MISSING for f in params):
        raise TypeError(f"{cls.__name__} has a field with a default factory")
    defaults = {f"_d_{f.name}": f.default for f in params if f.default is not dataclasses.MISSING}
    signature = ", ".join(
        f"{f.name}=_d_{f.name}" if f.default is not dataclasses.MISSING else f.name for f in params
    )
    body = "".join(f"    self.{n} = {n}\n" for n in names)
    namespace: dict[str, Any] = {"_target": cls, **defaults}
    source = f"def __init__(self, {signature}):\n{body}    self.__class__ = _target\n"
    exec(source, namespace)  # generated from the dataclass's own field names only
    return type(
        f"_{cls.__name__}Builder",
        (),
        {"__slots__": names, "__init__": namespace["__init__"], "__module__": cls.__module__},
    )
