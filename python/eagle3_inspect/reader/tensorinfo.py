"""TensorInfo: the header-level facts about one tensor, as every layer of the API sees them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eagle3_inspect.jsontext import encode_record, json_scalar, json_str
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES

_INT = {int}


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

    def to_json(self, stats: str | None = None) -> str:
        """`to_dict()` as one compact JSON record, byte for byte what the encoder writes, spelled
        directly (a million of them for a large header); `stats`, the JSON of a TensorStats, is
        added as the record's `"stats"` entry."""
        try:
            # repr() is the encoder's spelling of exact ints; anything else takes json_scalar.
            if type(self.nbytes) is type(self.offset) is int and {*map(type, self.shape)} <= _INT:
                shape, nbytes, offset = ", ".join(map(repr, self.shape)), self.nbytes, self.offset
            else:
                shape = ", ".join(map(json_scalar, self.shape))
                nbytes, offset = json_scalar(self.nbytes), json_scalar(self.offset)
            text = (
                f'{{"name": {json_str(self.name)}, "dtype": {json_str(self.dtype)}, '
                f'"shape": [{shape}], "nbytes": {nbytes}, '
                f'"file": {json_str(self.file)}, "offset": {offset}'
            )
        except TypeError:  # a field of another type (NotPlain is a TypeError): the encoder's way
            text = encode_record(self.to_dict())[:-1]
        return f'{text}, "stats": {stats}}}' if stats is not None else text + "}"
