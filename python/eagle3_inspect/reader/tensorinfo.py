"""TensorInfo: the header-level facts about one tensor, as every layer of the API sees them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eagle3_inspect.jsontext import encode_record
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES
from eagle3_inspect.records import shape_of


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """Name, dtype, shape and where the bytes live (absolute `offset` into `file`)."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    file: str
    offset: int

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOAT_DTYPES

    @property
    def numel(self) -> int:
        n = 1
        for dim in self.shape:
            n *= dim
        return n

    def to_dict(self) -> dict[str, Any]:
        """The tensor's JSON object (`SHAPE`)."""
        return SHAPE.to_dict(self)

    def to_json(self, stats: dict[str, Any] | None = None) -> str:
        """`to_dict()` as one compact JSON record; `stats`, a TensorStats's `to_dict()`, is
        added as its `"stats"` entry (a scan row)."""
        row = SHAPE.to_dict(self)
        if stats is not None:
            row["stats"] = stats
        return encode_record(row)


# The JSON of a TensorInfo: its fields, in order.
SHAPE = shape_of(TensorInfo)
