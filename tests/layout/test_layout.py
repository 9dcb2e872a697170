"""Layout detection, config reading and synthetic-drafter realism, on files written to disk."""

from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import pytest
import safetensors
from hypothesis import given, settings
from hypothesis import strategies as st

from eagle3_inspect.layout import detect_layout
from eagle3_inspect.reader.draft_config import detect_style, load_draft_config, read_draft_config
from eagle3_inspect.synthetic.drafters import (
    build_drafter,
    mutate_d2t_absolute,
    mutate_fc_single_aux,
    mutate_layer_keys,
)
from tests.layout_helpers import infos_of, renamed

STYLES = [
    ("midlayer", "sglang"),
    ("layers", "speculators"),
    ("midlayer", "eagle"),
    ("layers", "sglang"),
    ("midlayer", "speculators"),
]


@pytest.mark.parametrize(("dialect", "style"), STYLES)
@pytest.mark.parametrize(
    "dims",
    [
        {},
        {"H": 96, "heads": 6, "kv_heads": 3, "I": 200, "Vd": 100, "Vt": 300},
        {"H": 64, "Ht": 128, "K": 4, "head_dim": 32, "heads": 4, "kv_heads": 1},
        {"H": 48, "K": 2, "layers": 3, "heads": 3, "kv_heads": 3, "Vd": 64, "Vt": 64},
    ],
)
def test_dims_are_recovered_from_written_files(tmp_path, dialect, style, dims):
    drafter = build_drafter(dialect=dialect, config_style=style, **dims)
    spec = drafter.meta["spec"]
    layout = detect_layout(infos_of(drafter, tmp_path), drafter.config)
    assert layout.dialect == dialect and not layout.mixed_dialect
    assert layout.layer_indices == list(range(spec.layers))
    assert layout.multi_layer == (spec.layers > 1)
    assert (layout.H, layout.Ht, layout.K) == (spec.H, spec.Ht, spec.K)
    assert layout.fc_in == spec.K * spec.Ht
    assert layout.Vd == spec.Vd
    # Vt shows in the tensors only through t2d (reduced vocab) or a shipped embedding.
    assert layout.Vt == (spec.Vt if spec.Vd < spec.Vt or layout.has_embed else None)
    assert (layout.heads, layout.kv_heads, layout.head_dim) == (
        spec.heads,
        spec.kv_heads,
        spec.head_dim,
    )
    assert layout.intermediate == spec.I
    assert layout.qkv_in[0] == 2 * spec.H
    assert all(layout.qkv_in[i] == spec.H for i in range(1, spec.layers))
    assert layout.float_dtypes == ["BF16"]
    assert layout.has_d2t == layout.has_t2d == (spec.Vd < spec.Vt)
    json.dumps(layout.to_dict())


@settings(max_examples=25, deadline=None)
@given(
    H=st.sampled_from([16, 32, 48, 64]),
    heads=st.sampled_from([1, 2, 4]),
    K=st.integers(1, 5),
    ht_factor=st.sampled_from([1, 2]),
    Vd=st.integers(1, 64),
    extra_vocab=st.integers(0, 64),
    dialect=st.sampled_from(["midlayer", "layers"]),
)
def test_detection_hypothesis(tmp_path_factory, H, heads, K, ht_factor, Vd, extra_vocab, dialect):
    drafter = build_drafter(
        dialect=dialect, H=H, Ht=H * ht_factor, K=K, Vd=Vd, Vt=Vd + extra_vocab,
        heads=heads, kv_heads=1, I=2 * H,
    )  # fmt: skip
    layout = detect_layout(infos_of(drafter, tmp_path_factory.mktemp("d")), drafter.config)
    assert (layout.H, layout.Ht, layout.K, layout.Vd) == (H, H * ht_factor, K, Vd)
    assert (layout.heads, layout.kv_heads) == (heads, 1)


def test_ht_needs_config_when_fc_is_ambiguous(tmp_path):
    drafter = build_drafter(H=64, Ht=128, K=3)
    infos = infos_of(drafter, tmp_path)
    assert detect_layout(infos, drafter.config).Ht == 128
    without = detect_layout(infos, None)
    assert (without.Ht, without.K) == (64, 6)  # tensors alone read [64, 384] as 6 x 64


def test_variant_flags(tmp_path):
    mla = detect_layout(infos_of(build_drafter(dialect="layers", mla=True), tmp_path), None)
    assert mla.mla and not mla.qwen3_norms and mla.qkv_in[0] == 128
    qwen = build_drafter(dialect="layers", qwen3_norms=True, head_dim=32)
    qwen_layout = detect_layout(infos_of(qwen, tmp_path), None)
    assert qwen_layout.qwen3_norms and qwen_layout.head_dim == 32 and qwen_layout.heads == 4
    e31 = detect_layout(infos_of(build_drafter(eagle31="fc_norm", Ht=80), tmp_path), None)
    assert e31.eagle31 and e31.Ht == 80 and e31.K == 3
    assert e31.eagle31_tensors == [f"fc_norm.{i}.weight" for i in range(3)]
    e31in = detect_layout(infos_of(build_drafter(eagle31=True), tmp_path), None)
    assert e31in.eagle31_tensors == ["input_norm.weight"]


