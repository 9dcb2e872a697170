"""truth.json, as the tests read it: what torch.load(weights_only=True) (torch 2.15) and
picklescan said of each file of the torch corpus when generate.py wrote it."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# torch dtype -> the reader's (safetensors) spelling
DTYPES = {
    "torch.bool": "BOOL",
    "torch.uint8": "U8",
    "torch.int8": "I8",
    "torch.int16": "I16",
    "torch.int32": "I32",
    "torch.int64": "I64",
    "torch.uint16": "U16",
    "torch.uint32": "U32",
    "torch.uint64": "U64",
    "torch.float16": "F16",
    "torch.bfloat16": "BF16",
    "torch.float32": "F32",
    "torch.float64": "F64",
    "torch.float8_e4m3fn": "F8_E4M3",
    "torch.float8_e5m2": "F8_E5M2",
    "torch.float8_e4m3fnuz": "F8_E4M3FNUZ",
    "torch.float8_e5m2fnuz": "F8_E5M2FNUZ",
    "torch.float8_e8m0fnu": "F8_E8M0",
    "torch.complex64": "C64",
}


@functools.cache
def truth() -> dict[str, Any]:
    return json.loads((HERE / "truth.json").read_text(encoding="utf-8"))


def files(prefix: str = "") -> dict[str, dict[str, Any]]:
    """Every recorded file under `prefix` (relative to tests/torch), with its verdicts."""
    return {k: v for k, v in truth()["files"].items() if k.startswith(prefix)}


def twins() -> dict[str, Path]:
    """Corpus checkpoint folder -> its safetensors twin folder."""
    return {
        HERE / "corpus" / case: (HERE / rel).resolve() for case, rel in truth()["twins"].items()
    }
