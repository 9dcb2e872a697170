"""Quantized weights as one precision class: an FP8 (or FP4) weight stored with its scale
tensors (`<name>_scale`, `input_scale`, ...) is one quantized weight, not a second float dtype
beside the BF16 norms, so an FP8 drafter (Model-Optimizer `mtq.quantize` FP8 + export: F8_E4M3
linears, F32 scalar scales) is not "mixed float dtypes"."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from eagle3_inspect.reader.tensorinfo import TensorInfo

# Low-precision weight dtypes that only ever appear quantized (with scales).
QUANT_DTYPES = frozenset(
    {"F8_E4M3", "F8_E5M2", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "F6_E2M3", "F6_E3M2", "F4"}
)
# Name suffixes of scale tensors (ModelOpt / compressed-tensors / fp8 checkpoints).
SCALE_SUFFIXES = (
    ".weight_scale",
    ".input_scale",
    ".weight_scale_inv",
    ".weight_scale_2",
    ".k_scale",
    ".v_scale",
    ".output_scale",
)


@dataclass
class Quantization:
    """The quantized weights of a checkpoint: their dtypes, how many, their scale tensors, and
    the quantized weights that have no scale (those really are a second precision)."""

    dtypes: list[str] = field(default_factory=list)
    weights: int = 0
    scales: list[str] = field(default_factory=list)
    unscaled: list[str] = field(default_factory=list)
    # Names that do not count as float weights of their own dtype: the scales, and the
    # quantized weights that have them.
    exempt: set[str] = field(default_factory=set, repr=False)

    @property
    def present(self) -> bool:
        return bool(self.weights or self.scales)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dtypes": self.dtypes,
            "weights": self.weights,
            "scales": len(self.scales),
            "unscaled": self.unscaled,
        }


def is_scale(name: str) -> bool:
    return name.endswith(SCALE_SUFFIXES)


def find_quantization(tensors: Mapping[str, TensorInfo], dtypes: set[str]) -> Quantization:
    """The quantized weights (read only when a quantized dtype occurs: no cost otherwise)."""
    found = Quantization()
    if not dtypes & QUANT_DTYPES:
        return found
    found.scales = sorted(n for n in tensors if is_scale(n))
    owners = {n.rsplit(".", 1)[0] for n in found.scales}
    quantized = sorted(n for n, t in tensors.items() if t.dtype in QUANT_DTYPES)
    found.dtypes = sorted({tensors[n].dtype for n in quantized})
    scaled = [n for n in quantized if n.rsplit(".", 1)[0] in owners]
    found.weights = len(scaled)
    found.unscaled = [n for n in quantized if n.rsplit(".", 1)[0] not in owners]
    found.exempt = {*found.scales, *scaled}
    return found
