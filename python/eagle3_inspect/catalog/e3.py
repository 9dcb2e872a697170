"""E3 rules: EAGLE-3 drafter architecture and config checks, and cross-checks against the target.

E30xx look at the drafter alone (tensor names and shapes plus its config.json); E31xx compare the
drafter with its target model. Sources: the project's format reference, eagle3-formats.md (sections
A, C, D, E and the Appendix checklist).
"""

from __future__ import annotations

from eagle3_inspect.catalog import RuleDoc
from eagle3_inspect.findings import Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

RULES: tuple[RuleDoc, ...] = (
    RuleDoc(
        "E3001",
        E,
        "A tensor every EAGLE-3 drafter needs is missing",
        "fc, the final norm and the first decoder layer's attention, MLP and three norms "
        "(input_layernorm, hidden_norm, post_attention_layernorm) are loaded into parameters "
        "that engines otherwise leave randomly initialised (SGLang drops and never reports "
        "missing names; SpecForge's _REQUIRED_SERVING_KEYS lists fc, norm, lm_head, d2t, t2d).",
        "midlayer.hidden_norm.weight missing",
        "Re-export the drafter from the training checkpoint with every weight included.",
    ),
    RuleDoc(
        "E3002",
        E,
        "lm_head.weight is missing",
        "With draft_vocab_size declared, SGLang builds a random ParallelLMHead and the drafter "
        "gets accept rate 0.00 (sglang PR #27908, nvidia/Kimi-K2.6-Eagle3). vLLM and TRT-LLM "
        "borrow the target head, which only fits when Vd == Vt. A warning when the vocabulary "
        "is full (engines borrow the target head), an error otherwise.",
        "no lm_head.weight, draft_vocab_size 32000 < vocab_size 163840",
        "Save the trained lm_head ([Vd, H]) in the checkpoint.",
    ),
    RuleDoc(
        "E3003",
        E,
        "No decoder layer block found",
        "EAGLE-3 drafters keep their decoder layer under `midlayer.*` (EAGLE, SpecForge, old "
        "Model-Optimizer) or `layers.N.*` (speculators, new Model-Optimizer). With neither, "
        "every engine runs a random layer.",
        "keys transformer.h.0.* instead of midlayer.*",
        "Rename the block keys to midlayer.* (SGLang <= 0.5.11) or layers.0.* (vLLM, TRT-LLM).",
    ),
    RuleDoc(
        "E3004",
        W,
        "Keys of both dialects (midlayer.* and layers.N.*) are present",
        "Engines map only one spelling; the other set is dropped silently or collides with the "
        "first after renaming (reference D.1/D.2). A half-done rename leaves some weights random.",
        "midlayer.mlp.* and layers.0.self_attn.*",
        "Rename every block key to one dialect.",
    ),
    RuleDoc(
        "E3005",
        INFO,
        "Detected layout: key dialect, layer count and variant",
        "An observation: `midlayer` is the EAGLE/SpecForge dialect that SGLang <= 0.5.11 "
        "requires; `layers.N` is the speculators dialect (SGLang <= 0.5.11 silently skips "
        "it, the seed story's bug 1). Use --engine to get each engine's verdict.",
        "dialect layers, 1 layer, MLA attention",
    ),
    RuleDoc(
        "E3006",
        E,
        "First-layer q/k/v input width is not 2H",
        "Layer 0 attends over cat([input_layernorm(embed), hidden_norm(h)]), so q/k/v (and MLA "
        "q_a/kv_a) take 2*hidden_size inputs in every engine (reference A.1, A.3).",
        "midlayer.self_attn.q_proj.weight [4096, 4096], expected input 8192",
        "The checkpoint is not an EAGLE-3 first layer; export the draft's own layer 0.",
    ),
    RuleDoc(
        "E3007",
        E,
        "A later layer's q/k/v input width is not H",
        "Layers after the first are ordinary decoder layers with hidden_size inputs "
        "(vLLM qkv_input_size, speculators, TRT-LLM next_layer_regular).",
        "layers.1.self_attn.q_proj.weight [4096, 8192]",
        "Export later layers as regular decoder layers.",
    ),
    RuleDoc(
        "E3008",
        E,
        "fc.weight rows are not the draft hidden size",
        "fc maps the concatenated aux hidden states [T, K*Ht] to [T, H]; its weight is [H, K*Ht].",
        "fc.weight [2048, 12288] with hidden_size 4096",
        "Export fc with out_features = hidden_size.",
    ),
    RuleDoc(
        "E3009",
        E,
        "fc.weight input width does not match the configured aux layers",
        "fc.weight must be [H, K*Ht] with K = the number of configured aux layer ids (3 when "
        "none are configured: every engine's default). A mismatch crashes vLLM "
        "(vllm #54526) or, as in the seed story's bug 3 (fc built for one aux layer), feeds "
        "SGLang a width it cannot project: with K*Ht == H its width test "
        "`hidden_states.shape[-1] != embeds.shape[-1]` is false, fc is skipped and acceptance "
        "is zero without an error.",
        "fc.weight [7168, 7168] but 3 aux layer ids: expected [7168, 21504]",
        "Build fc for the K aux layers the engine will capture, or declare the ids fc was "
        "trained with.",
    ),
    RuleDoc(
        "E3010",
        E,
        "lm_head.weight is not [draft_vocab_size, H]",
        "Engines build ParallelLMHead(draft_vocab_size, H); a different row count fails to load, "
        "and a missing draft_vocab_size makes SGLang assume the full vocabulary and load the "
        "target's head instead (reference C.2).",
        "lm_head.weight [32000, 4096] with draft_vocab_size 16000",
        "Set draft_vocab_size to the lm_head row count (and keep d2t of the same length).",
    ),
    RuleDoc(
        "E3011",
        E,
        "embed_tokens.weight is not [vocab_size, H]",
        "The drafter's embedding is VocabParallelEmbedding(vocab_size, H); vocab_size is the "
        "target vocabulary.",
        "embed_tokens.weight [128256, 4096] with vocab_size 151936",
        "Set vocab_size to the target vocabulary, or drop the embedding to borrow the target's.",
    ),
    RuleDoc(
        "E3012",
        E,
        "num_hidden_layers differs from the layer blocks in the weights",
        "Engines build num_hidden_layers draft layers: extra ones stay random (newer SGLang), "
        "raise KeyError (vLLM), or older SGLang refuses anything but 1 (SpecForge #129). "
        "A value copied from the target (yuhuili/EAGLE3-Vicuna1.3-13B declares 40) is common.",
        "num_hidden_layers 40, one block midlayer.*",
        "Set num_hidden_layers to the number of exported decoder layers.",
    ),
    RuleDoc(
        "E3013",
        E,
        "tie_word_embeddings is true",
        "SGLang then uses embed_tokens as lm_head and silently drops the trained lm_head; HF "
        "forces the head to the full vocabulary (SpecForge PR #140). EAGLE-3 heads are never tied.",
        '"tie_word_embeddings": true',
        'Set "tie_word_embeddings": false.',
    ),
    RuleDoc(
        "E3014",
        E,
        "target_hidden_size is missing or wrong for fc's input width",
        "fc is sized K*target_hidden_size (target_hidden_size defaults to hidden_size). When the "
        "target is wider or narrower than the drafter, the config must say so, or every engine "
        "builds fc with the wrong width (loud shape error).",
        "fc.weight [4096, 21504] with 3 aux ids and no target_hidden_size (implies Ht 7168)",
        "Set target_hidden_size to the target model's hidden_size.",
    ),
    RuleDoc(
        "E3015",
        E,
        "target_hidden_size differs from hidden_size but the drafter ships no embed_tokens",
        "SGLang shares the target embedding only when the widths agree; otherwise set_embed "
        "returns early and the embedding stays random (silent; reference C.2, C.3).",
        "hidden_size 4096, target_hidden_size 7168, no embed_tokens.weight",
        "Ship embed_tokens.weight [vocab_size, hidden_size] with the drafter.",
    ),
    RuleDoc(
        "E3016",
        E,
        "Weights use more than one floating-point dtype",
        "Engines load one dtype; mixed weights mean a partial cast during export (d2t/t2d are "
        "integer/bool by design and excluded).",
        "BF16 layers with an F32 fc.weight",
        "Cast every floating-point weight to one dtype (only is_floating_point() tensors).",
    ),
    RuleDoc(
        "E3017",
        E,
        "architectures names no known EAGLE-3 class",
        "Engines pick the draft class from architectures[0]: LlamaForCausalLMEagle3, "
        "Eagle3LlamaForCausalLM, EAGLE3LlamaForCausalLM, Eagle3DeepseekV2/V3ForCausalLM, "
        "Eagle3Speculator... An unknown or missing string loads nothing or a plain model.",
        '"architectures": ["MyDraft"]',
        'Use "LlamaForCausalLMEagle3" (SGLang/vLLM) or the engine\'s EAGLE-3 class name.',
    ),
    RuleDoc(
        "E3018",
        INFO,
        "architectures names the base model class (original EAGLE release style)",
        "vLLM maps LlamaForCausalLM to Eagle3LlamaForCausalLM; SGLang loads a plain Llama and "
        "its EAGLE-3 worker crashes (sglang #36528) unless repackaged as LlamaForCausalLMEagle3.",
        '"architectures": ["LlamaForCausalLM"] with draft_vocab_size',
        'For SGLang, set "architectures": ["LlamaForCausalLMEagle3"].',
    ),
    RuleDoc(
        "E3019",
        W,
        "No aux hidden-state layer ids in the config",
        "Engines then fall back to a heuristic (vLLM (2, N//2, N-3)): "
        "nvidia/Llama-3.3-70B-Instruct-Eagle3 got 1.21% acceptance that way (vllm PR #50170).",
        "no eagle_aux_hidden_state_layer_ids anywhere",
        "Record the ids the drafter was trained with (eagle_config for SGLang, top level for "
        "vLLM/speculators; mind the +1 convention).",
    ),
    RuleDoc(
        "E3020",
        W,
        "Aux layer ids are declared in two places with different values",
        "SGLang reads only eagle_config.eagle_aux_hidden_state_layer_ids, vLLM the top level "
        "first: two different lists mean two engines capture different layers (llama.cpp "
        "PR #27040).",
        "top-level [2, 16, 29], eagle_config [1, 21, 40]",
        "Keep one list (and its +1 copy only if you target both camps deliberately).",
    ),
    RuleDoc(
        "E3021",
        E,
        "Aux layer ids are malformed",
        "The ids must be a list of distinct non-negative integers (TRT-LLM alone allows -1 for "
        "the final layer).",
        '"eagle_aux_hidden_state_layer_ids": [1, 1, "x"]',
        "Write the distinct integer layer indices the drafter was trained on.",
    ),
    RuleDoc(
        "E3022",
        W,
        "Qwen3-architecture draft: q_norm/k_norm in the attention",
        "Only engines with a Qwen3 EAGLE-3 class load these: vLLM before PR #43132 raises "
        "KeyError 'layers.0.self_attn.k_norm.weight'; SGLang has no such class (dropped). An "
        "error when the config's model_type is not qwen3: speculators and vLLM pick the layer "
        "class from it, and the Llama class drops the norms.",
        "layers.0.self_attn.q_norm.weight [128]",
        "Serve with an engine that has Eagle3Qwen3ForCausalLM, or train a Llama-style draft.",
    ),
    RuleDoc(
        "E3023",
        W,
        "Multi-layer drafter",
        "Later layers differ across engines (vLLM/speculators use input_layernorm with a "
        "residual carry, SGLang BasicDecoderLayer and TRT-LLM use hidden_norm; older SGLang "
        "refuses more than 1 layer): not portable without an acceptance test (reference A.8).",
        "layers.0.* and layers.1.*",
        "Verify acceptance on the engine you deploy; prefer single-layer drafts for portability.",
    ),
    RuleDoc(
        "E3024",
        E,
        "Attention type disagrees with the architecture",
        "MLA tensors (q_a_proj, kv_a_proj_with_mqa...) load only into "
        "Eagle3DeepseekV2/V3ForCausalLM; a Llama-class config drops them, and a DeepSeek class "
        "without them leaves its attention random.",
        "layers.0.self_attn.kv_a_proj_with_mqa.weight with LlamaForCausalLMEagle3",
        'Use "Eagle3DeepseekV2ForCausalLM" for MLA drafters (Kimi/DeepSeek).',
    ),
    RuleDoc(
        "E3025",
        W,
        "Eagle 3.1 norm weight present but its config flag is not set",
        "input_norm.weight needs norm_before_fc, fc_norm.N.weight needs fc_norm; engines that "
        "read the flag skip the weight when it is false or absent, and acceptance degrades "
        "(vllm PRs #38111, #42143; sglang PR #32334).",
        "input_norm.weight [12288] without norm_before_fc",
        "Set norm_before_fc (or fc_norm) true where your engine reads it (top level or "
        "eagle_config).",
    ),
    RuleDoc(
        "E3026",
        E,
        "Eagle 3.1 flag set but its norm weight is missing",
        "With norm_before_fc / fc_norm true, the engine creates the norm and expects its weight; "
        "absent, it keeps the initial value (ones) instead of the trained one.",
        '"norm_before_fc": true without input_norm.weight',
        "Export input_norm.weight / fc_norm.N.weight, or set the flag false.",
    ),
    RuleDoc(
        "E3027",
        E,
        "Eagle 3.1 norm weight has the wrong shape",
        "input_norm normalises the concatenated aux states ([K*Ht]); fc_norm.N each aux state "
        "([Ht]).",
        "input_norm.weight [4096] with fc.weight [4096, 12288]",
        "Export the norm with the width of the feature it normalises.",
    ),
    RuleDoc(
        "E3028",
        E,
        "A layer tensor's shape disagrees with the hidden/intermediate/head configuration",
        "o_proj is [H, heads*head_dim], k/v are [kv_heads*head_dim, in], MLP is [I, H]/[H, I], "
        "norms are [H]; engines allocate these from the config and fail or mis-slice otherwise.",
        "midlayer.mlp.down_proj.weight [4096, 11008] with intermediate_size 14336",
        "Make config.json match the exported tensors (or re-export).",
    ),
    RuleDoc(
        "E3029",
        W,
        "speculators config without an explicit norm_before_residual",
        "vLLM's speculators path assumes True when the key is missing, while the model class and "
        "SGLang assume False; the weights cannot tell (reference A.8, C.2).",
        "speculators_config present, no norm_before_residual",
        "Write norm_before_residual explicitly (true or false, as trained).",
    ),
    RuleDoc(
        "E3030",
        INFO,
        "No config.json: config checks skipped",
        "Only the tensors were checked; engines need a config to load a drafter at all.",
    ),
    RuleDoc(
        "E3031",
        W,
        "Weight dtype differs from config torch_dtype",
        "Engines allocate parameters in torch_dtype (or --dtype) and cast on load; an fp16 "
        "drafter next to a bf16 target crashed SGLang's CUDA graph capture (sglang PR #3431).",
        '"torch_dtype": "float16" with BF16 weights',
        "Set torch_dtype to the stored dtype.",
    ),
    RuleDoc(
        "E3032",
        W,
        "Every key carries a `model.` prefix",
        "SGLang tries the name and then model.+name (fine); vLLM prefixes again and fails on "
        "model.model.* (reference C.3).",
        "model.midlayer.self_attn.q_proj.weight",
        "Strip the leading `model.` from the checkpoint keys.",
    ),
    RuleDoc(
        "E3033",
        W,
        "Key dialect does not match the config's engine family",
        "An SGLang-style config (LlamaForCausalLMEagle3 / nested eagle_config) with layers.N.* "
        "keys: SGLang up to 0.5.11 names its layer midlayer and silently skips layers.0.*, so "
        "the draft layer stays random (the seed story's bug 1). A speculators config with "
        "midlayer.* keys is reported as info: vLLM and TRT-LLM rename, speculators itself does "
        "not.",
        "layers.0.self_attn.q_proj.weight with architectures LlamaForCausalLMEagle3",
        "Rename layers.0.* to midlayer.* for SGLang <= 0.5.11 (check with --engine sglang).",
    ),
    RuleDoc(
        "E3101",
        E,
        "Target hidden size differs from the drafter's Ht",
        "fc consumes K target hidden states of width Ht; the target produces hidden_size-wide "
        "ones (loud shape error, or with K*Ht == H a silently skipped fc).",
        "target hidden_size 7168, drafter Ht 4096",
        "Train/convert the drafter for this target, or set target_hidden_size correctly.",
    ),
    RuleDoc(
        "E3102",
        E,
        "Target vocabulary size differs from the drafter's",
        "Draft ids map into the target vocabulary (d2t offsets, t2d of length Vt, embedding "
        "rows); a different Vt means the mapping was built for another tokenizer.",
        "target vocab_size 151936, drafter t2d [128256]",
        "Use the drafter trained for this target's tokenizer.",
    ),
    RuleDoc(
        "E3103",
        E,
        "An aux layer id is outside the target's layers",
        "Raw range check: ids must lie in [0, num_hidden_layers] of the target (the +1 "
        "engine convention is checked per engine with --engine).",
        "id 64 with a 61-layer target",
        "Use ids of this target's layers.",
    ),
    RuleDoc(
        "E3104",
        E,
        "Target embedding does not fit the drafter",
        "Drafters without embed_tokens borrow the target's [Vt, Ht], so it must be [Vt, H]. One "
        "that ships its own keeps it when the widths differ, but when they agree SGLang replaces "
        "it with the target's (set_embed), so the shapes must then be equal (reference C.2).",
        "target embed_tokens [163840, 7168], drafter H 4096 and no own embedding",
        "Ship an embedding of the drafter's width, or match the target.",
    ),
    RuleDoc(
        "E3105",
        E,
        "Drafter has no lm_head and the target's cannot replace it",
        "Engines borrow the target lm_head [Vt, Ht] only when that equals the drafter's [Vd, H].",
        "no lm_head.weight, Vd 32000 < target Vt 163840",
        "Save the drafter's trained lm_head.",
    ),
    RuleDoc(
        "E3106",
        W,
        "Drafter dtype differs from the target's torch_dtype",
        "fp16 drafters next to bf16 targets crash SGLang CUDA-graph capture (sglang PR #3431) or "
        "lose acceptance when activations are byte-copied (tanishqkumar/ssd PR #18).",
        "drafter F16, target bfloat16",
        "Cast the drafter's float weights to the target dtype, or pass --dtype explicitly.",
    ),
    RuleDoc(
        "E3107",
        INFO,
        "Target is multimodal: its text model was read from a nested config",
        "hidden_size, vocab_size and num_hidden_layers of VL/omni targets live in text_config "
        "(or language_config/llm_config); the drafter must match the text model.",
        "KimiK25ForConditionalGeneration: text_config.hidden_size 7168",
    ),
    RuleDoc(
        "E3108",
        W,
        "Target config lacks a field a cross-check needs",
        "The named check was skipped.",
        "target config without num_hidden_layers",
        "Point --target at the target model's own directory or full config.json.",
    ),
)

DEFAULT_SEVERITY = {r.code: r.severity for r in RULES}
DEFAULT_HINT = {r.code: r.hint for r in RULES}
