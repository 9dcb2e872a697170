"""Capture side (issue 25, item 2): the engine's own target model (`models/llama.py`
LlamaForCausalLM or `models/qwen3.py` Qwen3ForCausalLM from the wheel, unchanged: its `__init__`,
`load_weights`, its layer loop and the aux-state recording of `EagleModelMixin` /
`set_eagle3_layers_to_capture`) run over the tiny verifier's weights and the same token ids,
told to capture aux ids through the engine's own setter. Each captured tensor is matched by value
against the verifier's residual stream (inputs.py: `stream[i]` enters layer i), which gives the
boundary the engine really feeds for each id: `i == id` is input-of, `i == id + 1` output-of."""

from __future__ import annotations

import contextlib
import functools
import logging
import typing
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import moe
import torch
from inputs import VerifierRun

from eagle3_inspect.installed.harness import (
    attention,
    imports,
    layers,
    sglang_eagle3,
    stubs,
    vllm_eagle3,
)
from eagle3_inspect.installed.harness.record import error_record
from eagle3_inspect.installed.harness.sources import WheelSource, cut, wheel_path

VLLM_TARGET = "vllm/model_executor/models/llama.py"
# SGLang target classes this harness runs: architecture -> the model modules it needs run real
# (Qwen3ForCausalLM: qwen3.py builds on qwen2.py's Qwen2Model, whose layer loop captures up to
# 0.5.14; models/utils.py holds its `apply_qk_norm`).
SGLANG_TARGETS = {
    "LlamaForCausalLM": ("sglang.srt.models.llama",),
    "Qwen3ForCausalLM": (
        "sglang.srt.models.qwen3",
        "sglang.srt.models.qwen2",
        "sglang.srt.models.utils",
    ),
}
# Up to 0.5.14 Qwen3DecoderLayer routes its norms and residual adds through
# `layers/communicator.py` LayerCommunicator: run from the wheel like the model file.
SGLANG_COMMUNICATOR = "sglang.srt.layers.communicator"
# vLLM target classes this harness runs: architecture -> the model modules it needs run real
# (Qwen3ForCausalLM: qwen3.py builds on qwen2.py's Qwen2Model, whose layer loop captures).
# DeepseekV3ForCausalLM (DeepSeek-V3, Kimi-K2): deepseek_v2.py's model and layer loop, with
# `layers/mla.py` MultiHeadLatentAttentionWrapper (the MLA projections, norms and rotary) run
# real; its MLAAttention backend is the reference attention and its FusedMoE a per-expert loop
# over the wheel's own routing (`_vllm_mla_moe_session`).
VLLM_TARGETS = {
    "LlamaForCausalLM": ("vllm.model_executor.models.llama",),
    "Qwen3ForCausalLM": ("vllm.model_executor.models.qwen3", "vllm.model_executor.models.qwen2"),
    "DeepseekV3ForCausalLM": (
        "vllm.model_executor.models.deepseek_v2",
        "vllm.model_executor.layers.mla",
    ),
}
# SGLang 0.5.23's layer loop captures through `layers/layer_boundary` (each layer's stage
# boundaries own the residual add and the capture) and `layers/aux_hidden_states.py`
# (AuxHiddenStateList): run from the wheel like the model file.
SGLANG_STAGE_MODULES = (
    "sglang.srt.layers.layer_boundary",
    "sglang.srt.layers.aux_hidden_states",
)
TOLERANCE = 1e-4  # float32 engine layers vs transformers' layers over 8 tiny layers


def boundary_of(value: torch.Tensor, verifier: VerifierRun) -> tuple[int | None, float]:
    """The stream index whose tensor equals `value` (within TOLERANCE), and the smallest
    max |diff| seen."""
    diffs = [float((value - s).abs().max()) for s in verifier.stream]
    best = min(range(len(diffs)), key=diffs.__getitem__)
    return (best if diffs[best] <= TOLERANCE else None), diffs[best]


def _causal(rows: int) -> attention.AttentionContext:
    ctx = attention.AttentionContext()
    ctx.set_rows(list(range(rows)), [0] * rows)
    return ctx


