"""`detect_layout`: dialect, decoder blocks and variant flags (MLA, Qwen3 norms, Eagle 3.1)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from eagle3_inspect.layout.dims import infer_dims
from eagle3_inspect.layout.model import Layout
from eagle3_inspect.layout.names import MODEL_PREFIX, block_parts, strip_model_prefix
from eagle3_inspect.reader.draft_config import DraftConfig, read_draft_config
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES
from eagle3_inspect.reader.tensorinfo import TensorInfo

# Names whose dtype is not a weight dtype: vocabulary maps are int64/bool by design.
VOCAB_BUFFERS = frozenset({"d2t", "t2d"})
# A key's block reading: (dialect, index, rest, prefix), see `names.block_parts`.
Parts = tuple[str, int, str, str]
MLA_MARKERS = ("self_attn.q_a_proj.", "self_attn.kv_a_proj_with_mqa.", "self_attn.kv_b_proj.")


def _blocks_by_dialect(keys: list[Parts]) -> dict[str, dict[int, str]]:
    found: dict[str, dict[int, str]] = {"midlayer": {}, "layers": {}}
    for dialect, index, _, prefix in keys:
        found[dialect].setdefault(index, prefix)
    return found


def _choose_dialect(keys: list[Parts], layout: Layout) -> None:
    found = _blocks_by_dialect(keys)
    counts = Counter(k[0] for k in keys)
    present = [d for d in ("midlayer", "layers") if found[d]]
    if not present:
        return
    layout.mixed_dialect = len(present) == 2
    layout.dialect = max(present, key=lambda d: (counts[d], d == "midlayer"))
    layout.blocks = dict(sorted(found[layout.dialect].items()))
    layout.multi_layer = len(layout.blocks) > 1
    if layout.mixed_dialect:
        other = "layers" if layout.dialect == "midlayer" else "midlayer"
        layout.notes.append(
            f"{counts[layout.dialect]} keys in the {layout.dialect} dialect and "
            f"{counts[other]} in the {other} dialect"
        )


def _flags(bare: set[str], block_rests: set[str], layout: Layout) -> None:
    layout.has_fc = "fc.weight" in bare
    layout.has_lm_head = "lm_head.weight" in bare
    layout.has_embed = "embed_tokens.weight" in bare
    layout.has_d2t = "d2t" in bare
    layout.has_t2d = "t2d" in bare
    layout.mla = any(r.startswith(MLA_MARKERS) for r in block_rests)
    layout.qwen3_norms = any(
        r.startswith(("self_attn.q_norm.", "self_attn.k_norm.")) for r in block_rests
    )
    extras = sorted(n for n in bare if n == "input_norm.weight" or n.startswith("fc_norm."))
    layout.eagle31_tensors = extras
    layout.eagle31 = bool(extras)


def _bare_rests(names: list[str], parsed: list[Parts | None]) -> set[str]:
    """The block-relative rests of the keys read without their `model.` prefix. That is each
    key's own parse, except for a doubled `model.model.` prefix, which is re-parsed."""
    rests = set()
    for name, key in zip(names, parsed, strict=True):
        if name.startswith(MODEL_PREFIX + MODEL_PREFIX):
            key = block_parts(name[len(MODEL_PREFIX) :])
        if key is not None:
            rests.add(key[2])
    return rests


def _dtypes(tensors: Mapping[str, TensorInfo], layout: Layout) -> None:
    layout.dtypes = dict(Counter(info.dtype for info in tensors.values()))
    floats = {
        info.dtype
        for name, info in tensors.items()
        if strip_model_prefix(name) not in VOCAB_BUFFERS and info.dtype in FLOAT_DTYPES
    }
    layout.float_dtypes = sorted(floats)


def detect_layout(
    tensors: Mapping[str, TensorInfo], config: dict[str, Any] | DraftConfig | None = None
) -> Layout:
    """Infer the drafter's architecture from tensor names and shapes.

    `config` (raw dict or DraftConfig) only disambiguates what shapes cannot decide
    (target hidden size when `fc` is square-ish, head_dim without q_norm).
    """
    draft_config = config if isinstance(config, DraftConfig) else read_draft_config(config)
    layout = Layout()
    names = list(tensors)
    prefixed = [n for n in names if n.startswith(MODEL_PREFIX)]
    if prefixed and len(prefixed) >= len(names) - sum(n == "lm_head.weight" for n in names):
        layout.key_prefix = MODEL_PREFIX
    # Each key is parsed once (a million-tensor header makes every extra pass count).
    parsed = list(map(block_parts, names))
    _choose_dialect([k for k in parsed if k is not None], layout)
    shapes = {strip_model_prefix(n): tuple(info.shape) for n, info in tensors.items()}
    _flags(set(shapes), _bare_rests(names, parsed), layout)
    _dtypes(tensors, layout)
    infer_dims(shapes, layout, draft_config)
    return layout
