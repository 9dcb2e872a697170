"""`fast_builder`: a cheap constructor for the frozen slotted dataclasses built once per tensor
(TensorInfo, TensorStats, Finding).

A frozen dataclass's `__init__` stores each field through `object.__setattr__` (its own
`__setattr__` refuses): about 0.15 us a field, 2.6 us for the 18 fields of a TensorStats, seconds
over a million-tensor header. The builder is a plain slotted class with the same slots, whose
`__init__` stores the fields directly and then turns the instance into the frozen class (CPython
allows `__class__` assignment between classes of identical slot layout): the result is an ordinary
instance of the frozen class, equal to one its own `__init__` builds, about 8x faster to make.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def fast_builder(cls: type[T]) -> type[T]:
    """A callable with `cls`'s constructor signature (fields positionally or by name, the same
    defaults) returning `cls` instances. Only for frozen slotted dataclasses whose fields have
    plain defaults (no factories) and no `__post_init__`: anything else raises TypeError."""
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
    )  # type: ignore[return-value]
