"""vLLM as ground truth: for one wheel, run its own config code (the speculators adapter
`SpeculatorsConfig.extract_vllm_speculative_config` + `update_eagle3`, then `EAGLEConfig`'s
architecture rewrite), resolve the class in the wheel's `_SPECULATIVE_DECODING_MODELS`, exec
`model_executor/models/llama_eagle3.py` (and `models/utils.py` for `AutoWeightsLoader`) unchanged
over the stub layers, and read the aux ids with each runner's own
`_get_eagle3_aux_layers_from_config`."""

from __future__ import annotations

import ast
import functools
import textwrap
from types import SimpleNamespace

import stub_imports as S
import stub_layers as L
from drafter import Drafter
from hf_config import build_config
from outcome import dropped_tensors, error_record, load_error, unloaded_params
from wheels import Wheel, cut

EAGLE3_MODULE = "vllm/model_executor/models/llama_eagle3.py"
UTILS = "vllm/model_executor/models/utils.py"
REGISTRY = "vllm/model_executor/models/registry.py"
SPEC_DIR = "vllm/transformers_utils/configs/speculators/"
EAGLE_CFG = "vllm/transformers_utils/configs/eagle.py"
AUX_FN = "_get_eagle3_aux_layers_from_config"
TARGET_LAYERS = 32  # only used by vLLM to name the draft layer's KV-cache prefix


def _module_name(member: str) -> str:
    return member.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


@functools.cache
def speculative_registry(wheel: Wheel) -> dict[str, tuple[str, str]]:
    """`_SPECULATIVE_DECODING_MODELS` as written in the wheel: arch -> (module, class)."""
    tree = ast.parse(wheel.read(REGISTRY))
    for node in tree.body:
        target = (
            node.target
            if isinstance(node, ast.AnnAssign)
            else (node.targets[0] if isinstance(node, ast.Assign) else None)
        )
        if isinstance(target, ast.Name) and target.id == "_SPECULATIVE_DECODING_MODELS":
            return {k: tuple(v) for k, v in ast.literal_eval(node.value).items()}
    raise LookupError("no _SPECULATIVE_DECODING_MODELS in registry.py")


def _real_modules(wheel: Wheel) -> tuple[dict[str, str], set[str]]:
    members = [
        m for m in [EAGLE3_MODULE, UTILS, EAGLE_CFG, *wheel.glob(SPEC_DIR, "")] if wheel.has(m)
    ]
    packages = {_module_name(m) for m in members if m.endswith("__init__.py")}
    return {_module_name(m): wheel.read(m) for m in members}, packages


def draft_hf_config(drafter: Drafter):
    """vLLM's get_config for the draft dir, then SpeculativeConfig's EAGLEConfig wrap (eagle3)."""
    config = drafter.config
    model_type = config.get("model_type")
    if model_type is None and config.get("speculators_config") is not None:
        model_type = "speculators"
    if model_type == "speculators":
        base = __import__(
            "vllm.transformers_utils.configs.speculators.base", fromlist=["SpeculatorsConfig"]
        )
        cls = base.SpeculatorsConfig
        # maybe_override_with_speculators validates first (`vllm serve <speculators dir>`).
        cls.extract_vllm_speculative_config(dict(config))
        hf = cls.from_pretrained(str(drafter.path))
        how = (
            "speculators/base.py SpeculatorsConfig.extract_vllm_speculative_config + "
            "from_pretrained -> algos.py update_eagle3 (exec'd)"
        )
    else:
        hf = build_config(drafter.path)
        how = "transformers AutoConfig.from_pretrained"
    eagle = __import__("vllm.transformers_utils.configs.eagle", fromlist=["EAGLEConfig"])
    wrapped = eagle.EAGLEConfig(hf, method="eagle3", model_type="eagle")
    return wrapped, how + " -> configs/eagle.py EAGLEConfig(method='eagle3') (exec'd)"


def runner_aux_ids(wheel: Wheel, hf) -> dict[str, object]:
    """Each runner's own `_get_eagle3_aux_layers_from_config`, exec'd unchanged (dedented) on a
    runner whose speculative_config carries `hf`. None = the target's default layers."""
    results: dict[str, object] = {}
    runner = SimpleNamespace(
        speculative_config=SimpleNamespace(draft_model_config=SimpleNamespace(hf_config=hf))
    )
    for member in wheel.glob("vllm/v1/", ""):
        text = wheel.read(member)
        if f"def {AUX_FN}" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and node.name == AUX_FN:
                namespace: dict = {}
                src = textwrap.dedent(ast.get_source_segment(text, node))
                exec(
                    compile(
                        "from __future__ import annotations\n" + src, f"<wheel>/{member}", "exec"
                    ),
                    namespace,
                )
                try:
                    value = namespace[AUX_FN](runner)
                    results[member] = list(value) if value else None
                except Exception as exc:
                    results[member] = f"error: {type(exc).__name__}: {exc}"
    return results


