"""`detect_layout`: dialect, decoder blocks and variant flags (MLA, Qwen3 norms, Eagle 3.1)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from eagle3_inspect.layout.bare import BareNames, BareShapes, joined_names
from eagle3_inspect.layout.dims import infer_dims
from eagle3_inspect.layout.model import Layout
from eagle3_inspect.layout.names import MODEL_PREFIX, block_parts
from eagle3_inspect.layout.quant import find_quantization
from eagle3_inspect.reader.draft_config import DraftConfig, read_draft_config
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES
from eagle3_inspect.reader.tensorinfo import TensorInfo

# Names whose dtype is not a weight dtype: vocabulary maps are int64/bool by design.
VOCAB_BUFFERS = frozenset({"d2t", "t2d"})
# A key's block reading: (dialect, index, rest, prefix), see `names.block_parts`.
Parts = tuple[str, int, str, str]
MLA_MARKERS = ("self_attn.q_a_proj.", "self_attn.kv_a_proj_with_mqa.", "self_attn.kv_b_proj.")


# A key's block prefix and rest in one regex over the joined names (the same reading as
# `names.block_parts`: `layers.<i>.` needs a rest, `midlayer[s][.<i>].` does not).
_BLOCK_HEAD = r"(?:layers\.\d+\.(?=.)|midlayers?\.(?:\d+\.)?)"
_PREFIXES = re.compile(r"\n((?:model\.)?" + _BLOCK_HEAD + ")")
_RESTS = re.compile(r"\n(?:model\.)?" + _BLOCK_HEAD + r"(.*)")
# A doubled `model.model.` prefix: the rest of the key read without its first `model.`.
_DOUBLED_RESTS = re.compile(r"\nmodel\.model\." + _BLOCK_HEAD + r"(.*)")


def _key_scan(names: list[str], text: str | None) -> tuple[Counter[str], set[str]]:
    """Block prefixes as spelled, with how many keys use each (in first-seen order), and the
    block-relative rests of the keys read without their `model.` prefix."""
    if text is not None:
        rests = set(_RESTS.findall(text))
        rests.update(_DOUBLED_RESTS.findall(text))
        return Counter(_PREFIXES.findall(text)), rests
    parsed = list(map(block_parts, names))  # a name with a newline: one parse per key
    return Counter(k[3] for k in parsed if k is not None), _bare_rests(names, parsed)


def _choose_dialect(prefixes: Counter[str], layout: Layout) -> None:
    found: dict[str, dict[int, str]] = {"midlayer": {}, "layers": {}}
    counts: Counter[str] = Counter()
    for spelled, n in prefixes.items():
        key = block_parts(spelled + "x")  # the prefix's own reading: dialect, index, normal form
        if key is None:  # unreachable: every prefix found is a block prefix
            continue
        dialect, index, _, prefix = key
        found[dialect].setdefault(index, prefix)
        counts[dialect] += n
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


def _flags(bare: BareNames, block_rests: set[str], layout: Layout) -> None:
    layout.has_fc = "fc.weight" in bare
    layout.has_lm_head = "lm_head.weight" in bare
    layout.has_embed = "embed_tokens.weight" in bare
    layout.has_d2t = "d2t" in bare
    layout.has_t2d = "t2d" in bare
    layout.mla = any(r.startswith(MLA_MARKERS) for r in block_rests)
    layout.qwen3_norms = any(
        r.startswith(("self_attn.q_norm.", "self_attn.k_norm.")) for r in block_rests
    )
    extras = bare.starting_with("fc_norm.")
    if "input_norm.weight" in bare:
        extras = sorted([*extras, "input_norm.weight"])
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
    counts = Counter(map(attrgetter("dtype"), tensors.values()))
    layout.dtypes = dict(counts)
    quant = find_quantization(tensors, set(counts))
    layout.quantization = quant.to_dict() if quant.present else None
    # A float dtype counts unless only the vocabulary buffers (d2t, t2d) have it, or only
    # quantized weights and their scales (one precision class: FP8 + scales).
    buffers = Counter(
        tensors[n].dtype
        for bare in VOCAB_BUFFERS
        for n in (bare, MODEL_PREFIX + bare)
        if n in tensors
    )
    buffers.update(tensors[n].dtype for n in quant.exempt)
    layout.float_dtypes = sorted(
        d for d, n in counts.items() if d in FLOAT_DTYPES and n > buffers.get(d, 0)
    )


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
    # Regex passes over the joined names, not Python work per key: a header may hold a million.
    text = joined_names(names)
    if text is None:
        prefixed = sum(n.startswith(MODEL_PREFIX) for n in names)
    else:
        prefixed = text.count("\n" + MODEL_PREFIX)
    if prefixed and prefixed >= len(names) - ("lm_head.weight" in tensors):
        layout.key_prefix = MODEL_PREFIX
    prefixes, rests = _key_scan(names, text)
    _choose_dialect(prefixes, layout)
    bare = BareNames(tensors, text)
    _flags(bare, rests, layout)
    _dtypes(tensors, layout)
    infer_dims(BareShapes(tensors, bare), layout, draft_config)
    return layout
