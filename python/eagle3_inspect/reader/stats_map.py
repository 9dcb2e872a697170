"""`StatsByName`: the result of a stats pass, a dict name -> TensorStats filled from the pass's
native columns only when first read, and those columns, from which the report writers work
directly (`tensor_json.py` writes scan's rows, the NUM rules read the columns): a million-tensor
`scan --stats` or `validate` builds no TensorStats object at all.

Every dict method fills the dict first (so any reader sees every entry: iteration, `len`,
`==`, `dict(...)`, `{**x}`, `json`, copies and pickles, which are plain dicts); every change also
drops the columns, which then no longer describe it, and the writers take the per-object way.
Only C code that reads a dict's own table without calling its methods (the unbound
`dict.keys(x)`) sees the unfilled dict: the first entry alone."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import repeat
from typing import Any

from eagle3_inspect.reader.bulk import paused_gc

Columns = dict[str, "list[Any] | None"]


class StatsByName(dict):  # type: ignore[type-arg]
    """name -> TensorStats of row i of each column for `names[i]` (see the module doc)."""

    __slots__ = ("_build", "_columns", "_filled", "_names")

    def __init__(self, names: list[str], columns: Columns, build: Callable[..., Any]) -> None:
        super().__init__()
        self._names: list[str] | None = names
        self._columns: Columns | None = columns
        self._build = build  # TensorStats(*row) from a row of the columns, in column order
        self._filled = False
        if names:
            # The first entry now: C code that tests a dict for emptiness by its own count
            # (the json encoder does) then reads it through `items()`, which fills it.
            row = (None if c is None else c[0] for c in columns.values())
            super().__setitem__(names[0], build(*row))

    def columns(self) -> tuple[list[str], Columns] | None:
        """(names, columns): row i of each column is the tensor `names[i]`; None once changed."""
        if self._names is None or self._columns is None:
            return None
        return self._names, self._columns

    def _fill(self) -> None:
        if self._filled:
            return
        self._filled = True
        if self._names is None or self._columns is None:
            return
        n = len(self._names)
        values = [repeat(None, n) if c is None else c for c in self._columns.values()]
        with paused_gc():  # a million records, no cycles among them
            super().update(zip(self._names, map(self._build, *values), strict=True))

    def _change(self) -> None:
        self._fill()
        self._names = self._columns = None

    # Reading: fill first.
    def __getitem__(self, key: str) -> Any:
        self._fill()
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._fill()
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self._fill()
        return super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        self._fill()
        return super().__iter__()

    def __reversed__(self) -> Iterator[str]:
        self._fill()
        return super().__reversed__()

    def __len__(self) -> int:
        self._fill()
        return super().__len__()

    def keys(self) -> Any:
        self._fill()
        return super().keys()

    def values(self) -> Any:
        self._fill()
        return super().values()

    def items(self) -> Any:
        self._fill()
        return super().items()

    def copy(self) -> dict[str, Any]:
        self._fill()
        return dict(super().items())

    def __eq__(self, other: object) -> bool:
        self._fill()
        if isinstance(other, StatsByName):
            other._fill()
        return super().__eq__(other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def __or__(self, other: Any) -> Any:
        return self.copy() | other

    def __ror__(self, other: Any) -> Any:
        return other | self.copy()

    def __repr__(self) -> str:
        self._fill()
        return super().__repr__()

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (self.copy(),))

    # Changing: fill, and drop the columns.
    def __setitem__(self, key: str, value: Any) -> None:
        self._change()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._change()
        super().__delitem__(key)

    def __ior__(self, other: Any) -> StatsByName:
        self._change()
        return super().__ior__(other)  # type: ignore[no-any-return]

    def pop(self, *args: Any) -> Any:
        self._change()
        return super().pop(*args)

    def popitem(self) -> Any:
        self._change()
        return super().popitem()

    def clear(self) -> None:
        self._change()
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._change()
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._change()
        return super().setdefault(key, default)


def stats_columns(stats: Any) -> tuple[list[str], Columns] | None:
    """The columns behind `stats` when it is an unchanged `StatsByName`, else None."""
    return stats.columns() if type(stats) is StatsByName else None
