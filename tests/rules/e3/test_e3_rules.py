"""E3 rules: correct drafters stay quiet; every rule fires on a drafter broken on purpose."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eagle3_inspect.findings import Severity
from eagle3_inspect.layout import detect_layout
from eagle3_inspect.reader.draft_config import read_draft_config
from eagle3_inspect.registry import all_rules
from eagle3_inspect.rules.e3 import check_drafter, check_target, load_target
from eagle3_inspect.synthetic.drafters import (
    Drafter,
    build_drafter,
    mutate_d2t_absolute,
    mutate_fc_single_aux,
    mutate_layer_keys,
)
from eagle3_inspect.synthetic.targets import target_config, write_target
from tests.layout_helpers import infos_of, renamed, with_config, with_tensor

RULES = [r for r in all_rules().values() if r.family == "E3"]

LOUD = (Severity.ERROR, Severity.WARNING)

CORRECT = {
    "sglang-midlayer": {},
    "speculators-layers": {"dialect": "layers", "config_style": "speculators"},
    "eagle-with-ids": {"config_style": "eagle", "aux_layer_ids": [2, 16, 29]},
    "sglang-f16": {"dtype": "F16"},
    "sglang-f32-full-vocab": {"dtype": "F32", "Vd": 1024},
    "sglang-wide-target": {"Ht": 96},
    "sglang-head-dim": {"head_dim": 32, "kv_heads": 1},
    "sglang-k4": {"K": 4},
    "mla-kimi": {"dialect": "layers", "mla": True},
    "eagle31-input-norm": {"eagle31": True, "dialect": "layers", "config_style": "speculators"},
    "eagle31-fc-norm": {"eagle31": "fc_norm", "Ht": 80},
}


def _run(drafter: Drafter, tmp_path, config=...):
    infos = infos_of(drafter, tmp_path)
    return check_drafter(infos, drafter.config if config is ... else config)


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_drafters_stay_quiet(tmp_path, name):
    findings = _run(build_drafter(**CORRECT[name]), tmp_path)
    assert [f for f in findings if f.severity in LOUD] == []
    expected = ["E3005", "E3018"] if name.startswith("eagle-") else ["E3005"]
    assert [f.code for f in findings] == expected


def test_original_eagle_template_only_warns_about_aux_ids(tmp_path):
    codes = {(f.code, f.severity) for f in _run(build_drafter(config_style="eagle"), tmp_path)}
    assert codes == {
        ("E3005", Severity.INFO),
        ("E3018", Severity.INFO),
        ("E3019", Severity.WARNING),
    }


def _base(**kw) -> Drafter:
    return build_drafter(**kw)


def _spec(**kw) -> Drafter:
    return build_drafter(dialect="layers", config_style="speculators", **kw)


# code -> (builder, expected severity, optional predicate on the finding)
CASES: dict[str, tuple[Callable[[], Drafter], Severity]] = {
    "E3001": (lambda: with_tensor(_base(), "midlayer.hidden_norm.weight", None), Severity.ERROR),
    "E3002": (lambda: with_tensor(_base(), "lm_head.weight", None), Severity.ERROR),
    "E3003": (lambda: renamed(_base(), "midlayer.", "decoder."), Severity.ERROR),
    "E3004": (lambda: renamed(_base(), "midlayer.mlp.", "layers.0.mlp."), Severity.WARNING),
    "E3005": (lambda: _base(), Severity.INFO),
    "E3006": (
        lambda: with_tensor(_base(), "midlayer.self_attn.k_proj.weight", (32, 64)),
        Severity.ERROR,
    ),
    "E3007": (
        lambda: with_tensor(_spec(layers=2), "layers.1.self_attn.q_proj.weight", (64, 128)),
        Severity.ERROR,
    ),
    "E3008": (lambda: with_tensor(_base(), "fc.weight", (32, 192)), Severity.ERROR),
    "E3009": (lambda: mutate_fc_single_aux(_base()), Severity.ERROR),
    "E3010": (lambda: with_config(_base(), "draft_vocab_size", 300), Severity.ERROR),
    "E3011": (
        lambda: with_config(_spec(), "transformer_layer_config.vocab_size", 2000),
        Severity.ERROR,
    ),
    "E3012": (lambda: with_config(_base(), "num_hidden_layers", 40), Severity.ERROR),
    "E3013": (lambda: with_config(_base(), "tie_word_embeddings", True), Severity.ERROR),
    "E3014": (lambda: with_config(_base(Ht=96), "target_hidden_size", delete=True), Severity.ERROR),
    "E3015": (lambda: _base(Ht=96, with_embed=False), Severity.ERROR),
    "E3016": (lambda: with_tensor(_base(), "fc.weight", (64, 192), dtype="F32"), Severity.ERROR),
    "E3017": (lambda: with_config(_base(), "architectures", ["MyDraft"]), Severity.ERROR),
    "E3018": (lambda: _base(config_style="eagle", aux_layer_ids=[1, 2, 3]), Severity.INFO),
    "E3019": (lambda: with_config(_base(), "eagle_config", delete=True), Severity.WARNING),
    "E3020": (
        lambda: with_config(_base(), "eagle_aux_hidden_state_layer_ids", [2, 16, 29]),
        Severity.WARNING,
    ),
    "E3021": (
        lambda: with_config(_base(), "eagle_config.eagle_aux_hidden_state_layer_ids", [1, 1, 5]),
        Severity.ERROR,
    ),
    "E3022": (lambda: _spec(qwen3_norms=True), Severity.WARNING),
    "E3023": (lambda: _spec(layers=2), Severity.WARNING),
    "E3024": (
        lambda: with_config(
            _base(dialect="layers", mla=True), "architectures", ["LlamaForCausalLMEagle3"]
        ),
        Severity.ERROR,
    ),
    "E3025": (lambda: with_config(_spec(eagle31=True), "norm_before_fc", False), Severity.WARNING),
    "E3026": (lambda: with_tensor(_spec(eagle31=True), "input_norm.weight", None), Severity.ERROR),
    "E3027": (lambda: with_tensor(_spec(eagle31=True), "input_norm.weight", (64,)), Severity.ERROR),
    "E3028": (
        lambda: with_tensor(_base(), "midlayer.mlp.down_proj.weight", (64, 100)),
        Severity.ERROR,
    ),
    "E3029": (lambda: with_config(_spec(), "norm_before_residual", delete=True), Severity.WARNING),
    "E3030": (lambda: _base(), Severity.INFO),
    "E3031": (lambda: with_config(_base(), "torch_dtype", "float16"), Severity.WARNING),
    "E3032": (
        lambda: Drafter({f"model.{k}": v for k, v in _base().tensors.items()}, _base().config),
        Severity.WARNING,
    ),
    "E3033": (lambda: mutate_layer_keys(_base()), Severity.WARNING),
}
NO_CONFIG = {"E3030"}


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_rule_fires(tmp_path, code):
    build, severity = CASES[code]
    drafter = build()
    findings = _run(drafter, tmp_path, None if code in NO_CONFIG else ...)
    hits = [f for f in findings if f.code == code]
    assert hits, [f.code for f in findings]
    assert {f.severity for f in hits} == {severity}
    for finding in hits:
        assert finding.message
        if finding.tensor is not None and finding.tensor in drafter.tensors:
            assert finding.file is not None and finding.file.endswith(".safetensors")


def test_every_drafter_rule_has_a_firing_test():
    drafter_codes = {r.code for r in RULES if r.code.startswith("E30")}
    assert drafter_codes == set(CASES)
    target_codes = {r.code for r in RULES if r.code.startswith("E31")}
    assert target_codes == set(TARGET_CASES)


def test_catalogue_is_registered_and_complete():
    rules = all_rules()
    for rule in RULES:
        assert rules[rule.code] is rule
        assert rule.summary and rule.explanation
        assert rule.code.startswith("E3") and len(rule.code) == 5


# --- the seed story ------------------------------------------------------------------------------


def test_seed_bug3_fc_for_one_aux_layer(tmp_path):
    """Seed bug 3: fc [H, 1*Ht] while the config declares three aux layer ids."""
    drafter = mutate_fc_single_aux(build_drafter(H=64, Ht=64, K=3))
    errors = [f for f in _run(drafter, tmp_path) if f.severity is Severity.ERROR]
    assert [f.code for f in errors] == ["E3009"]
    (finding,) = errors
    assert finding.tensor == "fc.weight"
    assert finding.config_key == "eagle_config.eagle_aux_hidden_state_layer_ids"
    assert "1 aux layer" in finding.message and "192" in finding.message


def test_seed_bug3_is_caught_without_configured_ids(tmp_path):
    drafter = with_config(mutate_fc_single_aux(build_drafter()), "eagle_config", delete=True)
    codes = [f.code for f in _run(drafter, tmp_path) if f.severity is Severity.ERROR]
    assert codes == ["E3009"]


def test_seed_bug1_layers_keys_under_sglang_config(tmp_path):
    findings = _run(mutate_layer_keys(build_drafter()), tmp_path)
    loud = [(f.code, f.severity) for f in findings if f.severity in LOUD]
    assert loud == [("E3033", Severity.WARNING)]
    speculators_midlayer = _run(mutate_layer_keys(_spec(), to="midlayer"), tmp_path)
    assert ("E3033", Severity.INFO) in {(f.code, f.severity) for f in speculators_midlayer}


def test_seed_bug2_is_left_to_the_vocab_rules(tmp_path):
    findings = _run(mutate_d2t_absolute(build_drafter()), tmp_path)
    assert [f for f in findings if f.severity in LOUD] == []


def test_seed_checkpoint_shapes_at_real_scale():
    """The seed's Kimi-K2.5 drafter shapes, as TensorInfo only (no data): quiet when correct."""
    from eagle3_inspect.reader.tensorinfo import TensorInfo

    H, inter, Vd, Vt = 7168, 18432, 32000, 163840
    shapes = {
        "d2t": ("I64", (Vd,)),
        "embed_tokens.weight": ("BF16", (Vt, H)),
        "fc.weight": ("BF16", (H, 3 * H)),
        "lm_head.weight": ("BF16", (Vd, H)),
        "midlayer.hidden_norm.weight": ("BF16", (H,)),
        "midlayer.input_layernorm.weight": ("BF16", (H,)),
        "midlayer.post_attention_layernorm.weight": ("BF16", (H,)),
        "midlayer.mlp.down_proj.weight": ("BF16", (H, inter)),
        "midlayer.mlp.gate_proj.weight": ("BF16", (inter, H)),
        "midlayer.mlp.up_proj.weight": ("BF16", (inter, H)),
        "midlayer.self_attn.q_proj.weight": ("BF16", (64 * 128, 2 * H)),
        "midlayer.self_attn.k_proj.weight": ("BF16", (8 * 128, 2 * H)),
        "midlayer.self_attn.v_proj.weight": ("BF16", (8 * 128, 2 * H)),
        "midlayer.self_attn.o_proj.weight": ("BF16", (H, 64 * 128)),
        "norm.weight": ("BF16", (H,)),
        "t2d": ("BOOL", (Vt,)),
    }
    infos = {n: TensorInfo(n, d, s, 0, "x.safetensors", 0) for n, (d, s) in shapes.items()}
    config = build_drafter().config | {
        "hidden_size": H, "intermediate_size": inter, "num_attention_heads": 64,
        "num_key_value_heads": 8, "head_dim": 128, "vocab_size": Vt, "draft_vocab_size": Vd,
    }  # fmt: skip
    config["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [1, 29, 57]}
    assert [f.code for f in check_drafter(infos, config) if f.severity in LOUD] == []
    infos["fc.weight"] = TensorInfo("fc.weight", "BF16", (H, H), 0, "x.safetensors", 0)
    bad = [f for f in check_drafter(infos, config) if f.severity in LOUD]
    assert [f.code for f in bad] == ["E3009"] and "21504" in bad[0].message


# --- variations of single rules -----------------------------------------------------------------


def test_missing_lm_head_is_only_a_warning_for_full_vocab(tmp_path):
    drafter = with_tensor(build_drafter(Vd=1024), "lm_head.weight", None)
    (hit,) = [f for f in _run(drafter, tmp_path) if f.code == "E3002"]
    assert hit.severity is Severity.WARNING


def test_lm_head_rows_without_draft_vocab_size(tmp_path):
    drafter = with_config(build_drafter(), "draft_vocab_size", delete=True)
    hits = [f for f in _run(drafter, tmp_path) if f.code == "E3010"]
    assert hits and "draft_vocab_size is missing" in hits[0].message


def test_config_shape_disagreements_name_their_keys(tmp_path):
    drafter = with_config(_spec(), "transformer_layer_config.intermediate_size", 999)
    hits = [f for f in _run(drafter, tmp_path) if f.code == "E3028"]
    assert {f.tensor for f in hits} == {
        f"layers.0.mlp.{p}_proj.weight" for p in ("gate", "up", "down")
    }
    drafter = with_config(_spec(), "transformer_layer_config.hidden_size", 128)
    keys = {f.config_key for f in _run(drafter, tmp_path) if f.code == "E3028"}
    assert keys == {"transformer_layer_config.hidden_size"}
    drafter = with_config(_base(), "num_attention_heads", 8)
    assert any(f.code == "E3028" for f in _run(drafter, tmp_path))


def test_tie_inside_transformer_layer_config(tmp_path):
    drafter = with_config(_spec(), "transformer_layer_config.tie_word_embeddings", True)
    hits = [f for f in _run(drafter, tmp_path) if f.code == "E3013"]
    assert [f.config_key for f in hits] == ["transformer_layer_config.tie_word_embeddings"]


def test_qwen3_norms_under_a_llama_model_type_are_an_error(tmp_path):
    drafter = with_config(_spec(qwen3_norms=True), "transformer_layer_config.model_type", "llama")
    (hit,) = [f for f in _run(drafter, tmp_path) if f.code == "E3022"]
    assert hit.severity is Severity.ERROR
    assert hit.config_key == "transformer_layer_config.model_type"


def test_deepseek_architecture_without_mla(tmp_path):
    drafter = with_config(_base(), "architectures", ["Eagle3DeepseekV2ForCausalLM"])
    assert "E3024" in {f.code for f in _run(drafter, tmp_path)}


def test_malformed_aux_ids_variants(tmp_path):
    for value in (["a", 1, 2], [-3, 4, 5], [], "1,2,3"):
        drafter = with_config(_base(), "eagle_config.eagle_aux_hidden_state_layer_ids", value)
        assert "E3021" in {f.code for f in _run(drafter, tmp_path)}, value


def test_layout_argument_is_used(tmp_path):
    drafter = build_drafter()
    infos = infos_of(drafter, tmp_path)
    layout = detect_layout(infos, drafter.config)
    assert check_drafter(infos, drafter.config, layout) == check_drafter(
        infos, read_draft_config(drafter.config)
    )


# --- target cross-checks ------------------------------------------------------------------------


def _target_run(tmp_path, drafter: Drafter, target_dir, path_suffix=""):
    infos = infos_of(drafter, tmp_path)
    cfg = read_draft_config(drafter.config)
    layout = detect_layout(infos, cfg)
    return check_target(layout, cfg, load_target(str(target_dir) + path_suffix))


TARGET_CASES = {
    "E3101": (dict(hidden_size=96), {}),
    "E3102": (dict(vocab_size=2048), {}),
    "E3103": (dict(num_hidden_layers=20), {}),
    "E3104": (dict(), {"embed_shape": (1024, 96)}),
    "E3105": (dict(), {"lm_head_shape": (1024, 64)}),
    "E3106": (dict(torch_dtype="float16"), {}),
    "E3107": (dict(multimodal=True), {}),
    "E3108": (dict(), {}),
}


@pytest.mark.parametrize("suffix", ["", "/config.json", "/model.safetensors.index.json"])
@pytest.mark.parametrize("multimodal", [False, True])
def test_matching_target_is_quiet(tmp_path, suffix, multimodal):
    target = write_target(tmp_path / "t", target_config(multimodal=multimodal))
    findings = _target_run(tmp_path, build_drafter(), target, suffix)
    assert [f for f in findings if f.severity in LOUD] == []
    assert {f.code for f in findings} == ({"E3107"} if multimodal else set())


@pytest.mark.parametrize("code", sorted(TARGET_CASES))
def test_each_target_rule_fires(tmp_path, code):
    config_kw, write_kw = TARGET_CASES[code]
    config = target_config(**config_kw)
    if code == "E3108":
        del config["num_hidden_layers"]
    target = write_target(tmp_path / "t", config, **write_kw)
    drafter = build_drafter()
    if code == "E3105":
        drafter = with_tensor(drafter, "lm_head.weight", None)
    findings = _target_run(tmp_path, drafter, target)
    hits = [f for f in findings if f.code == code]
    assert hits, [f.code for f in findings]
    assert {f.severity for f in hits} == {RULE_SEVERITY[code]}


RULE_SEVERITY = {r.code: r.severity for r in RULES}


def test_wider_target_with_own_drafter_embedding_is_quiet(tmp_path):
    target = write_target(tmp_path / "t", target_config(hidden_size=96))
    drafter = build_drafter(Ht=96)  # ships its own [1024, 64] embedding
    assert drafter.meta["spec"].Ht == 96 and "embed_tokens.weight" in drafter.tensors
    findings = _target_run(tmp_path, drafter, target)
    assert [f for f in findings if f.severity in LOUD] == []
    borrowed = with_tensor(drafter, "embed_tokens.weight", None)
    assert "E3104" in {f.code for f in _target_run(tmp_path, borrowed, target)}


def test_load_target_reads_headers_only_where_needed(tmp_path):
    target = write_target(tmp_path / "t", target_config(vocab_size=500, hidden_size=48))
    info = load_target(target)
    assert info.embed_name == "model.embed_tokens.weight" and info.embed_shape == (500, 48)
    assert info.lm_head_name == "lm_head.weight" and info.lm_head_shape == (500, 48)
    shard = next(target.glob("model-00002-*.safetensors"))
    single = load_target(shard)
    assert single.lm_head_shape == (500, 48) and single.hidden_size == 48
    from_config = load_target(target / "config.json")
    assert from_config.embed_shape is None and from_config.vocab_size == 500
    with pytest.raises(FileNotFoundError):
        load_target(tmp_path / "missing")


def test_tied_target_head_comes_from_embedding(tmp_path):
    config = target_config(tie_word_embeddings=True, vocab_size=1024)
    target = write_target(tmp_path / "t", config, lm_head_shape=(0, 0))
    info = load_target(target)
    assert info.lm_head_shape is None and info.tie_word_embeddings is True
    drafter = with_tensor(build_drafter(), "lm_head.weight", None)
    codes = {f.code for f in _target_run(tmp_path, drafter, target)}
    assert "E3105" in codes  # target head [1024, 64] != drafter's [256, 64]
    full = with_tensor(build_drafter(Vd=1024), "lm_head.weight", None)
    assert "E3105" not in {f.code for f in _target_run(tmp_path, full, target)}


# --- robustness -----------------------------------------------------------------------------------

_json_scalars = st.none() | st.booleans() | st.integers(-5, 10**6) | st.text(max_size=6)
_json = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=8,
)
_keys = st.sampled_from(
    [
        "architectures", "hidden_size", "target_hidden_size", "vocab_size", "draft_vocab_size",
        "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
        "intermediate_size", "tie_word_embeddings", "torch_dtype", "num_aux_hidden_states",
        "eagle_aux_hidden_state_layer_ids", "eagle_config", "transformer_layer_config",
        "speculators_config", "norm_before_fc", "fc_norm", "norm_before_residual",
    ]
)  # fmt: skip
_names = st.sampled_from(
    [
        "fc.weight", "norm.weight", "lm_head.weight", "embed_tokens.weight", "d2t", "t2d",
        "midlayer.self_attn.q_proj.weight", "layers.0.self_attn.k_proj.weight",
        "layers.1.mlp.down_proj.weight", "midlayer.3.hidden_norm.weight", "input_norm.weight",
        "fc_norm.0.weight", "model.midlayer.self_attn.q_a_proj.weight",
        "layers.0.self_attn.q_norm.weight", "layers.0.self_attn.kv_a_proj_with_mqa.weight",
    ]
)  # fmt: skip
_tensor = st.tuples(
    st.sampled_from(["BF16", "F32", "I64", "BOOL", "F8_E4M3", "XX"]),
    st.lists(st.integers(0, 300), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(
    config=st.none()
    | st.dictionaries(_keys, _json | st.dictionaries(_keys, _json, max_size=5), max_size=8),
    tensors=st.dictionaries(_names, _tensor, max_size=10),
)
def test_rules_never_raise_on_arbitrary_input(config, tensors):
    from eagle3_inspect.reader.tensorinfo import TensorInfo

    infos = {n: TensorInfo(n, d, tuple(s), 0, "f", 0) for n, (d, s) in tensors.items()}
    findings = check_drafter(infos, config)
    assert all(f.code in all_rules() for f in findings)
    cfg = read_draft_config(config)
    target = load_target_stub()
    check_target(detect_layout(infos, cfg), cfg, target)


def load_target_stub():
    from eagle3_inspect.reader.target import TargetInfo

    return TargetInfo(
        path="t", hidden_size=64, vocab_size=1024, num_hidden_layers=3, torch_dtype="float16",
        embed_shape=(1024, 64), lm_head_shape=(1024, 64),
    )  # fmt: skip
