"""Numpy views of safetensors dtypes (through ml_dtypes for bf16 / fp8 / fp4 / fp6; the table is
`dtypes.py`), and unpacking of the packed F4 / F6 codes."""

from __future__ import annotations

from typing import Any

import numpy as np

from eagle3_inspect.errors import MissingDependencyError
from eagle3_inspect.reader.dtypes import DTYPES, PACKED

__all__ = ["PACKED", "numpy_dtype", "unpack_codes"]


def numpy_dtype(dtype: str) -> np.dtype[Any]:
    """The numpy dtype for a safetensors dtype; MissingDependencyError when ml_dtypes is needed."""
    known = DTYPES.get(dtype)
    if known is not None and known.numpy is not None:
        little: np.dtype[Any] = np.dtype(known.numpy).newbyteorder("<")
        return little
    if known is None or known.ml_dtypes is None:
        raise MissingDependencyError(f"no numpy dtype for safetensors dtype {dtype!r}")
    try:
        import ml_dtypes
    except ImportError as exc:
        raise MissingDependencyError(
            f"reading {dtype} tensors as numpy arrays needs ml_dtypes: "
            "pip install 'eagle3-inspect[dtypes]' (or pip install ml_dtypes)"
        ) from exc
    found: np.dtype[Any] = np.dtype(getattr(ml_dtypes, known.ml_dtypes))
    return found


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
