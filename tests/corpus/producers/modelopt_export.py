"""NVIDIA Model-Optimizer (nvidia-modelopt) drafters through its own export.

EAGLE-3 variants: the tiny verifier loaded with transformers; `mtsp.convert(model, [("eagle",
EAGLE3_DEFAULT_CFG["config"])])` with the draft dims overridden to the tiny ones; for a compressed
draft vocab, `calibrate_frequent_vocab` over the synthetic token stream (through a stub
tokenizer whose `apply_chat_template` returns that stream: the tokenizer is irrelevant to saving,
and the mapping code itself runs unchanged) and `load_draft_vocab_cache`; then
`export_speculative_decoding` (`EagleExporter.export`: `model.safetensors` + `config.json`).

MLA (`eagle_decoder_type="kimik2"`): the same over the tiny DeepSeek-V3 verifier with
`kimik2_eagle_default_config`; Model-Optimizer fetches the decoder layer class from the Hub
(`speculative/utils.py _setup_kimi_k2_decoder`: `snapshot_download("moonshotai/Kimi-K2-Thinking")`
then `modeling_deepseek.DeepseekV3DecoderLayer`), which this machine cannot reach, so that one
function is replaced by transformers' own `DeepseekV3DecoderLayer` (same module and parameter
names; recorded under `shims`).

FP8: after `mtsp.convert`, `mtq.quantize(model, mtq.FP8_DEFAULT_CFG, forward_loop)` calibrated
on one synthetic sequence, then the same export (`_export_transformers_checkpoint`: F8_E4M3
weights, F32 `weight_scale`/`input_scale`, `quantization_config` + `hf_quant_config.json`).

DFlash: `mtsp.convert(model, [("dflash", DFLASH_DEFAULT_CFG["config"])])` over the tiny Qwen3
verifier with an explicit `dflash_mask_token_id`, then `export_speculative_decoding`
(`DFlashExporter`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from producers import common

TINY_DRAFT = {
    "intermediate_size": common.INTERMEDIATE,
    "num_attention_heads": common.HEADS,
    "num_key_value_heads": common.KV_HEADS,
    "head_dim": common.HEAD_DIM,
}
# kimik2_eagle_default_config at tiny dims: MLA ranks and head dims scaled down with the
# model, and the Kimi-K2 token ids (163584..163839, beyond a 1000-token vocabulary) replaced
# by the tiny verifier's.
TINY_MLA = {
    "intermediate_size": common.INTERMEDIATE,
    "num_attention_heads": common.HEADS,
    "num_key_value_heads": common.HEADS,
    **common.TINY_MLA_DIMS,
    "bos_token_id": 1,
    "eos_token_id": common.TARGET_VOCAB - 1,
    "pad_token_id": 0,
}
DFLASH_MASK_TOKEN_ID = 0  # as the speculators DFlash variants (--mask-token-id 0)


@dataclass(frozen=True)
class Variant:
    """One Model-Optimizer output: which mode, over which verifier, with what overrides."""

    note: str
    overrides: dict[str, Any] = field(default_factory=dict)
    algorithm: str = "eagle"  # or "dflash"
    decoder_type: str = "llama"  # eagle_decoder_type: llama or kimik2
    verifier: str = "llama"
    fp8: bool = False


VARIANTS: dict[str, Variant] = {
    "default": Variant("EAGLE3_DEFAULT_CFG at tiny dims: full vocab, no d2t, base lm_head copied"),
    "draft-vocab": Variant("draft vocab 200 (d2t only)", {"draft_vocab_size": common.DRAFT_VOCAB}),
    "layers2": Variant(
        "2 layers, draft vocab 200",
        {"draft_vocab_size": common.DRAFT_VOCAB, "num_hidden_layers": 2},
    ),
    "qwen3-target": Variant(
        "EAGLE3_DEFAULT_CFG over the Qwen3 verifier (the draft layer stays Llama: "
        "eagle_decoder_type llama)",
        verifier="qwen3",
    ),
    "fp8": Variant(
        "EAGLE3_DEFAULT_CFG, then mtq.quantize FP8_DEFAULT_CFG: F8_E4M3 weights with F32 scales",
        fp8=True,
    ),
    "mla-kimik2": Variant(
        "eagle_decoder_type kimik2 (kimik2_eagle_default_config, MLA attention) over the "
        "DeepSeek-V3-style verifier",
        decoder_type="kimik2",
        verifier="deepseek_v3",
    ),
    "dflash": Variant(
        "DFLASH_DEFAULT_CFG (5 layers, block 8) over the Qwen3 verifier",
        algorithm="dflash",
        verifier="qwen3",
    ),
}

KIMI_K2_SHIM = (
    "modelopt.torch.speculative.plugins.hf_eagle._setup_kimi_k2_decoder (which snapshot_downloads "
    "moonshotai/Kimi-K2-Thinking's modeling_deepseek.py) replaced by a function returning "
    "transformers.models.deepseek_v3.modeling_deepseek_v3.DeepseekV3DecoderLayer"
)


class StreamTokenizer:
    """Stands in for a tokenizer: `apply_chat_template` returns the synthetic token stream."""

    def __init__(self, ids: list[int]):
        self.ids = ids

    def apply_chat_template(self, conversations: Any, **_: Any) -> list[int]:
        del conversations
        return list(self.ids)


def _token_stream() -> list[int]:
    freq = common.token_frequencies()
    return [tid for tid in sorted(freq) for _ in range(freq[tid])]


def _mode_config(variant: Variant) -> tuple[str, dict[str, Any], list[str]]:
    """(mode name, mode config, description) for `mtsp.convert`."""
    from modelopt.torch.speculative.config import (
        DFLASH_DEFAULT_CFG,
        EAGLE3_DEFAULT_CFG,
        kimik2_eagle_default_config,
    )

    if variant.algorithm == "dflash":
        config = copy.deepcopy(DFLASH_DEFAULT_CFG["config"])
        config["dflash_mask_token_id"] = DFLASH_MASK_TOKEN_ID
        # The draft dims must be given: HFDFlashModel.modify builds a Qwen3Config from
        # dflash_architecture_config, whose own defaults (32 heads, head_dim 128,
        # intermediate 22016) shadow the "inherit from the base model" setdefault.
        config["dflash_architecture_config"].update({**TINY_DRAFT, **variant.overrides})
        return "dflash", config, ['("dflash", DFLASH_DEFAULT_CFG config + dflash_mask_token_id)']
    if variant.decoder_type == "kimik2":
        architecture = copy.deepcopy(kimik2_eagle_default_config)
        architecture.update({**TINY_MLA, **variant.overrides})
        # EagleConfig refuses the default YaRN export override over a YaRN-trained draft
        # ("Export rope overwrite is only valid when the training rope_type is 'default'").
        config = {
            "eagle_decoder_type": "kimik2",
            "eagle_export_rope_scaling": {},
            "eagle_architecture_config": architecture,
        }
        return (
            "eagle",
            config,
            ['("eagle", kimik2_eagle_default_config, eagle_decoder_type kimik2)'],
        )
    config = copy.deepcopy(EAGLE3_DEFAULT_CFG["config"])
    config["eagle_architecture_config"].update({**TINY_DRAFT, **variant.overrides})
    return "eagle", config, ['("eagle", EAGLE3_DEFAULT_CFG config)']


def _calibrate_fp8(model: Any) -> str:
    """`mtq.quantize` FP8 over the whole converted model, calibrated on one sequence."""
    import modelopt.torch.quantization as mtq
    import torch

    ids = torch.tensor([list(range(1, 33))])

    def forward_loop(m: Any) -> None:
        m(input_ids=ids, labels=ids)

    mtq.quantize(model, mtq.FP8_DEFAULT_CFG, forward_loop)
    return "modelopt.torch.quantization.quantize(model, FP8_DEFAULT_CFG, forward_loop)"


def generate_one(name: str, work: Path) -> dict[str, Any]:
    """Writes one drafter into the corpus and returns its manifest entry."""
    import modelopt.torch.speculative as mtsp
    import torch
    from modelopt.torch.export import export_speculative_decoding
    from modelopt.torch.speculative.utils import calibrate_frequent_vocab
    from transformers import AutoModelForCausalLM

    variant = VARIANTS[name]
    verifier = common.write_verifier(work, variant.verifier)
    model = AutoModelForCausalLM.from_pretrained(verifier, dtype=torch.bfloat16)
    mode, config, described = _mode_config(variant)
    shims = []
    if variant.decoder_type == "kimik2":
        import modelopt.torch.speculative.plugins.hf_eagle as hf_eagle
        from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3DecoderLayer

        hf_eagle._setup_kimi_k2_decoder = lambda: DeepseekV3DecoderLayer
        shims.append(KIMI_K2_SHIM)
    common.seed_everything()
    mtsp.convert(model, [(mode, config)])
    called = [f"modelopt.torch.speculative.convert(model, [{described[0]}])"]
    stubs = []
    if "draft_vocab_size" in variant.overrides:
        d2t_path = work / f"d2t-{name}.pt"
        calibrate_frequent_vocab(
            StreamTokenizer(_token_stream()),
            [],
            variant.overrides["draft_vocab_size"],
            str(d2t_path),
        )
        model.load_draft_vocab_cache(model, str(d2t_path))
        called += [
            "modelopt.torch.speculative.utils.calibrate_frequent_vocab",
            "HFEagleModel.load_draft_vocab_cache",
        ]
        stubs.append("tokenizer: apply_chat_template returns the synthetic token stream")
    if variant.fp8:
        called.append(_calibrate_fp8(model))
        stubs.append("calibration data: one sequence of token ids 1..32 (input_ids = labels)")
    out = work / f"export-{name}"
    export_speculative_decoding(model, export_dir=out)
    exporter = type(model.get_exporter()).__name__
    called.append(f"modelopt.torch.export.export_speculative_decoding -> {exporter}.export")

    producer_version = version("nvidia-modelopt")
    dest_name = f"modelopt-{producer_version}-{name}"
    files = common.copy_outputs(out, common.CORPUS_DIR / dest_name)
    return {
        "dir": dest_name,
        "producer": "modelopt",
        "producer_version": producer_version,
        "variant": name,
        "variant_note": variant.note,
        "options": _options(variant, config),
        "functions_called": called,
        "verifier": {"arch": variant.verifier, "config": common.verifier_config(variant.verifier)},
        "files": files,
        "dropped_side_files": [],
        "engines": ["sglang", "vllm", "trtllm"],
        "stubs": stubs,
        "shims": shims,
        "environment": common.environment(),
        "generator_command": common.command_line("modelopt", name),
        **_family(variant, model, exporter),
    }


def _options(variant: Variant, config: dict[str, Any]) -> dict[str, Any]:
    """What the variant changed from the mode's defaults (the existing variants keep their
    original record)."""
    if variant.algorithm == "dflash":
        return {
            "dflash_mask_token_id": config["dflash_mask_token_id"],
            "dflash_architecture_config_overrides": config["dflash_architecture_config"],
        }
    overrides = TINY_MLA if variant.decoder_type == "kimik2" else TINY_DRAFT
    options: dict[str, Any] = {
        "eagle_architecture_config_overrides": {**overrides, **variant.overrides}
    }
    if variant.decoder_type == "kimik2":
        options["eagle_decoder_type"] = "kimik2"
        options["eagle_export_rope_scaling"] = {}
    if variant.fp8:
        options["quantize"] = "mtq.FP8_DEFAULT_CFG"
    return options


def _family(variant: Variant, model: Any, exporter: str) -> dict[str, Any]:
    """The family record, from the converted model."""
    if variant.algorithm == "dflash":
        return common.family_fields(
            "dflash",
            "qwen3",
            f"Model-Optimizer mode 'dflash' -> {type(model).__name__}, {exporter}",
        )
    decoder = model.eagle_config.eagle_decoder_type
    return common.family_fields(
        "eagle3",
        "mla" if decoder == "kimik2" else "llama",
        f"Model-Optimizer mode 'eagle' -> {type(model).__name__}, eagle_decoder_type={decoder!r}, "
        f"{exporter}",
        quantization="fp8" if variant.fp8 else None,
    )


def generate(only: list[str] | None = None) -> list[dict[str, Any]]:
    """Writes every (or the named) Model-Optimizer variant; returns manifest entries."""
    entries = []
    work = common.work_dir("modelopt")
    for name in only or list(VARIANTS):
        entries.append(generate_one(name, work))
        common.record(entries[-1:])
    return entries