def vllm_capture(
    version: str,
    cache: Path,
    verifier: VerifierRun,
    variants: list[list[int] | None],
    config_dir: Path | None = None,
    config_set: tuple[tuple[str, str], ...] = (),
) -> dict[str, dict[str, Any]]:
    """vLLM: the verifier's class (VLLM_TARGETS: LlamaForCausalLM, Qwen3ForCausalLM,
    DeepseekV3ForCausalLM) from its model file (vllm_config: the config in `config_dir`, else the
    verifier's, read as vLLM reads it) + load_weights(verifier tensors), then per ids variant
    `SupportsEagle3.set_aux_hidden_state_layers(ids)` + forward; each captured tensor's stream
    boundary; `config_set`: attributes set on the config after reading it. One model per
    process: vLLM's custom ops register once."""
    path = wheel_path("vllm", version, cache)
    if path is None:
        return {str(ids): {"verdict": "NO-WHEEL"} for ids in variants}
    source = WheelSource("vllm", version, path)
    hf = _vllm_hf_config(source, config_dir or verifier.path)
    for name, value in config_set:
        setattr(hf, name, value)
    arch = hf.architectures[0]
    modules = VLLM_TARGETS[arch]
    session = vllm_eagle3.session(source)
    session.real_prefixes += modules
    session.runtime["get_pp_indices"] = lambda n, *a: (0, n)
    session.runtime["PPMissingLayer"] = torch.nn.Identity
    session.runtime["spec_decode_needs_target_embed"] = lambda *a: False
    session.runtime["make_empty_intermediate_tensors_factory"] = lambda *a: None
    session.runtime["get_offloader"] = lambda: SimpleNamespace(wrap_modules=list)  # no offload
    _vllm_kv_scale_remap(session)
    vcfg = vllm_eagle3.vllm_config(hf, hf.vocab_size)
    vcfg.model_config.hf_config = hf
    out: dict[str, dict[str, Any]] = {}
    with imports.session(session):
        session.runtime["get_current_vllm_config"] = lambda: vcfg
        if arch == "DeepseekV3ForCausalLM":
            _vllm_mla_moe_session(session, vcfg)
        layers.reset_log()
        module = imports.import_engine(modules[0])
        try:
            model = getattr(module, arch)(vllm_config=vcfg, prefix="")
            model.load_weights(iter(list(_verifier_tensors(verifier).items())))
        except Exception as exc:  # the engine's own __init__ / load_weights refused this target
            why = error_record("load", exc, f"{_vllm_file_of(modules[0])} {arch}")
            return {
                str(ids): {"engine": "vllm", "version": version, "ids": ids, "verdict": "ERROR"}
                | {"why": why, "opaque_used": sorted(session.opaque_used)}
                for ids in variants
            }
        model = model.float().eval()
        for ids in variants:
            out[str(ids)] = _vllm_one(model, verifier, ids, version) | {
                "opaque_used": sorted(session.opaque_used)
            }
    return out


def _vllm_kv_scale_remap(session: imports.Session) -> None:
    """`model_loader/weight_utils.py maybe_remap_kv_scale_name` exec'd unchanged from the wheel
    where it has one (0.15.0). 0.15.0's qwen2.py `Qwen2Model.load_weights` calls it on every
    non-stacked tensor (llama.py only on `*scale*` names) and skips the tensor when it returns
    None, which the opaque placeholder always did: embed_tokens, o_proj and down_proj stayed NaN
    and the capture matched nothing (max |diff| NaN). It returns the name unchanged for one that
    is no k/v scale; its `logger` is stdlib logging with the `*_once` methods vLLM's adds."""
    member = "vllm/model_executor/model_loader/weight_utils.py"
    text = cut(session.source.read(member), "maybe_remap_kv_scale_name")
    if text is None:
        return
    log = logging.getLogger(member)
    logger = SimpleNamespace(warning_once=log.warning, debug_once=log.debug, info_once=log.info)
    namespace: dict[str, Any] = {"torch": torch, "logger": logger}
    imports.run_engine_text(text, member, namespace)
    session.runtime["maybe_remap_kv_scale_name"] = namespace["maybe_remap_kv_scale_name"]


