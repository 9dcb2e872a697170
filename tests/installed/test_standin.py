"""Stand-ins keep every shape relation a loader checks: a tensor built from the config's sizes
by a formula has, shrunk, exactly the shape the same formula gives on the shrunk config."""

from __future__ import annotations

import json
import math
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from eagle3_inspect.installed.standin import choose_scale, shrink_config, stand_in
from eagle3_inspect.reader.opening import open_checkpoint

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def llama_tensors(c: dict, aux: int) -> dict[str, tuple[list[int], str]]:
    """An EAGLE-3 Llama drafter's tensors, as shapes computed from its config."""
    h, heads, kv = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
    hd = c.get("head_dim", h // heads)
    inter, vocab, draft = c["intermediate_size"], c["vocab_size"], c["draft_vocab_size"]
    return {
        "fc.weight": ([h, aux * h], "BF16"),
        "midlayer.self_attn.q_proj.weight": ([heads * hd, 2 * h], "BF16"),
        "midlayer.self_attn.k_proj.weight": ([kv * hd, 2 * h], "BF16"),
        "midlayer.self_attn.o_proj.weight": ([h, heads * hd], "BF16"),
        "midlayer.mlp.gate_proj.weight": ([inter, h], "BF16"),
        "midlayer.hidden_norm.weight": ([h], "BF16"),
        "embed_tokens.weight": ([vocab, h], "BF16"),
        "lm_head.weight": ([draft, h], "BF16"),
        "d2t": ([draft], "I64"),
        "t2d": ([vocab], "BOOL"),
    }


configs = st.builds(
    lambda heads, kv_div, hd, inter_mult, vocab, draft_div, explicit: {
        "hidden_size": heads * hd,
        "num_attention_heads": heads,
        "num_key_value_heads": heads // kv_div,
        "intermediate_size": heads * hd * inter_mult // 2,
        "vocab_size": vocab,
        "draft_vocab_size": vocab // draft_div,
        "num_hidden_layers": 1,
        **({"head_dim": hd} if explicit else {}),
    },
    heads=st.sampled_from([4, 8, 32, 64]),
    kv_div=st.sampled_from([1, 2, 4]),
    hd=st.sampled_from([16, 32, 64, 128]),
    inter_mult=st.sampled_from([5, 7, 8]),
    vocab=st.sampled_from([1000, 32000, 128256, 151936, 163840, 1003]),
    draft_div=st.sampled_from([1, 4, 5]),
    explicit=st.booleans(),
)


@given(config=configs, aux=st.integers(min_value=1, max_value=6))
@settings(max_examples=300, deadline=None)
def test_shrunk_shapes_are_the_formulas_on_the_shrunk_config(config: dict, aux: int) -> None:
    s = stand_in(config, llama_tensors(config, aux))
    assert {n: tuple(shape) for n, (shape, _) in llama_tensors(s.config, aux).items()} == {
        n: shape for n, (shape, _) in s.shapes.items()
    }
    assert s.config["num_attention_heads"] == config["num_attention_heads"]
    assert s.config["num_key_value_heads"] == config["num_key_value_heads"]


def test_sizes_with_no_common_factor_keep_the_drafter_shapes() -> None:
    config = {"hidden_size": 4096, "vocab_size": 1003, "num_attention_heads": 32}
    assert choose_scale([4096, 1003, 128]) == 1
    s = stand_in(config, {"embed_tokens.weight": ([1003, 4096], "BF16")})
    assert s.scale == 1 and s.shapes["embed_tokens.weight"] == ((1003, 4096), "BF16")
    assert s.config == config


def test_nested_sizes_and_block_edges_shrink_together() -> None:
    config = {
        "transformer_layer_config": {"hidden_size": 4096, "num_attention_heads": 32},
        "draft_vocab_size": 32000,
        "quantization_config": {"weight_block_size": [128, 128]},
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 17, 29]},
    }
    out = shrink_config(config, 16)
    assert out["transformer_layer_config"] == {"hidden_size": 256, "num_attention_heads": 32}
    assert out["draft_vocab_size"] == 2000
    assert out["quantization_config"]["weight_block_size"] == [8, 8]
    assert out["eagle_config"] == config["eagle_config"]
    assert config["transformer_layer_config"]["hidden_size"] == 4096  # the input is untouched


def test_every_corpus_drafter_shrinks_consistently() -> None:
    """Every stated size divides by the factor, and every tensor dimension equal to a stated
    size becomes that size shrunk (the corpus: every producer and family)."""
    drafters = sorted(p.parent for p in CORPUS.glob("*/config.json"))
    assert len(drafters) >= 30
    for folder in drafters:
        ckpt = open_checkpoint(folder)
        config = json.loads((folder / "config.json").read_text())
        tensors = {n: (t.shape, t.dtype) for n, t in ckpt.tensors.items()}
        s = stand_in(config, tensors)
        assert s.scale >= 2, folder.name
        assert s.elements * s.scale <= sum(math.prod(shape) for shape, _ in tensors.values())
        for name, (shape, dtype) in tensors.items():
            small, small_dtype = s.shapes[name]
            assert small_dtype == dtype and len(small) == len(shape)
            for d, d_small in zip(shape, small, strict=True):
                assert d_small in (d, d // s.scale), (folder.name, name, shape, small)


def test_group_widths_stay_and_still_divide_the_shrunk_hidden_size() -> None:
    """DFlash2's conv_group_size must divide hidden_size (vLLM qwen3_dflash2.py raises
    otherwise) and the kernel projection is 2 x taps x hidden / group wide: the group stays,
    the factor is chosen so the shrunk hidden is still a multiple of it, and the projection's
    width shrinks with hidden; selector_rank is a width and shrinks."""
    config = {
        "conv_group_size": 16,
        "conv_kernel_size": 2,
        "selector_rank": 32,
        "selector_top_k": 16,
        "transformer_layer_config": {"hidden_size": 64, "head_dim": 16, "vocab_size": 1000},
    }
    groups = 64 // 16
    tensors = {
        "layers.0.mlp_conv.kernel_projection.weight": ([2 * 2 * groups, 64], "BF16"),
        "candidate_selector.predecessor_codebook": ([1000, 32], "BF16"),
    }
    s = stand_in(config, tensors)
    hidden = s.config["transformer_layer_config"]["hidden_size"]
    assert s.scale == 4 and hidden == 16
    assert s.config["conv_group_size"] == 16 and s.config["selector_top_k"] == 16
    assert s.config["selector_rank"] == 8
    assert s.shapes["layers.0.mlp_conv.kernel_projection.weight"][0] == (2 * 2 * (hidden // 16), 16)
    assert s.shapes["candidate_selector.predecessor_codebook"][0] == (250, 8)
