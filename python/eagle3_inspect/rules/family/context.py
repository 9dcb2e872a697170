"""Shared state of one drafter-rule run (any family folder: e3, pe, df): tensors by bare name,
config, layout and the findings list."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.layout import Layout, strip_model_prefix
from eagle3_inspect.layout.bare import BareNames
from eagle3_inspect.reader.draft_config import DraftConfig
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.registry import finding


@dataclass
class DrafterContext:
    """Everything a rule needs, plus `emit` to record a finding (registry severity and hint)."""

    tensors: Mapping[str, TensorInfo]
    cfg: DraftConfig
    layout: Layout
    findings: list[Finding] = field(default_factory=list)
    names: BareNames = field(init=False)

    def __post_init__(self) -> None:
        # Bare name (no `model.` prefix) -> the name as stored, looked up, not built per tensor.
        self.names = BareNames(self.tensors)

    def has(self, bare: str) -> bool:
        return bare in self.names

    def shape(self, bare: str) -> tuple[int, ...] | None:
        name = self.names.get(bare)
        return None if name is None else tuple(self.tensors[name].shape)

    def stored(self, bare: str) -> str:
        """The stored name of a bare name (itself when absent, for messages)."""
        return self.names.get(bare, self.layout.key_prefix + bare)

    def block(self, index: int, rest: str) -> str | None:
        """Bare name of `rest` inside decoder block `index`, None when the block is absent."""
        prefix = self.layout.block_prefix(index)
        return None if prefix is None else strip_model_prefix(prefix) + rest

    def emit(
        self,
        code: str,
        message: str,
        *,
        severity: Severity | None = None,
        tensor: str | None = None,
        config_key: str | None = None,
        hint: str | None = None,
    ) -> None:
        stored = self.stored(tensor) if tensor is not None else None
        info = self.tensors.get(stored) if stored is not None else None
        self.findings.append(
            finding(
                code,
                message,
                severity=severity,
                hint=hint,
                file=info.file if info is not None else None,
                tensor=stored,
                config_key=config_key,
            )
        )
