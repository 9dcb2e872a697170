"""Drafter architecture detection from tensor names and shapes (`detect_layout` -> `Layout`)."""

from __future__ import annotations

from eagle3_inspect.layout.detect import VOCAB_BUFFERS, detect_layout
from eagle3_inspect.layout.model import Layout
from eagle3_inspect.layout.names import BlockKey, parse_block_key, strip_model_prefix
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES

__all__ = [
    "FLOAT_DTYPES",
    "VOCAB_BUFFERS",
    "BlockKey",
    "Layout",
    "detect_layout",
    "parse_block_key",
    "strip_model_prefix",
]