class _Ns(SimpleNamespace):
    """A config namespace whose unmodelled attributes read as None (each one is recorded)."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        S.OPAQUE_USED.add(f"vllm_config.*.{name} = None")
        return None


def _vllm_config(hf, target_vocab: int):
    draft = _Ns(hf_config=hf)
    return _Ns(
        speculative_config=_Ns(draft_model_config=draft, method="eagle3", parallel_drafting=False),
        model_config=_Ns(
            hf_config=hf,
            get_num_layers=lambda *_: TARGET_LAYERS,
            get_total_num_hidden_layers=lambda *_: TARGET_LAYERS,
            get_vocab_size=lambda: target_vocab,
            dtype=L.torch.float32,
        ),
    )


def run(drafter: Drafter, wheel: Wheel, version: str) -> dict:
    """The record for `drafter` under this vLLM wheel."""
    record: dict = {"engine": "vllm", "version": version, "evidence": {}}
    S.reset(*_real_modules(wheel))
    S.RUNTIME["default_weight_loader"] = L.logged_default_loader(
        cut(wheel.read("vllm/model_executor/model_loader/weight_utils.py"), "default_weight_loader")
    )
    try:
        hf, how = draft_hf_config(drafter)
    except Exception as exc:
        return record | {
            "verdict": "REFUSED",
            "why": error_record("config", exc, "vllm transformers_utils config code"),
        }
    record["evidence"]["config"] = how
    archs = list(getattr(hf, "architectures", None) or [])
    record["resolved_architectures"] = archs
    aux = runner_aux_ids(wheel, hf)
    record["aux_layer_ids_by_runner"] = aux
    record["aux_layer_ids"] = next(iter(aux.values()), None) if aux else None
    record["evidence"]["aux_layer_ids"] = (
        ", ".join(f"{m} {AUX_FN} (exec'd)" for m in aux)
        or "no reader in this wheel: target default (get_eagle3_aux_hidden_state_layers)"
    )
    registry = speculative_registry(wheel)
    arch = archs[0] if archs else None
    if arch not in registry:
        return record | {
            "verdict": "REFUSED",
            "why": {
                "stage": "architecture",
                "exception": f"resolved architecture {arch!r} not in _SPECULATIVE_DECODING_MODELS",
                "decided_by": f"{REGISTRY} _SPECULATIVE_DECODING_MODELS + {EAGLE_CFG} EAGLEConfig",
            },
        }
    module_name, class_name = registry[arch]
    if module_name != "llama_eagle3":
        return record | {
            "verdict": "NOT-MODELLED",
            "why": {
                "stage": "architecture",
                "exception": f"{arch} -> {module_name}.{class_name}: "
                "only llama_eagle3 is exec'd by this harness",
                "decided_by": f"{REGISTRY}",
            },
        }
    record["evidence"]["architecture"] = (
        f"{REGISTRY} _SPECULATIVE_DECODING_MODELS[{arch!r}] = {registry[arch]}"
    )
    vcfg = _vllm_config(hf, _target_vocab(drafter))
    S.RUNTIME["get_current_vllm_config"] = lambda: vcfg
    log = L.reset_log()
    try:
        module = __import__(_module_name(EAGLE3_MODULE), fromlist=[class_name])
        model = getattr(module, class_name)(vllm_config=vcfg, prefix="")
    except Exception as exc:
        return record | {
            "verdict": "REFUSED",
            "why": error_record("init", exc, f"{EAGLE3_MODULE} {class_name}.__init__"),
        }
    fc = getattr(model.model, "fc", None)
    record["fc_in_features"] = getattr(fc, "in_features", getattr(fc, "input_size", None))
    record["evidence"]["fc_in_features"] = f"{EAGLE3_MODULE} LlamaModel.__init__ (exec'd)"
    where = f"{EAGLE3_MODULE} {class_name}.load_weights -> {UTILS} AutoWeightsLoader"
    failed = load_error(model, drafter.tensors, record, where)
    if failed is not None:
        return failed
    return record | {
        "verdict": "LOADED",
        "dropped": dropped_tensors(drafter.tensors, log),
        "never_loaded": unloaded_params(model, log),
        "opaque_names": sorted(S.OPAQUE_USED),
        "evidence": record["evidence"]
        | {
            "dropped": f"{EAGLE3_MODULE} {class_name}.load_weights (exec'd)",
            "never_loaded": f"{EAGLE3_MODULE} {class_name}.__init__ + load_weights (exec'd)",
        },
    }


def _target_vocab(drafter: Drafter) -> int:
    """The target vocab size the drafter declares (top level or transformer_layer_config)."""
    cfg = drafter.config
    return cfg.get("vocab_size") or (cfg.get("transformer_layer_config") or {}).get("vocab_size")
