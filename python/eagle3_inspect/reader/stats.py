"""`TensorStats`: per-tensor statistics from the native engine, and the API call that runs it."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from eagle3_inspect import _native
from eagle3_inspect.frozen import fast_builder
from eagle3_inspect.jsontext import encode_record, json_str
from eagle3_inspect.reader.bulk import paused_gc
from eagle3_inspect.reader.stats_map import StatsByName

ProgressCallback = Callable[[int, int], Any]

# The most worker threads a data pass accepts (the core refuses more, InvalidArgumentError).
MAX_THREADS: int = _native.MAX_THREADS

# The stable `"stats"` block of `scan --json` (extra fields follow it in to_dict()).
JSON_FIELDS = (
    "numel",
    "nan",
    "posinf",
    "neginf",
    "zeros",
    "min",
    "max",
    "mean",
    "std",
    "abs_max",
    "l2",
)

# How a float statistic whose true value is outside f64's range appears in JSON (which has no
# Infinity/NaN): as one of these strings. Only `l2` can get there (mean and std of finite values
# are always finite); the Python attributes keep the float.
NON_FINITE_JSON = {math.inf: "inf", -math.inf: "-inf"}


def json_float(value: Any) -> Any:
    """`value` as valid JSON: non-finite floats become "inf", "-inf" or "nan"."""
    if not isinstance(value, float) or math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else NON_FINITE_JSON[value]


@dataclass(frozen=True, slots=True)
class TensorStats:
    """Statistics of one tensor, computed in one fused pass over its bytes.

    Value statistics (min .. l2) are over finite elements and None when there are none. Integer
    tensors also carry exact `int_min`, `int_max`, `int_sum`; BOOL carries `true_count`; C64 is
    summarised by magnitudes. `hash` is the xxh3-128 tree hash (6 MiB leaves) of the bytes.
    """

    dtype: str
    numel: int
    nan: int
    posinf: int
    neginf: int
    zeros: int
    finite: int
    min: float | None
    max: float | None
    mean: float | None
    std: float | None
    abs_max: float | None
    l2: float | None
    int_min: int | None = None
    int_max: int | None = None
    int_sum: int | None = None
    true_count: int | None = None
    hash: str | None = None

    def to_dict(self) -> dict[str, Any]:
        # Field by field, not dataclasses.asdict (a deep copy): a report may hold millions.
        # Spelled out in JSON_FIELDS then _EXTRA_FIELDS order (a test keeps them in step): about
        # 3x faster than a comprehension over getattr.
        ordered = {
            "numel": self.numel,
            "nan": self.nan,
            "posinf": self.posinf,
            "neginf": self.neginf,
            "zeros": self.zeros,
            "min": self.min,
            "max": self.max,
            "mean": self.mean,
            "std": self.std,
            "abs_max": self.abs_max,
            "l2": self.l2,
        }
        for k in _FLOAT_FIELDS:
            v = ordered[k]
            if v is not None and not -math.inf < v < math.inf:
                ordered[k] = json_float(v)
        if self.finite is not None:
            ordered["finite"] = self.finite
        if self.int_min is not None:
            ordered["int_min"] = self.int_min
        if self.int_max is not None:
            ordered["int_max"] = self.int_max
        if self.int_sum is not None:
            ordered["int_sum"] = self.int_sum
        if self.true_count is not None:
            ordered["true_count"] = self.true_count
        if self.hash is not None:
            ordered["hash"] = self.hash
        return ordered

    def to_json(self) -> str:
        """`to_dict()` as one compact JSON record, byte for byte what the encoder writes (a
        million of them for a large header)."""
        # The usual record, a float tensor's (exact ints, finite exact floats, no integer
        # extras), spelled by repr(), which is what the encoder writes for exactly these types.
        # A sum of the floats that is not finite (an infinity, a NaN, or an overflow of finite
        # values, which merely takes the general way) says one of them may not be.
        mn, mx, mean, std, am, l2 = self.min, self.max, self.mean, self.std, self.abs_max, self.l2
        if (
            type(self.numel) is type(self.nan) is type(self.posinf) is int
            and type(self.neginf) is type(self.zeros) is type(self.finite) is int
            and type(mn) is type(mx) is type(mean) is type(std) is type(am) is type(l2) is float
            and self.int_min is None
            and self.int_max is None
            and self.int_sum is None
            and self.true_count is None
            and (mn + mx + mean + std + am + l2) * 0.0 == 0.0
            and (self.hash is None or type(self.hash) is str)
        ):
            text = (
                f'{{"numel": {self.numel!r}, "nan": {self.nan!r}, "posinf": {self.posinf!r}, '
                f'"neginf": {self.neginf!r}, "zeros": {self.zeros!r}, "min": {mn!r}, '
                f'"max": {mx!r}, "mean": {mean!r}, "std": {std!r}, "abs_max": {am!r}, '
                f'"l2": {l2!r}, "finite": {self.finite!r}'
            )
            if self.hash is None:
                return text + "}"
            return f'{text}, "hash": {json_str(self.hash)}}}'
        return self._general_json()

    def _general_json(self) -> str:
        """`to_json` for any values: through the C encoder as one list, whose items are then put
        beside their keys."""
        values = [
            self.numel,
            self.nan,
            self.posinf,
            self.neginf,
            self.zeros,
            self.min,
            self.max,
            self.mean,
            self.std,
            self.abs_max,
            self.l2,
            self.finite,
            self.int_min,
            self.int_max,
            self.int_sum,
            self.true_count,
            self.hash,
        ]
        try:
            parts = encode_record(values)[1:-1].split(", ")
        except ValueError:  # a non-finite float: to_dict() spells those as strings
            return encode_record(self.to_dict())
        # No value can hide a separator from the count, so 17 parts are the 17 values.
        if len(parts) != len(values):  # a value whose JSON holds ", " (a string, a list)
            return encode_record(self.to_dict())
        tail = ""
        if self.finite is not None:
            tail += ', "finite": ' + parts[11]
        if self.int_min is not None:
            tail += ', "int_min": ' + parts[12]
        if self.int_max is not None:
            tail += ', "int_max": ' + parts[13]
        if self.int_sum is not None:
            tail += ', "int_sum": ' + parts[14]
        if self.true_count is not None:
            tail += ', "true_count": ' + parts[15]
        if self.hash is not None:
            tail += ', "hash": ' + parts[16]
        return _JSON_TEMPLATE.format(*parts[:11], tail)


# The `to_json` text: the JSON_FIELDS and their values, then the extra fields present.
_JSON_TEMPLATE = "{{" + ", ".join(f'"{k}": {{}}' for k in JSON_FIELDS) + "{}}}"
_FIELD_ORDER = tuple(f.name for f in fields(TensorStats))
# TensorStats(*row), built about 8x faster (a million of them for a large header).
_build_stats = fast_builder(TensorStats)
_FLOAT_FIELDS = ("min", "max", "mean", "std", "abs_max", "l2")
_EXTRA_FIELDS = tuple(
    f.name for f in fields(TensorStats) if f.name not in JSON_FIELDS and f.name != "dtype"
)


def compute_stats(
    native: _native.NativeCheckpoint,
    names: Iterable[str] | None,
    *,
    hashes: bool = False,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
    readable: Sequence[str] = (),
) -> StatsByName:
    """Statistics of the tensors `names` of an open native checkpoint, in parallel with the GIL
    released. With `names` None, of every readable tensor, whose names in name order the caller
    passes as `readable` (the table's own strings become the keys: none made twice).

    `progress(done_bytes, total_bytes)` is called about every 100 ms; Ctrl-C raises
    KeyboardInterrupt within about a second."""
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    with paused_gc():
        columns = _native.tensor_stats(
            native,
            None if names is None else list(names),
            hashes=hashes,
            threads=threads,
            progress=progress,
        )
        names_column = columns.pop("name") if names is not None else readable
        return stats_of_columns(list(names_column), columns)


def stats_of_columns(names: list[str], columns: dict[str, Any]) -> StatsByName:
    """The `StatsByName` of native statistics columns (without their `name` column) for
    `names`, checked to be the columns `TensorStats` has, in its field order."""
    if tuple(columns) != _FIELD_ORDER:
        raise RuntimeError(f"native stats columns {list(columns)} != {list(_FIELD_ORDER)}")
    n = len(names)
    if any(c is not None and len(c) != n for c in columns.values()):
        raise RuntimeError("native stats columns differ in length")
    # The mapping is built from the columns when first read (scan's rows and the NUM rules
    # read the columns: no TensorStats built); a None column is None in every row.
    return StatsByName(names, columns, _build_stats)
