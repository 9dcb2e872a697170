"""SGLang as ground truth for every drafter family (issue 19): the architecture resolved
against the wheel's EntryClass registry, then the model file that registers it exec'd
unchanged (with the modules it builds layers from), its `__init__(config, quant_config)` and
`load_weights` run over the stub layers.

* `srt/models/llama_eagle3.py` unquantized: the original harness (sglang_truth.run);
* `srt/models/kimi_k25_eagle3.py` (`Eagle3DeepseekV2ForCausalLM`, MLA): with
  `srt/models/deepseek_v2.py` (`DeepseekV2AttentionMLA`, `DeepseekV2MLP`) exec'd too;
* `srt/models/dflash.py` (`DFlashDraftModel`, `DFlash2DraftModel`, ...): with
  `srt/speculative/dflash_utils.py` (`parse_dflash_draft_config`, which resolves the target
  layer ids) and `srt/models/utils.py` exec'd too;
* quantized drafters (a `quantization_config` / `hf_quant_config.json`): the quantization
  config SGLang's model config builds (quant_truth.py), passed to the model class as the
  model loader does.

The draft config is what SGLang's `get_config` returns: transformers' AutoConfig, except for a
model type the wheel's `_CONFIG_REGISTRY` maps to its own class (kimi_k2 -> a DeepseekV3Config
alias, from 0.5.12).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
from collections.abc import Iterator, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any

from torch import nn

from . import quant_truth, sglang_truth, wheel_exec
from . import stub_families as F
from . import stub_imports as S
from . import stub_layers as L
from .drafter import DrafterFiles
from .hf_config import build_config
from .layers import reset_log
from .outcome import load_error, loaded, refused
from .sglang_eagle3 import entry_classes
from .sources import EngineSource, cut

if TYPE_CHECKING:
    from transformers import PretrainedConfig

MODELS = "sglang/srt/models/"
# model file -> the other wheel modules exec'd with it (what it builds its layers from)
MODEL_DEPS = {
    "llama_eagle3.py": ("sglang/srt/models/llama.py",),
    # deepseek_common/ holds the attention-forward mixins DeepseekV2AttentionMLA inherits and
    # whose init_*_forward methods its __init__ calls
    "kimi_k25_eagle3.py": (
        "sglang/srt/models/deepseek_v2.py",
        "sglang/srt/models/deepseek_common/",
    ),
    # (models/utils.py stays stubbed: it imports triton at module level, and dflash.py only
    # takes the forward-time apply_qk_norm from it)
    "dflash.py": ("sglang/srt/speculative/dflash_utils.py",),
}
CONFIG_REGISTRIES = (
    "sglang/srt/utils/hf_transformers/common.py",
    "sglang/srt/utils/hf_transformers_utils.py",
)
KIMI_ALIAS = '_CONFIG_REGISTRY["kimi_k2"] = _KimiK2ConfigAlias'
# Helpers the model files call at __init__ that live in modules too heavy to exec whole: the
# function's own source is cut from the wheel and exec'd unchanged (first member that has it).
CUT_FUNCTIONS = {"get_rope_config": CONFIG_REGISTRIES}


def _module_name(member: str) -> str:
    return member.removesuffix(".py").replace("/", ".")


def draft_config(drafter: DrafterFiles, wheel: EngineSource) -> tuple[PretrainedConfig, str]:
    """(hf config, how): SGLang get_config's result for the draft directory."""
    model_type = drafter.config.get("model_type")
    if model_type == "kimi_k2":
        registry = next((m for m in CONFIG_REGISTRIES if wheel.has(m)), None)
        if registry and KIMI_ALIAS in wheel.read(registry):
            from transformers import DeepseekV3Config

            alias: type[DeepseekV3Config] = type(
                "_KimiK2ConfigAlias", (DeepseekV3Config,), {"model_type": "kimi_k2"}
            )
            return alias.from_pretrained(str(drafter.path)), (
                f"{registry} _CONFIG_REGISTRY['kimi_k2'] (a transformers DeepseekV3Config "
                "alias) .from_pretrained"
            )
    return build_config(drafter.path), "transformers AutoConfig (called by sglang get_config)"


def run(drafter: DrafterFiles, wheel: EngineSource, version: str) -> dict[str, Any]:
    """The record for `drafter` under this SGLang wheel."""
    arch = (drafter.config.get("architectures") or [None])[0]
    module = entry_classes(wheel).get(arch)
    file = module.rsplit("/", 1)[-1] if module else None
    quantized = quant_truth.declares_quantization(drafter)
    if file not in MODEL_DEPS or (file == "llama_eagle3.py" and not quantized):
        return sglang_truth.run(drafter, wheel, version)
    assert module is not None  # file is None without it
    return run_family(drafter, wheel, version, arch, module)


