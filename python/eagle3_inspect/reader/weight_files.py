"""Which files of a folder are a checkpoint's weights: the core's one rule (safetensors first,
then torch files and `pytorch_model.bin.index.json`, a Trainer's side pickles left out), for
the callers above the reader that list folders themselves (cluster discovery, Hub listings)."""

from __future__ import annotations

from eagle3_inspect._native import choose_weight_files, weight_files_for_index

__all__ = ["choose_weight_files", "weight_files_for_index"]
