"""The one table of safetensors dtypes on the Python side: bits per element, float or not, and
the numpy (or ml_dtypes) dtype that views it; plus the config `torch_dtype` names. The Rust core
has its own (`dtype.rs`); `tests/reader/test_dtypes.py` keeps the two in step."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dtype:
    """One safetensors header dtype."""

    name: str
    bits: int
    is_float: bool
    numpy: str | None = None  # a numpy dtype name, when numpy has the type itself
    ml_dtypes: str | None = None  # the ml_dtypes attribute, for bf16 / fp8 / fp6 / fp4

    @property
    def packed(self) -> bool:
        """Sub-byte types are stored packed; numpy holds them one element per byte."""
        return self.bits < 8


DTYPES: dict[str, Dtype] = {
    d.name: d
    for d in (
        Dtype("BOOL", 8, False, numpy="bool"),
        Dtype("U8", 8, False, numpy="uint8"),
        Dtype("I8", 8, False, numpy="int8"),
        Dtype("U16", 16, False, numpy="uint16"),
        Dtype("I16", 16, False, numpy="int16"),
        Dtype("U32", 32, False, numpy="uint32"),
        Dtype("I32", 32, False, numpy="int32"),
        Dtype("U64", 64, False, numpy="uint64"),
        Dtype("I64", 64, False, numpy="int64"),
        Dtype("F16", 16, True, numpy="float16"),
        Dtype("F32", 32, True, numpy="float32"),
        Dtype("F64", 64, True, numpy="float64"),
        Dtype("C64", 64, False, numpy="complex64"),
        Dtype("BF16", 16, True, ml_dtypes="bfloat16"),
        Dtype("F8_E4M3", 8, True, ml_dtypes="float8_e4m3fn"),
        Dtype("F8_E5M2", 8, True, ml_dtypes="float8_e5m2"),
        Dtype("F8_E8M0", 8, True, ml_dtypes="float8_e8m0fnu"),
        Dtype("F8_E4M3FNUZ", 8, True, ml_dtypes="float8_e4m3fnuz"),
        Dtype("F8_E5M2FNUZ", 8, True, ml_dtypes="float8_e5m2fnuz"),
        Dtype("F4", 4, True, ml_dtypes="float4_e2m1fn"),
        Dtype("F6_E2M3", 6, True, ml_dtypes="float6_e2m3fn"),
        Dtype("F6_E3M2", 6, True, ml_dtypes="float6_e3m2fn"),
    )
}

# The floating-point dtypes (the others are integer, bool and complex buffers such as d2t, t2d).
FLOAT_DTYPES = frozenset(name for name, d in DTYPES.items() if d.is_float)
PACKED = frozenset(name for name, d in DTYPES.items() if d.packed)

# config.json `torch_dtype` -> safetensors dtype, for the weight dtypes drafters are saved in.
TORCH_DTYPES = {"bfloat16": "BF16", "float16": "F16", "float32": "F32"}


def from_torch_dtype(value: object) -> str | None:
    """The safetensors dtype of a config `torch_dtype` ("bfloat16", "torch.float16"), or None."""
    return TORCH_DTYPES.get(str(value).removeprefix("torch."))