def test_mixed_prefixed_and_unknown_dialects(tmp_path):
    base = build_drafter()
    half = renamed(base, "midlayer.mlp.", "layers.0.mlp.")
    mixed = detect_layout(infos_of(half, tmp_path), None)
    assert mixed.mixed_dialect and mixed.dialect == "midlayer" and mixed.notes
    prefixed = base.copy()
    prefixed.tensors = {f"model.{k}": v for k, v in base.tensors.items()}
    layout = detect_layout(infos_of(prefixed, tmp_path), None)
    assert layout.key_prefix == "model." and layout.dialect == "midlayer" and layout.H == 64
    unknown = detect_layout(infos_of(renamed(base, "midlayer.", "block."), tmp_path), None)
    assert unknown.dialect == "unknown" and unknown.blocks == {}


def test_multi_layer_midlayer_indexed(tmp_path):
    layout = detect_layout(infos_of(build_drafter(layers=2), tmp_path), None)
    assert layout.blocks == {0: "midlayer.0.", 1: "midlayer.1."}


def test_sharded_drafter_reads_the_same(tmp_path):
    drafter = build_drafter(dialect="layers", config_style="speculators")
    single = detect_layout(infos_of(drafter, tmp_path), drafter.config)
    sharded = detect_layout(infos_of(drafter, tmp_path, shards=3), drafter.config)
    assert single.to_dict() == sharded.to_dict()


# --- config reading --------------------------------------------------------------------------


def test_sglang_config_reading():
    cfg = read_draft_config(build_drafter(H=64, Ht=96, target_layers=40).config)
    assert cfg.style == "sglang" and cfg.architecture == "LlamaForCausalLMEagle3"
    assert cfg.aux_layer_ids == [1, 19, 36]
    assert cfg.aux_layer_ids_key == "eagle_config.eagle_aux_hidden_state_layer_ids"
    assert (cfg.hidden_size, cfg.target_hidden_size, cfg.vocab_size) == (64, 96, 1024)
    assert cfg.config_key("hidden_size") == "hidden_size"
    assert cfg.tie_word_embeddings is False and cfg.use_aux_hidden_state is True


def test_speculators_config_reading(tmp_path):
    drafter = build_drafter(config_style="speculators", eagle31=True, I=77)
    drafter.write(tmp_path)
    cfg = load_draft_config(tmp_path)
    assert cfg.style == "speculators" and cfg.architectures == ["Eagle3Speculator"]
    assert cfg.intermediate_size == 77
    assert cfg.config_key("intermediate_size") == "transformer_layer_config.intermediate_size"
    assert (
        cfg.aux_layer_ids == [2, 16, 29]
        and cfg.aux_layer_ids_key == "eagle_aux_hidden_state_layer_ids"
    )
    assert (
        cfg.norm_flags["norm_before_fc"] is True and cfg.norm_flags["norm_before_residual"] is False
    )
    assert cfg.config_key("norm_before_fc") == "norm_before_fc"


def test_eagle_config_reading():
    cfg = read_draft_config(build_drafter(config_style="eagle", Vd=100).config)
    assert cfg.style == "eagle" and cfg.architecture == "LlamaForCausalLM"
    assert cfg.draft_vocab_size == 100 and cfg.aux_layer_ids is None
    assert cfg.aux_layer_id_sources == {}


def test_both_aux_locations_are_recorded_in_engine_order():
    raw = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "eagle_aux_hidden_state_layer_ids": [2, 3, 4],
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 2, 3], "norm_before_fc": True},
    }
    cfg = read_draft_config(raw)
    assert cfg.aux_layer_ids == [1, 2, 3]
    assert cfg.aux_layer_id_sources == {
        "eagle_config.eagle_aux_hidden_state_layer_ids": [1, 2, 3],
        "eagle_aux_hidden_state_layer_ids": [2, 3, 4],
    }
    assert cfg.config_key("norm_before_fc") == "eagle_config.norm_before_fc"
    assert detect_style({"speculators_config": {}}) == "speculators"
    assert detect_style({}) == "unknown" and read_draft_config(None).present is False


# --- drafter realism and mutators --------------------------------------------------------------


