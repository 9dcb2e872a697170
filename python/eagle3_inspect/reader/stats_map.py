"""`StatsByName`: the result of a stats pass (name -> TensorStats, an ordinary dict) that also
keeps the pass's native columns, so a report's JSON can be written from the columns in one native
call (`records_json.py`) instead of a `to_json()` per tensor.

The columns describe the dict only while the dict is as the pass left it: every Python-level
change drops them, after which writers take the per-object way. Copies and pickles are plain
dicts (the columns stay with the pass's own result)."""

from __future__ import annotations

from typing import Any


class StatsByName(dict):  # type: ignore[type-arg]
    """name -> TensorStats, with the columns it was built from (see the module doc)."""

    __slots__ = ("_columns", "_names")

    def __init__(self, items: Any, names: list[str], columns: dict[str, list[Any] | None]) -> None:
        super().__init__(items)
        self._names: list[str] | None = names
        self._columns: dict[str, list[Any] | None] | None = columns

    def columns(self) -> tuple[list[str], dict[str, list[Any] | None]] | None:
        """(names, columns): row i of each column is the tensor `names[i]`; None once changed."""
        if self._names is None or self._columns is None:
            return None
        return self._names, self._columns

    def _changed(self) -> None:
        self._names = self._columns = None

    def __setitem__(self, key: str, value: Any) -> None:
        self._changed()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._changed()
        super().__delitem__(key)

    def __ior__(self, other: Any) -> StatsByName:
        self._changed()
        return super().__ior__(other)  # type: ignore[no-any-return]

    def pop(self, *args: Any) -> Any:
        self._changed()
        return super().pop(*args)

    def popitem(self) -> Any:
        self._changed()
        return super().popitem()

    def clear(self) -> None:
        self._changed()
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._changed()
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._changed()
        return super().setdefault(key, default)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


def stats_columns(stats: Any) -> tuple[list[str], dict[str, list[Any] | None]] | None:
    """The columns behind `stats` when it is an unchanged `StatsByName`, else None."""
    return stats.columns() if type(stats) is StatsByName else None
