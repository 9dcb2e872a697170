"""What counts as harm in an engine load record (the load harness's result for one drafter x
engine version), in one place: `--engine NAME@installed` (`installed/findings.py`), the
differential test (`tests/rules/en/test_differential.py`) and the truth tools
(`tools/engine_truth/agreement.py`, `matrix.py`, ...) all read it from here.

Harmful = the engine refuses the drafter, raises while loading it, or silently drops / leaves at
init a weight the forward pass uses. Everything below that is *not* harm carries the engine code
that makes it harmless.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# Dropped checkpoint tensors no engine forward pass reads: t2d is skipped by name in SGLang
# (llama_eagle3.py LlamaForCausalLMEagle3.load_weights) and vLLM (llama_eagle3.py
# Eagle3LlamaForCausalLM.load_weights `if "t2d" in name: continue`); neither consumes it.
BENIGN_DROPPED = ("t2d",)

# Parameters left at init that are harmless, with the engine code that makes them so:
BENIGN_UNLOADED_EVIDENCE = {
    "embed_tokens": (
        "shared from the target at runtime: SGLang srt/speculative/eagle_worker.py "
        "EAGLEWorker.__init__ (set_embed / set_embed_and_head, 0.5.9); vLLM "
        "v1/spec_decode/llm_base_proposer.py SpecDecodeBaseProposer.load_model "
        "(has_own_embed_tokens false -> the target's embed_tokens, 0.20.0)"
    ),
    "later_hidden_norm": (
        "vLLM builds layers.N.hidden_norm for every layer but llama_eagle3.py "
        "LlamaDecoderLayer.forward reads it only when layer_idx == 0 (SGLang >= 0.5.12 is the "
        "opposite and does read it)"
    ),
    "identity_d2t": (
        "vLLM draft_id_to_target_id stays torch.zeros when the checkpoint has no d2t; with draft "
        "vocab == target vocab llama_eagle3.py compute_logits adds zero offsets (identity)"
    ),
    "dflash_mask_embedding": (
        "vLLM qwen3_dflash.py DFlashQwen3Model.mask_embedding (>= 0.25) is read by "
        "embed_input_ids only when load_weights found a mask_embedding.pt beside the "
        "checkpoint (has_separate_mask_embedding); otherwise the target embedding's "
        "mask_token_id row is used"
    ),
    "shared_lm_head": (
        "vLLM shares the target's lm_head when the checkpoint has none (process_eagle_weight "
        "sets has_own_lm_head only for a loaded lm_head): v1/spec_decode/llm_base_proposer.py "
        "SpecDecodeBaseProposer._maybe_share_lm_head (0.20.0), "
        "v1/worker/gpu/spec_decode/dflash/utils.py load_dflash_model (0.33.0); speculators "
        "rebuilds it from the verifier: model.py SpeculatorModel.from_pretrained -> "
        "load_verifier_weights (dflash/core.py: overwrite_lm_head for a full vocabulary; run on "
        "dflash-full-vocab, the loaded lm_head equals the verifier's). Harmless only when the "
        "draft vocab is the target's"
    ),
}
# A target that captures fewer or more hidden states than the drafter's fc reads fails at the
# first draft step: vLLM's runner reads no aux ids from this config (None) and captures the
# target's default, interfaces.py SupportsEagle3.get_eagle3_default_aux_hidden_state_layers =
# (2, n // 2, n - 3), 3 states (0.20.0, 0.33.0); qwen3_dflash.py combine_hidden_states then
# raises "DFlash drafter expects N concatenated aux hidden features" (0.33.0), a matmul shape
# error before that.
DEFAULT_AUX_STATES = 3
LATER_HIDDEN_NORM = re.compile(r"layers\.[1-9]\d*\.hidden_norm\.weight$")

# Rows whose ground truth is not the engine's behaviour but the harness's environment: the
# truth run had no network, and speculators' from_pretrained resolves the verifier named in
# speculators_config.verifier.name_or_path from the Hub (models/eagle3/core.py
# resolve_target_layer_ids). Such rows say nothing about the drafter and are not compared.
HARNESS_ONLY_ERRORS = ("LocalEntryNotFoundError",)


def vocab_sizes(config: Mapping[str, Any]) -> tuple[Any, Any]:
    """(target vocab, draft vocab) as the drafter's config states them."""
    layer_cfg = config.get("transformer_layer_config") or {}
    vt = config.get("vocab_size") or layer_cfg.get("vocab_size")
    return vt, config.get("draft_vocab_size") or vt


