"""The `Family` record: which drafter family and variant a checkpoint is, and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eagle3_inspect.rules.family.names import DRAFTER_FAMILIES, family_title

VARIANT_TITLES = {"llama": "Llama", "qwen3": "Qwen3", "mla": "MLA", "laguna": "Laguna"}


@dataclass(frozen=True)
class Family:
    """A detected drafter family (`name`, one of `names.DRAFTER_FAMILIES`, or `target` /
    `unknown`), its variant (the decoder-layer kind: `llama`, `qwen3`, `mla`, ...), features
    that change what engines must support (`eagle3.1`, `multi-layer`, `fp8`), and the evidence
    that decided it (config keys and tensors, in words)."""

    name: str
    variant: str | None = None
    features: tuple[str, ...] = ()
    evidence: tuple[str, ...] = field(default=())

    @property
    def is_drafter(self) -> bool:
        return self.name in DRAFTER_FAMILIES

    @property
    def title(self) -> str:
        """`"EAGLE 3.1 (MLA layers)"`, `"DFlash (Qwen3 layers)"`, `"a target model"`."""
        base = family_title(self.name)
        if self.name == "eagle3" and "eagle3.1" in self.features:
            base = "EAGLE 3.1"
        if not self.is_drafter or self.variant is None:
            return base
        layer = VARIANT_TITLES.get(self.variant, self.variant)
        extra = [f for f in self.features if f not in ("eagle3.1",)]
        tail = f"; {', '.join(extra)}" if extra else ""
        return f"{base} ({layer} layers{tail})"

    def to_dict(self) -> dict[str, Any]:
        """The `family` object of `validate --json` (schema validate/1, added field)."""
        return {
            "name": self.name,
            "variant": self.variant,
            "features": list(self.features),
            "title": self.title,
            "evidence": list(self.evidence),
        }