def _vllm_file(model: Any) -> str:
    """The wheel file of the target model's class (llama.py, qwen3.py, deepseek_v2.py)."""
    return _vllm_file_of(type(model).__module__)


def _vllm_file_of(module: str) -> str:
    """The wheel file of dotted model `module`."""
    return VLLM_TARGET.replace("llama.py", f"{module.rsplit('.', 1)[-1]}.py")


def _vllm_hf_config(source: WheelSource, config_dir: Path) -> Any:
    """The target config as vLLM reads it: transformers' AutoConfig, except for a `model_type`
    the wheel's `transformers_utils/config.py` maps to a config class itself (Kimi-K2's
    `kimi_k2="DeepseekV3Config"`: transformers 5.8.1 has no `kimi_k2`, and the file's `auto_map`
    names remote code vLLM does not run for it)."""
    import json
    import re

    import transformers

    model_type = json.loads((Path(config_dir) / "config.json").read_text()).get("model_type")
    text = source.read("vllm/transformers_utils/config.py")
    mapped = re.search(rf"^\s*{re.escape(str(model_type))}=\"(\w+)\"", text, re.MULTILINE)
    if mapped is not None and hasattr(transformers, mapped.group(1)):
        return getattr(transformers, mapped.group(1)).from_pretrained(str(config_dir))
    return transformers.AutoConfig.from_pretrained(str(config_dir))


def _vllm_mla_moe_session(session: imports.Session, vcfg: Any) -> None:
    """DeepseekV3ForCausalLM's stand-ins (every one is parallel, fused or a backend):
    `MLAAttention` -> attention.VllmMLAAttention (reference attention over the MLA latent,
    expanded by the layer's own kv_b_proj); `FusedMoE` / `FusedMoEFactory`, `GateLinear`,
    `fused_moe_make_expert_params_mapping` -> moe.py (a per-expert loop over the wheel's own
    grouped_topk routing); the expert-parallel group one rank (`get_ep_group`). The config:
    MLA on (`model_config.use_mla`, what vLLM sets for an MLA model on a GPU backend; off it would
    run DeepseekV2Attention instead), no sequence-parallel MoE, no EPLB, no redundant experts."""
    moe.routing_from_wheel(session)
    session.runtime |= {
        "MLAAttention": attention.VllmMLAAttention,
        "FusedMoE": moe.FusedMoE,
        "FusedMoEFactory": moe.FusedMoE,
        "GateLinear": moe.GateLinear,
        "fused_moe_make_expert_params_mapping": moe.expert_params_mapping,
        "get_ep_group": lambda *a: stubs.Answers(
            device_group=stubs.Answers(size=lambda: 1), rank_in_group=0, world_size=1
        ),
    }
    vcfg.model_config.use_mla = True
    vcfg.parallel_config = stubs.Answers(
        use_sequence_parallel_moe=False,
        enable_eplb=False,
        eplb_config=stubs.Answers(num_redundant_experts=0),
        pipeline_parallel_size=1,
    )


def _vllm_one(
    model: Any, verifier: VerifierRun, ids: list[int] | None, version: str
) -> dict[str, Any]:
    record: dict[str, Any] = {"engine": "vllm", "version": version, "ids": ids}
    try:
        if ids is None:  # the runner found no ids in the draft config: the model's default
            default = getattr(model, "get_eagle3_default_aux_hidden_state_layers", None)
            default = default or model.get_eagle3_aux_hidden_state_layers
            record["default_ids"] = list(default())
        model.set_aux_hidden_state_layers(tuple(ids if ids is not None else record["default_ids"]))
        attention.CONTEXT.append(_causal(len(verifier.tokens)))
        try:
            with torch.no_grad():
                out = model(verifier.tokens, torch.arange(len(verifier.tokens)))
        finally:
            attention.CONTEXT.pop()
    except Exception as exc:
        return record | {
            "verdict": "ERROR",
            "why": error_record("capture", exc, f"{_vllm_file(model)} {type(model).__name__}"),
        }
    _, aux = out
    return record | _matched(aux, verifier, ids) | {"evidence": _vllm_evidence(model)}


