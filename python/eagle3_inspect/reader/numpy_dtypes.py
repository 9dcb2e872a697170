"""Mapping safetensors dtypes to numpy dtypes (through ml_dtypes for bf16 / fp8 / fp4 / fp6)."""

from __future__ import annotations

import numpy as np

from eagle3_inspect.errors import MissingDependencyError

NATIVE = {
    "BOOL": np.bool_,
    "U8": np.uint8,
    "I8": np.int8,
    "U16": np.uint16,
    "I16": np.int16,
    "U32": np.uint32,
    "I32": np.int32,
    "U64": np.uint64,
    "I64": np.int64,
    "F16": np.float16,
    "F32": np.float32,
    "F64": np.float64,
    "C64": np.complex64,
}

# safetensors dtype -> ml_dtypes attribute name.
ML_DTYPES = {
    "BF16": "bfloat16",
    "F8_E4M3": "float8_e4m3fn",
    "F8_E5M2": "float8_e5m2",
    "F8_E8M0": "float8_e8m0fnu",
    "F8_E4M3FNUZ": "float8_e4m3fnuz",
    "F8_E5M2FNUZ": "float8_e5m2fnuz",
    "F4": "float4_e2m1fn",
    "F6_E2M3": "float6_e2m3fn",
    "F6_E3M2": "float6_e3m2fn",
}

# Sub-byte dtypes are stored packed; numpy holds them one element per byte.
PACKED = {"F4", "F6_E2M3", "F6_E3M2"}


def numpy_dtype(dtype: str) -> np.dtype:
    """The numpy dtype for a safetensors dtype; MissingDependencyError when ml_dtypes is needed."""
    if dtype in NATIVE:
        return np.dtype(NATIVE[dtype]).newbyteorder("<")
    if dtype not in ML_DTYPES:
        raise MissingDependencyError(f"no numpy dtype for safetensors dtype {dtype!r}")
    try:
        import ml_dtypes
    except ImportError as exc:
        raise MissingDependencyError(
            f"reading {dtype} tensors as numpy arrays needs ml_dtypes: "
            "pip install 'eagle3-inspect[dtypes]' (or pip install ml_dtypes)"
        ) from exc
    return np.dtype(getattr(ml_dtypes, ML_DTYPES[dtype]))


def unpack_codes(dtype: str, raw: np.ndarray, numel: int) -> np.ndarray:
    """Unpacks packed F4 (two per byte, low nibble first) or F6 (four per three bytes, little-endian
    bit order) codes into one uint8 code per element."""
    if dtype == "F4":
        codes = np.empty(raw.size * 2, dtype=np.uint8)
        codes[0::2] = raw & 0x0F
        codes[1::2] = raw >> 4
        return codes[:numel]
    groups = raw.reshape(-1, 3).astype(np.uint32)
    word = groups[:, 0] | (groups[:, 1] << 8) | (groups[:, 2] << 16)
    codes = np.stack([(word >> (6 * k)) & 0x3F for k in range(4)], axis=1).astype(np.uint8)
    return codes.reshape(-1)[:numel]