def run_family(
    drafter: DrafterFiles, wheel: EngineSource, version: str, arch: str, member: str
) -> dict[str, Any]:
    """Exec `member` (and its dependencies), build `arch` from the draft config, load."""
    ids, ids_from = sglang_truth.aux_ids(drafter.config)
    record: dict[str, Any] = {
        "engine": "sglang",
        "version": version,
        "aux_layer_ids": ids,
        "aux_layer_ids_from": ids_from,
        "evidence": {"architecture": f"{member} EntryClass {arch}"},
    }
    runner, line = sglang_truth._aux_reader(wheel)
    record["evidence"]["aux_layer_ids"] = (
        f"{runner}:{line} (re-stated)" if line else "not found in this wheel's model runner"
    )
    try:
        hf, how = draft_config(drafter, wheel)
    except Exception as exc:
        return refused(record, "config", exc, "transformers AutoConfig (sglang get_config)")
    record["evidence"]["config"] = how
    file = member.rsplit("/", 1)[-1]
    modules = {_module_name(member): wheel.read(member)}
    packages: set[str] = set()
    for dep in MODEL_DEPS[file]:
        for path in wheel.members(dep) if dep.endswith("/") else [dep]:
            if not wheel.has(path) or "/amd/" in path:
                continue
            name = _module_name(path).removesuffix(".__init__")
            modules[name] = wheel.read(path)
            if path.endswith("__init__.py"):
                packages.add(name)
    quant = quant_truth.sglang_quant_config(drafter, wheel, modules, packages)
    S.reset(modules, packages)
    F.install_sglang()
    S.RUNTIME["default_weight_loader"] = L.logged_default_loader(
        cut(wheel.read("sglang/srt/model_loader/weight_utils.py"), "default_weight_loader")
    )
    for name, members in CUT_FUNCTIONS.items():
        _serve_cut_function(wheel, name, members)
    try:
        with _triton_placeholder():
            cls = getattr(__import__(_module_name(member), fromlist=[arch]), arch)
    except Exception as exc:
        return refused(record, "import", exc, f"{member} (module import)") | {
            "opaque_names": sorted(S.OPAQUE_USED)
        }
    try:
        quant_config, quant_how = quant.build(cls)
    except Exception as exc:
        return refused(record, "quantization", exc, quant.decided_by)
    if quant_how:
        record["evidence"]["quantization"] = quant_how
        record["quant_method"] = type(quant_config).__name__ if quant_config else None
    log = reset_log()
    try:
        model = cls(hf, quant_config=quant_config)
    except Exception as exc:
        return refused(record, "init", exc, f"{member} {arch}.__init__") | {
            "opaque_names": sorted(S.OPAQUE_USED)
        }
    fc = getattr(getattr(model, "model", model), "fc", None)
    record["fc_in_features"] = getattr(fc, "in_features", getattr(fc, "input_size", None))
    record["evidence"]["fc_in_features"] = f"{member} {arch}.__init__ (exec'd)"
    _family_facts(model, record)
    where = f"{member} {arch}.load_weights"
    failed = load_error(model, drafter.tensors, record, where)
    if failed is not None:
        return failed | {"opaque_names": sorted(S.OPAQUE_USED)}
    dropped, d2t = sglang_truth.hot_token_dropped(model, drafter.tensors, log)
    rebuilt = F.consumed_by_value(model, dropped, drafter.tensors)
    kept = [n for n in dropped if n not in rebuilt]
    facts = {"loaded_by_value": rebuilt, "d2t_consumed_as": d2t}
    result = loaded(record, model, log, kept, f"{member} {arch}", **facts)
    if quant_config is not None:
        result["quantized_params"] = quant_truth.quantized_params(model)
    return result


class _TritonFinder(importlib.abc.MetaPathFinder):
    """Serves `triton` and its submodules as opaque stub modules (see _triton_placeholder)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname.split(".")[0] != "triton":
            return None
        return importlib.util.spec_from_loader(fullname, S._Loader(), is_package=True)


@contextlib.contextmanager
def _triton_placeholder() -> Iterator[None]:
    """dflash.py / dflash_utils.py (0.5.18 .. 0.5.22) import triton at module level for their
    kernels: opaque placeholders stand for it while the engine modules import, removed after.
    torch's own triton probe is answered (cached) first, so torch never sees the stand-in."""
    import sys

    from torch.utils._triton import has_triton

    has_triton()  # cache torch's answer (False here) before the stand-in exists
    finder = _TritonFinder()
    before = {name for name in sys.modules if name.split(".")[0] == "triton"}
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n.split(".")[0] == "triton"]:
            if name not in before:
                del sys.modules[name]


def _serve_cut_function(wheel: EngineSource, name: str, members: tuple[str, ...]) -> None:
    """Exec the wheel's own `def name` and serve it to the stubbed modules."""
    for member in members:
        if not wheel.has(member):
            continue
        source = cut(wheel.read(member), name)
        if source is None:
            continue
        S.RUNTIME[name] = wheel_exec.run_source(source, member, {})[name]
        return


def _family_facts(model: nn.Module, record: dict[str, Any]) -> None:
    """What the built model says about its inputs: DFlash's resolved target layer ids and
    context-feature count; the MLA draft's lm_head-from-target flag."""
    draft = getattr(model, "draft_config", None)
    if draft is not None and hasattr(draft, "resolve_target_layer_ids"):
        record["num_context_features"] = getattr(model, "num_context_features", None)
        record["block_size"] = getattr(model, "block_size", None)
        record["dflash_target_layer_ids"] = _plain(getattr(draft, "target_layer_ids", None))
        record["evidence"]["dflash_target_layer_ids"] = (
            "speculative/dflash_utils.py parse_dflash_draft_config (exec'd, as "
            "DFlashDraftModel.__init__ calls it)"
        )
    if hasattr(model, "load_lm_head_from_target"):
        record["load_lm_head_from_target"] = bool(model.load_lm_head_from_target)


def _plain(value: object) -> object:
    return list(value) if isinstance(value, (list, tuple)) else value
