"""`TensorStats`: per-tensor statistics from the native engine, and the API call that runs it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from eagle3_inspect import _native
from eagle3_inspect.jsontext import encode_record
from eagle3_inspect.reader.stats_map import StatsByName
from eagle3_inspect.records import fast_builder, shape_of

if TYPE_CHECKING:
    from eagle3_inspect._native import StatsColumns

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
        """The `"stats"` object of a scan row (`SHAPE`): JSON_FIELDS, then the other fields
        that are set. A float whose true value is outside f64's range is written "inf" / "-inf"
        / "nan" (strict JSON; only `l2` can get there: mean and std of finite values are always
        finite); the attribute keeps the float."""
        return SHAPE.to_dict(self)

    def to_json(self) -> str:
        """`to_dict()` as one compact JSON record."""
        return encode_record(SHAPE.to_dict(self))


# The stable block first, then the fields a tensor has (`dtype` is the TensorInfo's).
SHAPE = shape_of(TensorStats, first=JSON_FIELDS, exclude=("dtype",), omit_none=True)
_FIELD_ORDER = tuple(f.name for f in fields(TensorStats))
# TensorStats(*row), built about 8x faster (a million of them for a large header).
_build_stats = fast_builder(TensorStats)


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
    # Columns of numbers (no objects the collector tracks): no pause of the collector needed.
    columns = _native.tensor_stats(
        native,
        None if names is None else list(names),
        hashes=hashes,
        threads=threads,
        progress=progress,
    )
    names_column: Sequence[str] = (columns.pop("name") or []) if names is not None else readable
    return stats_of_columns(list(names_column), columns)


def stats_of_columns(names: list[str], columns: StatsColumns) -> StatsByName:
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
