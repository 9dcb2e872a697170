"""The config reader and E3 rules on real-world configs quoted in the shared reference (C.1).

Tensor headers are synthesised at real scale as TensorInfo records (no data): what the configs
describe, laid out the way each producer writes it.
"""

from __future__ import annotations

from eagle3_inspect.findings import Severity
from eagle3_inspect.layout import detect_layout
from eagle3_inspect.reader.draft_config import read_draft_config
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.e3 import TargetInfo, check_drafter, check_target

# SafeAILab/EAGLE eagle/traineagle3/config.json (reference C.1), verbatim.
EAGLE_TEMPLATE = {
    "architectures": ["LlamaForCausalLM"], "bos_token_id": 128000, "eos_token_id": 128001,
    "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336,
    "max_position_embeddings": 2048, "model_type": "llama", "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_hidden_layers": 1, "pad_token_id": 0, "rms_norm_eps": 1e-05,
    "tie_word_embeddings": False, "torch_dtype": "float16", "vocab_size": 128256,
    "draft_vocab_size": 32000,
}  # fmt: skip
# sgl-project/SpecForge configs/qwen3-235B-A22B-eagle3.json (reference C.1), verbatim.
SPECFORGE_QWEN3 = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 46, 90], "use_aux_hidden_state": True},
    "attention_bias": False, "draft_vocab_size": 32000, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 4096, "intermediate_size": 24576, "max_position_embeddings": 40960,
    "model_type": "llama", "num_attention_heads": 64, "num_hidden_layers": 1,
    "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
    "rope_scaling": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "vocab_size": 151936,
}  # fmt: skip


def _midlayer_infos(H, I, q_rows, kv_rows, Vd, Vt, dtype, fc_in):  # noqa: E741 - reference name
    shapes = {
        "fc.weight": (H, fc_in),
        "midlayer.self_attn.q_proj.weight": (q_rows, 2 * H),
        "midlayer.self_attn.k_proj.weight": (kv_rows, 2 * H),
        "midlayer.self_attn.v_proj.weight": (kv_rows, 2 * H),
        "midlayer.self_attn.o_proj.weight": (H, q_rows),
        "midlayer.mlp.gate_proj.weight": (I, H),
        "midlayer.mlp.up_proj.weight": (I, H),
        "midlayer.mlp.down_proj.weight": (H, I),
        "midlayer.hidden_norm.weight": (H,),
        "midlayer.input_layernorm.weight": (H,),
        "midlayer.post_attention_layernorm.weight": (H,),
        "norm.weight": (H,),
        "lm_head.weight": (Vd, H),
    }
    infos = {n: TensorInfo(n, dtype, s, 0, "model.safetensors", 0) for n, s in shapes.items()}
    infos["d2t"] = TensorInfo("d2t", "I64", (Vd,), 8 * Vd, "model.safetensors", 0)
    infos["t2d"] = TensorInfo("t2d", "BOOL", (Vt,), Vt, "model.safetensors", 0)
    return infos


def test_eagle_release_template():
    cfg = read_draft_config(EAGLE_TEMPLATE)
    assert cfg.style == "eagle" and cfg.aux_layer_ids is None
    infos = _midlayer_infos(4096, 14336, 4096, 1024, 32000, 128256, "F16", 3 * 4096)
    layout = detect_layout(infos, cfg)
    assert (layout.heads, layout.kv_heads, layout.head_dim) == (32, 8, 128)
    findings = check_drafter(infos, cfg, layout)
    assert {(f.code, f.severity) for f in findings} == {
        ("E3005", Severity.INFO),
        ("E3018", Severity.INFO),
        ("E3019", Severity.WARNING),
    }


def test_specforge_qwen3_235b_drafter_and_target():
    cfg = read_draft_config(SPECFORGE_QWEN3)
    assert cfg.style == "sglang" and cfg.aux_layer_ids == [1, 46, 90]
    infos = _midlayer_infos(4096, 24576, 64 * 128, 4 * 128, 32000, 151936, "BF16", 3 * 4096)
    layout = detect_layout(infos, cfg)
    assert [f.code for f in check_drafter(infos, cfg, layout)] == ["E3005"]
    # Qwen3-235B-A22B: 94 layers, hidden 4096, vocab 151936, bf16.
    target = TargetInfo(
        path="Qwen/Qwen3-235B-A22B", architectures=["Qwen3MoeForCausalLM"], hidden_size=4096,
        vocab_size=151936, num_hidden_layers=94, torch_dtype="bfloat16",
        embed_shape=(151936, 4096), lm_head_shape=(151936, 4096),
    )  # fmt: skip
    assert check_target(layout, cfg, target) == []
    # The same drafter against a 64-layer target: id 90 is out of range.
    target.num_hidden_layers = 64
    assert [f.code for f in check_target(layout, cfg, target)] == ["E3103"]


def test_specforge_config_with_wrong_head_dim_is_caught():
    cfg = read_draft_config({**SPECFORGE_QWEN3, "head_dim": 64})
    infos = _midlayer_infos(4096, 24576, 64 * 128, 4 * 128, 32000, 151936, "BF16", 3 * 4096)
    codes = {f.code for f in check_drafter(infos, cfg) if f.severity is Severity.ERROR}
    assert codes == {"E3028"}