def _vllm_evidence(model: Any) -> str:
    """Which engine code recorded the captured states: EagleModelMixin's hook (0.25.0 and later
    llama.py, qwen2.py), or the layer loop's own append (0.15.0's, deepseek_v2.py), read from
    the wheel file that defines the model's `forward`."""
    loop = f"{_vllm_file(model)} {type(model.model).__name__}.forward"
    defining = type(model.model).forward.__code__.co_filename.removeprefix("<engine>/")
    if "_maybe_add_hidden_state" in imports.active().source.read(defining):
        return (
            f"{loop} + interfaces.py EagleModelMixin._maybe_add_hidden_state "
            "(set by SupportsEagle3.set_aux_hidden_state_layers)"
        )
    return (
        f"{defining} {type(model.model).__name__}.forward (aux_hidden_states.append(hidden_states"
        " + residual) before each layer idx in aux_hidden_state_layers, set by "
        "set_aux_hidden_state_layers)"
    )


def _matched(
    aux: list[torch.Tensor], verifier: VerifierRun, ids: list[int] | None
) -> dict[str, Any]:
    """Where each captured tensor sits in the stream, and the convention that explains the ids
    (None: no ids were given, the engine's default layers ran)."""
    found = [boundary_of(a.float(), verifier) for a in aux]
    boundaries = [b for b, _ in found]
    convention = (
        "default (no ids)"
        if ids is None
        else "input-of"
        if boundaries == sorted(set(ids))
        else "output-of"
        if boundaries == sorted({i + 1 for i in ids})
        else "other"
    )
    return {
        # NO-MATCH: a captured state equals no stream tensor (the engine's target layers compute
        # otherwise than transformers' here: nothing to say about which boundary it feeds)
        "verdict": "CAPTURED" if None not in boundaries else "NO-MATCH",
        "boundaries": boundaries,
        "max_abs_diff_to_stream": [d for _, d in found],
        "convention": convention,
    }


def _verifier_tensors(verifier: VerifierRun) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    tensors: dict[str, torch.Tensor] = {}
    for file in sorted(Path(verifier.path).glob("*.safetensors")):
        tensors.update(load_file(str(file)))
    return {n: t.float() for n, t in tensors.items()}


def sglang_capture(
    version: str, cache: Path, verifier: VerifierRun, variants: list[list[int] | None]
) -> dict[str, dict[str, Any]]:
    """`_sglang_one` per ids variant (SGLang registers no custom ops: a session each)."""
    return {str(ids): _sglang_one(version, cache, verifier, ids) for ids in variants}


def _sglang_file(module: str) -> str:
    """The wheel file of dotted `module`."""
    return module.replace(".", "/") + ".py"


