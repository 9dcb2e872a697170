"""TensorInfo: the header-level facts about one tensor, as every layer of the API sees them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eagle3_inspect.reader.dtypes import FLOAT_DTYPES


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
        return {
            "name": self.name,
            "dtype": self.dtype,
            "shape": list(self.shape),
            "nbytes": self.nbytes,
            "file": self.file,
            "offset": self.offset,
        }
