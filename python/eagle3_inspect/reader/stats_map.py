"""`StatsByName`: the result of a stats pass, a read-only mapping name -> TensorStats built from
the pass's native columns only when first read, and those columns, from which the report
writers work directly (`records_json.py` writes scan's rows, the NUM rules read the columns): a
million-tensor `scan --stats` or `validate` builds no TensorStats object at all.

It is a `Mapping`, not a `dict` subclass, on purpose: C code that reads a dict's own table
(orjson, the unbound `dict.keys(x)`) would see a lazily filled dict as empty or partial, silently;
a Mapping is either read through its methods, which build it, or refused. `dict(stats)` is the
plain dict; pickles and copies are plain dicts (what Ray tasks send back).
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from itertools import repeat
from typing import Any

from eagle3_inspect.reader.bulk import paused_gc

Columns = dict[str, "list[Any] | None"]


class StatsByName(Mapping[str, Any]):
    """name -> TensorStats of row i of each column for `names[i]` (see the module doc)."""

    __slots__ = ("_build", "_columns", "_dict", "_names")

    def __init__(self, names: list[str], columns: Columns, build: Callable[..., Any]) -> None:
        self._names: list[str] = names
        self._columns: Columns | None = columns
        self._build = build  # TensorStats(*row) from a row of the columns, in column order
        self._dict: dict[str, Any] | None = None

    @classmethod
    def of(cls, found: dict[str, Any]) -> StatsByName:
        """A mapping over `found` as it is, without columns (the writers go object by object)."""
        table = cls(list(found), {}, tuple)
        table._columns, table._dict = None, found
        return table

    def columns(self) -> tuple[list[str], Columns] | None:
        """(names, columns): row i of each column is the tensor `names[i]`; None when this
        mapping was not built from a pass's columns."""
        return None if self._columns is None else (self._names, self._columns)

    def without(self, names: Iterable[str]) -> StatsByName:
        """This mapping less `names` (a file that changed under the pass); the same object when
        none of them is in it."""
        drop = {n for n in names if n in self}
        if not drop:
            return self
        return StatsByName.of({k: v for k, v in self._filled().items() if k not in drop})

    def _filled(self) -> dict[str, Any]:
        if self._dict is None:
            columns = self._columns or {}
            n = len(self._names)
            values = [repeat(None, n) if c is None else c for c in columns.values()]
            with paused_gc():  # a million records, no cycles among them
                self._dict = dict(zip(self._names, map(self._build, *values), strict=True))
        return self._dict

    def __getitem__(self, key: str) -> Any:
        return self._filled()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._filled())

    def __len__(self) -> int:
        return len(self._names) if self._dict is None else len(self._dict)

    def __contains__(self, key: object) -> bool:
        return key in self._filled()

    def get(self, key: str, default: Any = None) -> Any:
        return self._filled().get(key, default)

    def keys(self) -> KeysView[str]:
        return self._filled().keys()

    def values(self) -> ValuesView[Any]:
        return self._filled().values()

    def items(self) -> ItemsView[str, Any]:
        return self._filled().items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StatsByName):
            return self._filled() == other._filled()
        if isinstance(other, Mapping):
            return self._filled() == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __or__(self, other: Any) -> Any:
        return self._filled() | dict(other)

    def __ror__(self, other: Any) -> Any:
        return dict(other) | self._filled()

    def __repr__(self) -> str:
        return f"StatsByName({self._filled()!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (self._filled(),))

    def __copy__(self) -> dict[str, Any]:
        return dict(self._filled())


def stats_columns(stats: Any) -> tuple[list[str], Columns] | None:
    """The columns behind `stats` when it is a `StatsByName` built from a pass, else None."""
    return stats.columns() if type(stats) is StatsByName else None