def test_weights_look_trained_and_vocab_maps_are_offsets(tmp_path):
    drafter = build_drafter(Vd=200, Vt=900, seed=7)
    drafter.write(tmp_path)
    raw = dict(safetensors.deserialize((tmp_path / "model.safetensors").read_bytes()))
    norm = np.frombuffer(bytes(raw["norm.weight"]["data"]), ml_dtypes.bfloat16).astype(np.float32)
    assert 0.9 < norm.mean() < 1.1 and norm.std() > 0.01 and not np.all(norm == 1)
    fc = np.frombuffer(bytes(raw["fc.weight"]["data"]), ml_dtypes.bfloat16).astype(np.float32)
    assert abs(fc.mean()) < 0.01 and 0.03 < fc.std() < 0.2
    d2t = np.frombuffer(bytes(raw["d2t"]["data"]), np.int64)
    t2d = np.frombuffer(bytes(raw["t2d"]["data"]), np.bool_)
    assert raw["d2t"]["dtype"] == "I64" and raw["t2d"]["dtype"] == "BOOL"
    np.testing.assert_array_equal(np.nonzero(t2d)[0], d2t + np.arange(200))
    assert np.all(np.diff(d2t) >= 0) and d2t.min() >= 0 and d2t.max() <= 900 - 200


def test_seed_bug_mutators(tmp_path):
    base = build_drafter()
    bug1 = mutate_layer_keys(base)
    assert not any(k.startswith("midlayer.") for k in bug1.tensors)
    assert sorted(k.replace("layers.0.", "midlayer.") for k in bug1.tensors) == sorted(base.tensors)
    assert mutate_layer_keys(bug1, to="midlayer").tensors.keys() == base.tensors.keys()
    bug2 = mutate_d2t_absolute(base)
    np.testing.assert_array_equal(bug2.tensors["d2t"], np.nonzero(base.tensors["t2d"])[0])
    bug3 = detect_layout(infos_of(mutate_fc_single_aux(base), tmp_path), base.config)
    assert bug3.fc_in == 64 and bug3.K == 1
    assert base.tensors["fc.weight"].shape == (64, 192)  # the original is untouched


def test_demo_sized_drafter_builds_fast(tmp_path):
    import time

    start = time.perf_counter()
    build_drafter().write(tmp_path)
    assert time.perf_counter() - start < 1.0


def test_seed_story_drafters(tmp_path):
    from eagle3_inspect.synthetic.drafters import Drafter, seed_story_drafters

    story = seed_story_drafters()
    assert set(story) == {
        "correct", "bug1-layers-keys", "bug2-d2t-absolute", "bug3-fc-one-aux", "all-three"
    }  # fmt: skip
    both = story["all-three"]
    assert any(k.startswith("layers.0.") for k in both.tensors)
    np.testing.assert_array_equal(both.tensors["d2t"], story["bug2-d2t-absolute"].tensors["d2t"])
    assert both.tensors["fc.weight"].shape == (64, 64)
    # Without the build spec, Ht is recovered from fc and the configured aux count.
    bare = Drafter(dict(story["correct"].tensors), story["correct"].config)
    assert mutate_fc_single_aux(bare).tensors["fc.weight"].shape == (64, 64)
    f32 = build_drafter(dtype="F32", Ht=80)
    f32_bug = mutate_fc_single_aux(Drafter(dict(f32.tensors), f32.config))
    assert f32_bug.tensors["fc.weight"].shape == (64, 80)
    assert f32_bug.tensors["fc.weight"].dtype == np.float32


def test_files_written_by_safetensors_itself_give_the_same_layout(tmp_path):
    from safetensors.numpy import save_file

    import eagle3_inspect

    drafter = build_drafter(dtype="F32", dialect="layers", config_style="speculators")
    ours = detect_layout(infos_of(drafter, tmp_path), drafter.config)
    (tmp_path / "ref").mkdir()
    save_file(
        {k: np.asarray(v) for k, v in drafter.tensors.items()},
        str(tmp_path / "ref" / "model.safetensors"),
    )
    theirs = detect_layout(eagle3_inspect.open(tmp_path / "ref").tensors, drafter.config)
    assert ours.to_dict() == theirs.to_dict()


def test_one_key_grammar_for_layout_and_diff():
    from eagle3_inspect.layout.names import canonical_name, parse_block_key

    assert canonical_name("model.midlayer.mlp.up_proj.weight") == (
        "layers.0.mlp.up_proj.weight",
        frozenset({"model-prefix", "midlayer"}),
    )
    assert canonical_name("midlayers.3.norm.weight")[0] == "layers.3.norm.weight"
    assert canonical_name("layers.2.fc.weight") == ("layers.2.fc.weight", frozenset())
    key = parse_block_key("model.midlayers.3.self_attn.q_proj.weight")
    assert (key.dialect, key.index, key.prefix) == ("midlayer", 3, "model.midlayers.3.")
