"""detect_layout parses each key once: the block rests it derives from that one parse equal the
ones a separate parse of every prefix-stripped name gives, doubled `model.` prefixes included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from eagle3_inspect.layout import detect_layout, parse_block_key, strip_model_prefix
from eagle3_inspect.layout.detect import _bare_rests
from eagle3_inspect.layout.names import block_parts
from eagle3_inspect.reader.tensorinfo import TensorInfo

HEADS = ["", "model.", "model.model.", "model.model.model."]
BLOCKS = ["", "layers.0.", "layers.3.", "midlayer.", "midlayer.1.", "midlayers.2.", "layer.0."]
LEAVES = ["self_attn.q_norm.weight", "self_attn.kv_b_proj.weight", "fc.weight", "d2t", "norm.w"]
NAMES = st.builds(lambda h, b, leaf: h + b + leaf, *map(st.sampled_from, (HEADS, BLOCKS, LEAVES)))


def _rests_by_separate_parse(names: list[str]) -> set[str]:
    bare = {strip_model_prefix(n) for n in names}
    return {k.rest for k in map(parse_block_key, bare) if k is not None}


@settings(max_examples=300, deadline=None)
@given(st.lists(NAMES, max_size=12, unique=True))
def test_rests_from_one_parse_equal_a_separate_parse(names: list[str]) -> None:
    parsed = list(map(block_parts, names))
    assert _bare_rests(names, parsed) == _rests_by_separate_parse(names)


def test_a_doubled_model_prefix_still_marks_qwen3_norms() -> None:
    name = "model.model.layers.0.self_attn.q_norm.weight"
    info = TensorInfo(name, "BF16", (8,), 16, "f.safetensors", 0)
    assert parse_block_key(name) is None  # not a block key as spelled...
    assert detect_layout({name: info}).qwen3_norms  # ...but its prefix-stripped name is