def _sglang_one(
    version: str, cache: Path, verifier: VerifierRun, ids: list[int] | None
) -> dict[str, Any]:
    """SGLang: the verifier's class (SGLANG_TARGETS: LlamaForCausalLM, Qwen3ForCausalLM)(config)
    + load_weights(verifier tensors) + `set_eagle3_layers_to_capture(ids)` (None: the target's
    default) + its model's forward; each captured tensor's stream boundary. Versions whose layer
    loop captures through the `layers/layer_boundary` stage machinery (0.5.23) run it unchanged
    (`_sglang_stage_session`); earlier Qwen3 layers run `layers/communicator.py` unchanged."""
    from transformers import AutoConfig

    path = wheel_path("sglang", version, cache)
    if path is None:
        return {"verdict": "NO-WHEEL"}
    source = WheelSource("sglang", version, path)
    record: dict[str, Any] = {"engine": "sglang", "version": version, "ids": ids}
    hf = _as_pinned_transformers_reads(AutoConfig.from_pretrained(str(verifier.path)), source)
    arch = hf.architectures[0]
    modules = SGLANG_TARGETS[arch]
    target = _sglang_file(modules[0])
    session = sglang_eagle3.session(source)
    session.real_prefixes += modules
    session.runtime["get_pp_indices"] = lambda n, *a: (0, n)
    session.runtime["PPMissingLayer"] = torch.nn.Identity
    session.runtime["make_layers"] = _sglang_make_layers
    text = source.read(target)
    if "layer_boundary" in text:  # 0.5.23: the stage machinery, run real
        _sglang_stage_session(session)
    elif SGLANG_COMMUNICATOR in text:
        _sglang_communicator_session(session)
    rows = len(verifier.tokens)
    batch = stubs.Answers(
        forward_mode=stubs.Answers(
            is_extend=lambda: True,
            is_decode=lambda: False,
            is_context_parallel_extend=lambda: False,
        ),
        mm_input_embeds=None,
        contains_mm_inputs=lambda: False,
        mrope_positions=None,
    )
    with imports.session(session):
        layers.reset_log()
        try:
            module = imports.import_engine(modules[0])
            model = getattr(module, arch)(hf)
            model.load_weights(iter(list(_verifier_tensors(verifier).items())))
            model = model.float().eval()
            model.set_eagle3_layers_to_capture(ids)
            attention.CONTEXT.append(_causal(rows))
            try:
                with torch.no_grad():
                    out = model.model(verifier.tokens, torch.arange(rows), batch)
            finally:
                attention.CONTEXT.pop()
        except Exception as exc:
            return record | {
                "verdict": "ERROR",
                "why": error_record("capture", exc, f"{target} {arch}"),
            }
        captured = list(model.model.layers_to_capture)
    _, aux = out
    matched = _matched(aux, verifier, ids)
    return (
        record
        | matched
        | {
            "layers_to_capture": captured,
            "evidence": _sglang_evidence(source, arch, target),
            "opaque_used": sorted(session.opaque_used),
        }
    )


def _pinned_transformers(source: WheelSource) -> str | None:
    """The transformers version the engine wheel pins (`Requires-Dist: transformers==X`)."""
    member = f"{source.engine}-{source.version}.dist-info/METADATA"
    if not source.has(member):
        return None
    for line in source.read(member).splitlines():
        name, _, pin = line.removeprefix("Requires-Dist: ").partition("==")
        if line.startswith("Requires-Dist: ") and name.strip() == "transformers" and pin:
            return pin.split(";")[0].strip()
    return None


def _as_pinned_transformers_reads(hf: Any, source: WheelSource) -> Any:
    """The verifier config as the engine's pinned transformers lays it out. transformers 5 reads
    the file's `rope_parameters` and has no top-level `rope_theta`; transformers 4 configs carry
    `rope_theta` at the top level, which is where an engine pinning transformers 4 (SGLang 0.5.9:
    ==4.57.1) reads it: its qwen3.py `getattr(config, "rope_theta", 1000000)` would otherwise
    take its own default, not the file's 10000 (its llama.py's default is 10000 too). Only that
    attribute is set, from the file's `rope_parameters`."""
    pin = _pinned_transformers(source)
    rope = getattr(hf, "rope_parameters", None) or {}
    if pin is None or int(pin.split(".")[0]) >= 5 or "rope_theta" not in rope:
        return hf
    if getattr(hf, "rope_theta", None) is None:
        hf.rope_theta = rope["rope_theta"]
    return hf


def _sglang_evidence(source: WheelSource, arch: str, target: str) -> str:
    """Which engine code set the ids and appended the captured states."""
    if arch == "LlamaForCausalLM":
        return (
            f"{target} LlamaForCausalLM.set_eagle3_layers_to_capture + LlamaModel.forward "
            "(aux_hidden_states.append(hidden_states + residual) before layer i)"
        )
    if "layer_boundary" in source.read(target):
        loop = "Qwen3Model.forward (capture_output=aux_hidden_states.capture into layer i)"
    else:
        loop = (
            "sglang/srt/models/qwen2.py Qwen2Model.forward "
            "(aux_hidden_states.append(hidden_states + residual) before layer i)"
        )
    return f"{target} {arch}.set_eagle3_layers_to_capture + {loop}"