def benign_unloaded(
    name: str, engine: str, config: Mapping[str, Any], tensors: Mapping[str, Any]
) -> bool:
    """True when parameter `name` left at init by `engine` does not change the drafter's output."""
    if name.endswith("embed_tokens.weight"):
        return True
    if engine == "vllm" and LATER_HIDDEN_NORM.search(name):
        return True
    if engine == "vllm" and name == "model.mask_embedding":
        return True
    if (
        engine in ("vllm", "speculators")
        and name.endswith("lm_head.weight")
        and not any(t.endswith("lm_head.weight") for t in tensors)
    ):
        vt, vd = vocab_sizes(config)
        return bool(vd == vt)
    if name == "draft_id_to_target_id" and not any("d2t" in t for t in tensors):
        vt, vd = vocab_sizes(config)
        return bool(vd == vt)
    return False


def compared(result: Mapping[str, Any]) -> bool:
    """False for rows the differential test cannot hold validate to (not modelled, or the
    harness's own environment failed)."""
    if result["verdict"] == "NOT-MODELLED":
        return False
    exception = (result.get("why") or {}).get("exception", "")
    return not any(marker in exception for marker in HARNESS_ONLY_ERRORS)


def _few(names: list[str]) -> str:
    return ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")


def harmful_names(
    result: Mapping[str, Any], config: Mapping[str, Any], tensors: Mapping[str, Any]
) -> tuple[list[str], list[str]]:
    """(dropped, never loaded) names of a LOADED record that do matter."""
    engine = result["engine"]
    dropped = [n for n in result["dropped"] if n not in BENIGN_DROPPED]
    unloaded = [
        n for n in result["never_loaded"] if not benign_unloaded(n, engine, config, tensors)
    ]
    return dropped, unloaded


def aux_fc_mismatch(result: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """Why the target's captured states cannot feed the fc vLLM built, or None: the runner
    read no aux ids (target default, DEFAULT_AUX_STATES states) and fc's input is not that
    many hidden states wide."""
    if result["engine"] != "vllm" or result.get("aux_layer_ids") is not None:
        return None
    fc_in = result.get("fc_in_features")
    layer_cfg = config.get("transformer_layer_config") or {}
    hidden = (
        config.get("target_hidden_size")
        or config.get("hidden_size")
        or layer_cfg.get("hidden_size")
    )
    if not isinstance(fc_in, int) or not isinstance(hidden, int) or fc_in == 0:
        return None
    if fc_in == DEFAULT_AUX_STATES * hidden:
        return None
    return (
        f"fc reads {fc_in // hidden} hidden states, the target captures its default "
        f"{DEFAULT_AUX_STATES} (no aux ids read)"
    )


def engine_says_harm(
    result: Mapping[str, Any], config: Mapping[str, Any], tensors: Mapping[str, Any]
) -> tuple[bool, str]:
    """(harmful, short reason) for one engine record."""
    if result["verdict"] != "LOADED":
        return True, f"{result['verdict']}: {result['why']['exception'][:80]}"
    dropped, unloaded = harmful_names(result, config, tensors)
    if dropped or unloaded:
        return True, f"LOADED, dropped {_few(dropped)}, never loaded {_few(unloaded)}"
    mismatch = aux_fc_mismatch(result, config)
    if mismatch:
        return True, f"LOADED, but {mismatch}"
    return False, "LOADED as trained"
