"""detect_layout's regex passes over the joined names give the layout a parse of every key gives
(the path taken when a name contains a newline), and BareNames answers as the dict of every
prefix-stripped name would."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eagle3_inspect.layout import bare as bare_module
from eagle3_inspect.layout import detect as detect_module
from eagle3_inspect.layout import detect_layout, strip_model_prefix
from eagle3_inspect.layout.bare import BareNames, joined_names
from eagle3_inspect.reader.tensorinfo import TensorInfo

HEADS = ["", "model.", "model.model."]
BLOCKS = ["", "layers.0.", "layers.03.", "layers.1.", "midlayer.", "midlayer.1.", "midlayers.2."]
LEAVES = [
    "self_attn.q_proj.weight",
    "self_attn.q_norm.weight",
    "self_attn.kv_b_proj.weight",
    "fc.weight",
    "fc_norm.0.weight",
    "input_norm.weight",
    "lm_head.weight",
    "norm.weight",
    "d2t",
    "t2d",
    "",
    "7",
]
NAMES = st.builds(lambda h, b, leaf: h + b + leaf, *map(st.sampled_from, (HEADS, BLOCKS, LEAVES)))
DTYPES = st.sampled_from(["BF16", "F32", "I64", "BOOL"])
SHAPES = st.lists(st.integers(1, 64), min_size=1, max_size=2).map(tuple)


def _tensors(entries: list[tuple[str, str, tuple[int, ...]]]) -> dict[str, TensorInfo]:
    return {n: TensorInfo(n, d, s, 0, "f.safetensors", 0) for n, d, s in entries}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(NAMES, DTYPES, SHAPES), max_size=14, unique_by=lambda e: e[0]))
def test_joined_passes_equal_the_per_key_parse(entries) -> None:
    tensors = _tensors(entries)
    fast = detect_layout(tensors).to_dict()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(detect_module, "joined_names", lambda names: None)
        mp.setattr(bare_module, "joined_names", lambda names: None)
        slow = detect_layout(tensors).to_dict()
    assert fast == slow


@settings(max_examples=300, deadline=None)
@given(st.lists(NAMES, max_size=14, unique=True))
def test_bare_names_equal_the_dict_of_stripped_names(names: list[str]) -> None:
    tensors = dict.fromkeys(names, None)
    expected = {strip_model_prefix(n): n for n in names}
    bare = BareNames(tensors)
    assert dict(bare) == expected and list(bare) == list(expected) and len(bare) == len(expected)
    for prefix in ("fc_norm.", "model.", "layers.", "midlayer"):
        want = sorted(n for n in expected if n.startswith(prefix))
        assert BareNames(tensors).starting_with(prefix) == want
    assert all(b not in bare for b in ("absent", "model.absent"))


def test_a_name_with_a_newline_takes_the_per_key_path() -> None:
    names = ["layers.0.fc.weight", "layers.0.\nmodel.x"]
    assert joined_names(names) is None and joined_names([]) == ""
    tensors = _tensors([(n, "BF16", (2,)) for n in names])
    assert detect_layout(tensors).blocks == {0: "layers.0."}
