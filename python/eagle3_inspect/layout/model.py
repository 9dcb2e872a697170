"""The `Layout` record: what a drafter's names and shapes say about its architecture."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Layout:
    """Architecture inferred from tensor names and shapes (config used only to break ties).

    Dimensions are None when the tensors cannot determine them. `blocks` maps each decoder
    layer index to the key prefix its tensors use (e.g. `{0: "midlayer."}`).
    """

    dialect: str = "unknown"
    mixed_dialect: bool = False
    key_prefix: str = ""
    blocks: dict[int, str] = field(default_factory=dict)
    multi_layer: bool = False
    mla: bool = False
    qwen3_norms: bool = False
    eagle31: bool = False
    eagle31_tensors: list[str] = field(default_factory=list)
    has_embed: bool = False
    has_lm_head: bool = False
    has_fc: bool = False
    has_d2t: bool = False
    has_t2d: bool = False
    H: int | None = None
    Ht: int | None = None
    K: int | None = None
    fc_in: int | None = None
    Vd: int | None = None
    Vt: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    intermediate: int | None = None
    qkv_in: dict[int, int] = field(default_factory=dict)
    dtypes: dict[str, int] = field(default_factory=dict)
    float_dtypes: list[str] = field(default_factory=list)
    # Quantized weights with their scales (`quant.Quantization.to_dict`), None when there are none.
    quantization: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def layer_indices(self) -> list[int]:
        return sorted(self.blocks)

    @property
    def dtype(self) -> str | None:
        """The one floating-point weight dtype, or None when there are none or several."""
        return self.float_dtypes[0] if len(self.float_dtypes) == 1 else None

    def block_prefix(self, index: int = 0) -> str | None:
        """The key prefix of decoder layer `index`, or None when that block is absent."""
        return self.blocks.get(index)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["blocks"] = {str(k): v for k, v in self.blocks.items()}
        data["qkv_in"] = {str(k): v for k, v in self.qkv_in.items()}
        data["layer_indices"] = self.layer_indices
        data["dtype"] = self.dtype
        return data