def _sglang_stage_session(session: imports.Session) -> None:
    """SGLang 0.5.23: `layers/layer_boundary` and `layers/aux_hidden_states.py` run real, and
    `utils/common.py make_pp_layers` / `make_layers` (which build the layers inside the
    boundaries' `layer_stack`) exec'd unchanged from the wheel; the one-process parallel
    state gains the pipeline rank and size and the attention-CP size they read (0, 1, 1);
    `get_offloader`: no offload. Needs msgspec importable (an SGLang dependency)."""
    session.real_prefixes += SGLANG_STAGE_MODULES
    common = "sglang/srt/utils/common.py"
    text = session.source.read(common)
    namespace: dict[str, Any] = {
        "torch": torch,
        "functools": functools,
        "add_prefix": stubs.add_prefix,
        **{
            n: getattr(typing, n)
            for n in ("Any", "Callable", "Dict", "Optional", "Sequence", "Tuple")
        },
        "LayerFn": Any,
    }
    parallel = stubs.Answers(**vars(stubs.PARALLEL), pp_rank=0, pp_size=1, attn_cp_size=1)
    namespace["get_parallel"] = lambda *a: parallel
    session.runtime["get_parallel"] = namespace["get_parallel"]
    # One process: the boundary sums are all-reduces over one rank ("ar"), i.e. identities.
    session.runtime["get_exec"] = lambda *a: stubs.Answers(
        deterministic=stubs.Answers(rl_on_policy_target=None),
        comm=stubs.Answers(boundary_reduction="ar"),
    )
    # Per-forward flags and the attention-TP context: no sequence parallel, no scattered input.
    session.runtime["get_forward"] = lambda *a: stubs.Answers(
        sp_active=False, scoped=lambda **k: contextlib.nullcontext()
    )
    session.runtime["get_attn_tp_context"] = lambda *a: stubs.Answers(input_scattered=False)
    for name in ("_no_stage_facts", "make_layers", "make_pp_layers"):
        piece = cut(text, name)
        if piece is None:
            raise RuntimeError(f"{common} has no {name}")
        imports.run_engine_text(piece, common, namespace)
    session.runtime["make_pp_layers"] = namespace["make_pp_layers"]
    session.runtime["make_layers"] = namespace["make_layers"]
    session.runtime["get_offloader"] = lambda: SimpleNamespace(wrap_modules=list)  # no offload


def _sglang_communicator_session(session: imports.Session) -> None:
    """SGLang up to 0.5.14: `layers/communicator.py` (LayerCommunicator, LayerScatterModes, the
    communicate functions that pick, from the group sizes, which gather / all-reduce each stage
    does) runs real. The one-process parallel state gains what it reads: attention DP / CP and
    MoE CP sizes 1, ranks 0 (0.5.9: `dp_attention` functions; 0.5.14: `get_parallel()` fields),
    so every communicate function it selects is the trivial one (same group sizes)."""
    session.real_prefixes += (SGLANG_COMMUNICATOR,)
    parallel = stubs.Answers(**vars(stubs.PARALLEL), attn_cp_size=1, attn_cp_rank=0)
    session.runtime["get_parallel"] = lambda *a: parallel
    session.runtime["get_attention_dp_size"] = lambda *a: 1
    session.runtime["get_attention_cp_size"] = lambda *a: 1
    session.runtime["get_attention_cp_rank"] = lambda *a: 0
    session.runtime["get_moe_cp_size"] = lambda *a: 1


def _sglang_make_layers(
    num: int, layer_fn: Any, *a: Any, **k: Any
) -> tuple[torch.nn.ModuleList, int, int]:
    """`sglang/srt/utils.py make_layers` at PP size 1: every layer built, (layers, 0, num)."""
    prefix = k.get("prefix", "")
    return torch.nn.ModuleList(layer_fn(idx=i, prefix=f"{prefix}.{i}") for i in range(num)), 0, num
