"""The reports the HTML tests render: validate, diff and scan of the demo drafters, and a drafter
whose names, metadata and config carry HTML, `$` (TeX to matplotlib) and quotes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import eagle3_inspect
from eagle3_inspect.synthetic.demo import DemoFiles, write_demo
from eagle3_inspect.synthetic.drafters import build_drafter
from eagle3_inspect.synthetic.writer import write_safetensors

HOSTILE = '<script>alert("x")</script>&$x^$'


def demo(tmp: Path) -> DemoFiles:
    return write_demo(tmp / "demo")


def validate_report(files: DemoFiles):
    return eagle3_inspect.validate(files.broken, engine="sglang@0.5.11", target=files.target)


def repeats_drafter(tmp: Path) -> Path:
    """A correct drafter plus five tensors no engine parameter takes: SGLang drops each (EN001
    x5, nothing they could be a rename of), a run of one code the report folds into one row."""
    drafter = build_drafter()
    for i in range(5):
        drafter.tensors[f"extra_head.{i}.weight"] = drafter.tensors["fc.weight"]
    return drafter.write(tmp / "repeats")


def layered_diff(tmp: Path):
    """Two two-layer drafters with different weights: every pair differs, in three groups."""
    a = build_drafter(layers=2, seed=0).write(tmp / "step-a")
    b = build_drafter(layers=2, seed=1).write(tmp / "step-b")
    return eagle3_inspect.diff(a, b)


def hostile_checkpoint(tmp: Path) -> Path:
    """A checkpoint whose tensor names, metadata and config values are markup."""
    root = tmp / "hostile"
    root.mkdir()
    arrays = {
        f"layers.0.{HOSTILE}.weight": np.ones((4, 4), np.float32),
        f"{HOSTILE}.bias": np.array([0.0, np.nan, 1.0, 2.0], np.float32),
    }
    write_safetensors(root / "model.safetensors", arrays, {"note": HOSTILE})
    (root / "config.json").write_text(json.dumps({"architectures": [HOSTILE]}))
    return root


def hostile_diff(tmp: Path):
    path = hostile_checkpoint(tmp)
    other = tmp / "hostile-b"
    other.mkdir()
    arrays = {
        f"layers.0.{HOSTILE}.weight": np.full((4, 4), 2.0, np.float32),
        f"{HOSTILE}.bias": np.array([0.0, np.nan, 1.0, 2.5], np.float32),
    }
    write_safetensors(other / "model.safetensors", arrays, {"note": HOSTILE + "!"})
    return eagle3_inspect.diff(path, other)


def anomalous_checkpoint(tmp: Path) -> Path:
    """A checkpoint with one all-zero tensor, one with NaN and Inf, and one ordinary."""
    path = tmp / "anomalous.safetensors"
    arrays = {
        "dead.weight": np.zeros((8, 8), np.float32),
        "nan.weight": np.array([1.0, np.nan, np.inf, 2.0], np.float32),
        "ok.weight": np.arange(1, 17, dtype=np.float32).reshape(4, 4),
    }
    write_safetensors(path, arrays)
    return path
