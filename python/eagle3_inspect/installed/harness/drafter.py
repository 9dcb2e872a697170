"""A drafter as the harness hands it to engine and producer code: its config.json (as a dict and
as a directory transformers' `AutoConfig` can read) and its tensors (torch, in memory; the corpus
drafters and the stand-ins are tiny)."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch


@dataclass
class DrafterFiles:
    """config.json + tensors; `path` holds the config (and, when written, the tensors)."""

    name: str
    path: Path
    config: dict[str, Any]
    tensors: dict[str, torch.Tensor]

    def summary(self) -> dict[str, list[Any]]:
        """Names, shapes and dtypes, for the JSON record."""
        return {
            n: [list(t.shape), str(t.dtype).removeprefix("torch.")]
            for n, t in sorted(self.tensors.items())
        }

    def copy_to(self, out: Path) -> DrafterFiles:
        """The same drafter written to `out` (config.json + model.safetensors)."""
        from safetensors.torch import save_file

        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(json.dumps(self.config, indent=2))
        save_file(
            {n: t.contiguous() for n, t in self.tensors.items()}, str(out / "model.safetensors")
        )
        return DrafterFiles(self.name, out, self.config, dict(self.tensors))


def read_drafter(path: Path, name: str | None = None) -> DrafterFiles:
    """config.json and every *.safetensors file of `path` (never written to)."""
    from safetensors.torch import load_file

    config = json.loads((path / "config.json").read_text())
    tensors: dict[str, torch.Tensor] = {}
    for file in sorted(path.glob("*.safetensors")):
        tensors.update(load_file(str(file)))
    return DrafterFiles(name or path.name, path, config, tensors)


def scratch_dir(prefix: str) -> Path:
    """A private temporary directory (removed by the caller's TemporaryDirectory or left to the
    OS temp cleaner for hand-run tools)."""
    return Path(tempfile.mkdtemp(prefix=f"e3-{prefix}-"))
