"""Synthetic target models for the cross-checks: a config.json plus embed/lm_head shards.

Only the headers matter to the checks, so the tensors are small zero arrays; a multimodal
target nests its text model in `text_config` like Kimi-K2.5 / Qwen-VL checkpoints do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from eagle3_inspect.reader.dtypes import from_torch_dtype
from eagle3_inspect.synthetic.drafters import float_tensor
from eagle3_inspect.synthetic.writer import write_sharded


def target_config(
    *,
    hidden_size: int = 64,
    vocab_size: int = 1024,
    num_hidden_layers: int = 32,
    torch_dtype: str = "bfloat16",
    architecture: str = "LlamaForCausalLM",
    multimodal: bool = False,
    tie_word_embeddings: bool = False,
) -> dict[str, Any]:
    """A target config.json dict; `multimodal` nests the text fields in `text_config`."""
    text = {
        "hidden_size": hidden_size,
        "vocab_size": vocab_size,
        "num_hidden_layers": num_hidden_layers,
        "torch_dtype": torch_dtype,
        "tie_word_embeddings": tie_word_embeddings,
        "model_type": "llama",
    }
    if multimodal:
        return {
            "architectures": [architecture],
            "model_type": "synthetic_vl",
            "text_config": text,
            "vision_config": {"hidden_size": 32},
        }
    return {"architectures": [architecture], **text}


def write_target(
    directory: str | os.PathLike[str],
    config: dict[str, Any],
    *,
    embed_shape: tuple[int, int] | None = None,
    lm_head_shape: tuple[int, int] | None = None,
    prefix: str = "model.",
) -> Path:
    """Write `config.json`, a two-shard checkpoint holding the embedding and head, and the index.

    Shapes default to `[vocab_size, hidden_size]` from the (text) config; pass `lm_head_shape=(0,
    0)` to omit the head (tied targets).
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    text = config.get("text_config", config)
    default = (text["vocab_size"], text["hidden_size"])
    dtype = from_torch_dtype(text.get("torch_dtype", "")) or "F32"
    tensors = {
        f"{prefix}embed_tokens.weight": float_tensor(np.zeros(embed_shape or default), dtype),
        f"{prefix}norm.weight": float_tensor(np.ones(default[1]), dtype),
    }
    head = lm_head_shape or default
    if head != (0, 0):
        tensors["lm_head.weight"] = float_tensor(np.zeros(head), dtype)
    write_sharded(out, tensors, lambda name: 1 if name.startswith("lm_head") else 0)
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    return out
