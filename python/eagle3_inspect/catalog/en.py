"""EN rules: what a given engine version would silently (or loudly) do with an EAGLE-3 drafter.

Every EN finding names the engine and version (`engine="sglang@0.5.11"`); the behaviour comes
from the profile data files in `eagle3_inspect/profiles/`, each citing the engine source read.
"""

from __future__ import annotations

from eagle3_inspect.catalog import RuleDoc
from eagle3_inspect.findings import Severity

RULES: tuple[RuleDoc, ...] = (
    RuleDoc(
        code="EN001",
        severity=Severity.ERROR,
        summary="The engine silently drops a checkpoint tensor",
        explanation=(
            "After its renames, the engine finds no parameter for the tensor and skips it without "
            "a message. SGLang <= 0.5.11 (llama_eagle3.py load_weights) tries `name` and "
            "`model.`+name and ignores everything else, so a speculators-style `layers.0.*` "
            "drafter loses its whole decoder layer. vLLM drops `input_norm.*` unless "
            "norm_before_fc is set and ignores unexpected `.bias` tensors."
        ),
        example="sglang@0.5.11 silently drops tensor layers.0.self_attn.q_proj.weight",
        hint="rename the tensor (layers.0. -> midlayer.) or use an engine version that maps it",
    ),
    RuleDoc(
        code="EN002",
        severity=Severity.ERROR,
        summary="A drafter parameter would stay at its random / initial value",
        explanation=(
            "No checkpoint tensor reaches this parameter after the engine's renames, and the "
            "engine's loader does not check for missing weights (SGLang load_weights, vLLM "
            "Eagle3LlamaForCausalLM.load_weights returns None so DefaultModelLoader cannot report "
            "unloaded parameters). Examples: lm_head with draft_vocab_size set in SGLang "
            "(PR #27908, accept rate 0.00); d2t missing with a reduced vocabulary (identity map)."
        ),
        example="sglang@0.5.11 leaves parameter midlayer.self_attn.q_proj.weight at its init value",
        hint="ship the tensor under a name the engine maps",
    ),
    RuleDoc(
        code="EN003",
        severity=Severity.WARNING,
        summary="The engine ignores a config field the checkpoint sets",
        explanation=(
            "The field is present, but not where this engine reads it. SGLang reads aux layer ids "
            "only from eagle_config (model_runner.py); vLLM < 0.28 only from the top level; vLLM's "
            "V2 model runner reads eagle_config['layer_ids'], not "
            "eagle_config['eagle_aux_hidden_state_layer_ids'] (v1/worker/gpu/spec_decode/eagle/"
            "eagle3_utils.py)."
        ),
        example="sglang@0.5.23 ignores eagle_aux_hidden_state_layer_ids=[2, 16, 29]",
        hint="put the field where the engine reads it",
    ),
    RuleDoc(
        code="EN004",
        severity=Severity.ERROR,
        summary="The engine does not serve this draft architecture as EAGLE-3",
        explanation=(
            "config.architectures[0] (after the engine's own rewrite: vLLM prefixes `Eagle3`, and "
            "maps speculators configs by transformer_layer_config.model_type) is not a registered "
            "EAGLE-3 draft class. SGLang serves LlamaForCausalLMEagle3 from llama_eagle3.py; a "
            "plain LlamaForCausalLM loads a Llama without hot_token_id."
        ),
        example="sglang@0.5.23 does not serve architecture ['Eagle3Speculator'] as EAGLE-3",
        hint="set architectures to a class the engine serves",
    ),
    RuleDoc(
        code="EN005",
        severity=Severity.ERROR,
        summary="Aux layer ids, under this engine's convention, address layers the target lacks",
        explanation=(
            "Output-of engines add 1 to each id (SGLang LlamaForCausalLM.set_eagle3_layers_to_"
            "capture: `[val + 1 for val in layer_ids]`); input-of engines use them verbatim "
            "(vLLM). "
            "SGLang captures inside its layer loop, so the shifted index must be <= N-1; vLLM also "
            "records the state after the last layer (<= N). Ids outside that range are never "
            "captured."
        ),
        example="sglang@0.5.23 turns [1, 31, 61] (output-of) into [2, 32, 62]; [62] is past 0..61",
        hint="convert the ids to the engine's convention",
    ),
    RuleDoc(
        code="EN006",
        severity=Severity.ERROR,
        summary="The engine cannot capture aux hidden states from this target architecture",
        explanation=(
            "Only target classes that implement capture feed the drafter the K concatenated aux "
            "states (SGLang: the class defines set_eagle3_layers_to_capture; vLLM: "
            "SupportsEagle3). "
            "Otherwise the drafter gets one H-wide state, SGLang's "
            "`hidden_states.shape[-1] != embeds.shape[-1]` test is false, fc is skipped and "
            "acceptance collapses, or the runner fails at startup (SGLang 0.5.9 calls the method "
            "unconditionally; 0.5.23 raises ValueError). Lists are generated from the wheels by "
            "tools/gen_capture_lists.py: KimiK25ForConditionalGeneration exists in SGLang 0.5.9 "
            "without capture and captures from 0.5.10."
        ),
        example="sglang@0.5.9 cannot capture aux states from KimiK25ForConditionalGeneration",
        hint="use an engine version whose capture list includes the target",
    ),
    RuleDoc(
        code="EN007",
        severity=Severity.WARNING,
        summary="A norm flag the engine runs with differs from the checkpoint's intent",
        explanation=(
            "The weights cannot tell norm_before_residual apart, and engines read the flags from "
            "different places with different defaults: SGLang supports no norm_before_residual "
            "and only reads norm_before_fc from 0.5.17; vLLM's speculators path defaults "
            "norm_before_residual to True (speculators/algos.py update_eagle3). Tensor evidence "
            "(input_norm.weight, fc_norm.*) counts as intent when the config is silent."
        ),
        example="sglang@0.5.11 runs with norm_before_fc=False but the checkpoint says True",
        hint="set the flag explicitly where the engine reads it, or use an engine that supports it",
    ),
    RuleDoc(
        code="EN008",
        severity=Severity.ERROR,
        summary="The engine would refuse to load the drafter",
        explanation=(
            "A loud failure rather than a silent one: vLLM's AutoWeightsLoader raises for names it "
            "cannot place; SGLang < 0.5.12 raises 'EAGLE3 currently only supports 1 layer'; "
            "TensorRT-LLM's module-driven loader is expected to fail on missing module weights."
        ),
        example="vllm@0.33.0 refuses to load: no parameter for tensor model.fc.weight",
        hint="fix the names or config so the engine can load the drafter",
    ),
    RuleDoc(
        code="EN009",
        severity=Severity.WARNING,
        summary="The engine replaces a checkpoint tensor with the target's at runtime",
        explanation=(
            "SGLang's eagle_worker calls set_embed(target embedding) unless target_hidden_size "
            "differs, and set_embed_and_head when draft_vocab_size is unset; TensorRT-LLM builds "
            "no draft embedding when the hidden sizes match. A drafter that trained its own "
            "embedding (yuhuili/EAGLE3-LLaMA3.3-Instruct-70B) loses it."
        ),
        example="sglang@0.5.23 replaces tensor embed_tokens.weight at runtime",
        hint="harmless when the tensor is a copy of the target's",
    ),
    RuleDoc(
        code="EN010",
        severity=Severity.WARNING,
        summary="The engine finds no aux layer ids and falls back to its defaults",
        explanation=(
            "With no ids where the engine reads them, it uses its default layers silently "
            "(vLLM PR #50170: nvidia/Llama-3.3-70B-Instruct-Eagle3 at 1.2% acceptance)."
        ),
        example="vllm@0.20.0 finds no aux layer ids it reads and falls back to (2, N//2, N-3)",
        hint="pin eagle_aux_hidden_state_layer_ids where the engine reads them",
    ),
    RuleDoc(
        code="EN011",
        severity=Severity.WARNING,
        summary="Aux layer ids look like the other convention's",
        explanation=(
            "A first id of 1 is the output-of signature (SpecForge / Model-Optimizer default "
            "[1, N//2-1, N-4]); a first id of 2 the input-of one (vLLM / speculators "
            "[2, N//2, N-3]). Read by an engine of the other camp, every aux state is one layer "
            "off (vLLM PR #43671, SGLang PR #25454)."
        ),
        example="[1, 15, 28] looks output-of; vllm@0.33.0 treats ids as input-of",
        hint="convert ids by +/-1 to the engine's convention",
    ),
    RuleDoc(
        code="EN012",
        severity=Severity.INFO,
        summary="This engine aspect could not be checked (no generated data / UNCONFIRMED)",
        explanation=(
            "The profile has no generated aux-capture list for this version (e.g. TensorRT-LLM, "
            "whose wheels were not scanned) or marks the aux-id reading as UNCONFIRMED."
        ),
        example="trtllm@main-00679c66: where this engine reads aux layer ids is UNCONFIRMED",
        hint="verify by hand",
    ),
    RuleDoc(
        code="EN013",
        severity=Severity.WARNING,
        summary="The engine ignores an unexpected tensor and only logs it",
        explanation=(
            "transformers-style loading (speculators' SpeculatorModel.from_pretrained) reports "
            "unexpected keys as a warning and continues."
        ),
        example="speculators@0.9.0 ignores unexpected tensor midlayer.hidden_norm.weight",
        hint="rename or remove the tensor",
    ),
    RuleDoc(
        code="EN014",
        severity=Severity.WARNING,
        summary="A parameter may stay uninitialised (behaviour not fully pinned)",
        explanation=(
            "The tensor is missing and the profile marks the consequence as partly UNCONFIRMED or "
            "conditional (e.g. vLLM sharing a [Vt, H] target head into a ParallelLMHead(Vd); "
            "speculators' NaN-initialised embed_tokens filled only from the verifier)."
        ),
        example="vllm@0.33.0 may leave lm_head.weight uninitialised",
        hint="verify by hand",
    ),
)
