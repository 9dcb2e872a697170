"""A drafter directory as the engines receive it: config.json (dict) and every tensor of its
safetensors files, read with the `safetensors` package (names, shapes, dtypes and values)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file


@dataclass
class Drafter:
    """One drafter checkpoint, loaded into memory (the corpus drafters are tiny)."""

    name: str
    path: Path
    config: dict
    tensors: dict[str, torch.Tensor]

    def summary(self) -> dict:
        """Names, shapes and dtypes, for the JSON record."""
        return {
            n: [list(t.shape), str(t.dtype).removeprefix("torch.")]
            for n, t in sorted(self.tensors.items())
        }


def load_drafter(path: Path, name: str | None = None) -> Drafter:
    """Reads config.json and all *.safetensors files of `path` (never writes to it)."""
    config = json.loads((path / "config.json").read_text())
    tensors: dict[str, torch.Tensor] = {}
    for file in sorted(path.glob("*.safetensors")):
        tensors.update(load_file(str(file)))
    return Drafter(name or path.name, path, config, tensors)
