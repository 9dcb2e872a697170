"""The one place where engine imports are stubbed. An import hook serves `sglang.*`/`vllm.*` (and
any missing third-party module) so that engine modules cut from a wheel can be exec'd unchanged:

* modules listed in `REAL_FROM_WHEEL` are exec'd from the wheel's own source text;
* names listed in `EXPLICIT` come from `stub_layers` or the small config stubs below;
* anything else resolves to an opaque placeholder (a class that accepts any call, attribute,
  subscript or decoration). Every placeholder handed out is recorded in `OPAQUE_USED`, so a run
  shows exactly which engine names were not modelled.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import inspect
import sys
import types
from collections.abc import Sequence, Set
from importlib.machinery import ModuleSpec
from types import SimpleNamespace
from typing import Any, Literal

from torch import nn

from . import stub_layers as L
from .stubs import IDENTITIES

OPAQUE_USED: set[str] = set()
# Whether an opaque placeholder instance reads as false (`if is_npu():`, `if envs.X:`). Off
# (true, Python's default) unless a driver turns it on for its run; reset() turns it off.
OPAQUE_FALSY = {"on": False}


class _OpaqueMeta(type):
    def __call__(cls, *a: Any, **k: Any) -> Any:
        # Used as a decorator (`@unmodelled_name` over a function): keep the function itself, so
        # the engine's decorated code still runs instead of vanishing into a placeholder.
        if len(a) == 1 and not k and (inspect.isfunction(a[0]) or isinstance(a[0], type)):
            OPAQUE_USED.add(f"{cls.__name__} (as decorator: pass-through)")
            return a[0]
        return super().__call__(*a, **k)

    def __getattr__(cls, name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        return opaque(f"{cls.__name__}.{name}")

    def __getitem__(cls, item: object) -> _OpaqueMeta:
        return cls

    def __or__(cls, other: object) -> _OpaqueMeta:
        return cls

    def __ror__(cls, other: object) -> _OpaqueMeta:
        return cls


def opaque(qualname: str) -> type:
    """A placeholder class standing for an engine name nobody modelled."""
    OPAQUE_USED.add(qualname)

    def __init__(self: object, *a: Any, **k: Any) -> None:
        pass

    def __call__(self: object, *a: Any, **k: Any) -> Any:
        return a[0] if len(a) == 1 and callable(a[0]) and not k else opaque(qualname + "()")()

    def __getattr__(self: object, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return opaque(f"{qualname}.{name}")()

    def __enter__(self: object) -> object:
        return self

    def __exit__(self: object, *a: object) -> Literal[False]:
        return False

    def __bool__(self: object) -> bool:
        return not OPAQUE_FALSY["on"]

    ns = {
        "__init__": __init__,
        "__call__": __call__,
        "__getattr__": __getattr__,
        "__enter__": __enter__,
        "__exit__": __exit__,
        "__bool__": __bool__,
    }
    return _OpaqueMeta(qualname.rsplit(".", 1)[-1], (), ns)


_LAYERS = {
    "RMSNorm": L.RMSNorm,
    "QKVParallelLinear": L.QKVParallelLinear,
    "MergedColumnParallelLinear": L.MergedColumnParallelLinear,
    "RowParallelLinear": L.RowParallelLinear,
    "ReplicatedLinear": L.ReplicatedLinear,
    "ColumnParallelLinear": L.ColumnParallelLinear,
    "VocabParallelEmbedding": L.VocabParallelEmbedding,
    "ParallelLMHead": L.ParallelLMHead,
    "LlamaDecoderLayer": L.LlamaDecoderLayer,
    "LlamaMLP": L.LlamaMLP,
    "LlamaForCausalLM": type("LlamaForCausalLM", (nn.Module,), {}),
    "Qwen3DecoderLayer": L.LlamaDecoderLayer,
}


class VllmConfig:
    """vllm.config.VllmConfig as far as the draft code calls it: no quantization."""

    @staticmethod
    def get_quantization_config(*_: object, **__: object) -> None:
        return None


# name -> value, looked up in every stubbed engine module before the opaque fallback.
EXPLICIT: dict[str, object] = {
    **_LAYERS,
    "VllmConfig": VllmConfig,
    **IDENTITIES,
    "get_pp_group": lambda: SimpleNamespace(is_first_rank=True, is_last_rank=True, world_size=1),
    "get_parallel": lambda: SimpleNamespace(
        pp_group=SimpleNamespace(is_first_rank=True, is_last_rank=True, world_size=1)
    ),
    "get_spec": lambda: SimpleNamespace(speculative_draft_window_size=None),
    "get_global_server_args": lambda: SimpleNamespace(speculative_draft_window_size=None),
    "get_tensor_model_parallel_world_size": lambda: 1,
    "get_tensor_model_parallel_rank": lambda: 0,
    "without_trust_remote_code": lambda kwargs: {
        k: v for k, v in kwargs.items() if k != "trust_remote_code"
    },
}

# Set per run by the engine drivers: default_weight_loader cut from the wheel, the current
# vllm_config, and which modules to exec from the wheel.
RUNTIME: dict[str, object] = {}
REAL_FROM_WHEEL: dict[str, str] = {}  # module name -> source text
REAL_PACKAGES: set[str] = set()  # those of them that are a package's __init__


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in RUNTIME:
            return RUNTIME[name]
        if name in EXPLICIT:
            return EXPLICIT[name]
        value = opaque(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        if spec.name in REAL_FROM_WHEEL:
            return None
        return _StubModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        source = REAL_FROM_WHEEL.get(module.__name__)
        if source is not None:
            exec(
                compile(source, f"<wheel>/{module.__name__.replace('.', '/')}.py", "exec"),
                module.__dict__,
            )


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> ModuleSpec | None:
        root = fullname.split(".")[0]
        if fullname in REAL_FROM_WHEEL:
            return importlib.util.spec_from_loader(
                fullname, _Loader(), is_package=fullname in REAL_PACKAGES
            )
        if root in ("sglang", "vllm"):  # a stub may stand for a package: import children too
            return importlib.util.spec_from_loader(fullname, _Loader(), is_package=True)
        if root in ENGINE_ONLY_THIRD_PARTY:
            return importlib.util.spec_from_loader(fullname, _Loader(), is_package=True)
        return None


# Third-party packages the engine modules import at module level that are not installed here.
ENGINE_ONLY_THIRD_PARTY = {"flashinfer", "sgl_kernel", "vllm_flash_attn", "xformers"}

_FINDER = _Finder()


def install() -> None:
    """Put the hook first on sys.meta_path (idempotent)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def reset(real_modules: dict[str, str], packages: Set[str] = frozenset()) -> None:
    """Forget every engine module imported so far and serve `real_modules` from source next
    (`packages`: those whose source is a package __init__)."""
    for name in list(sys.modules):
        if name.split(".")[0] in ("sglang", "vllm") or name in REAL_FROM_WHEEL:
            del sys.modules[name]
    REAL_FROM_WHEEL.clear()
    REAL_FROM_WHEEL.update(real_modules)
    REAL_PACKAGES.clear()
    REAL_PACKAGES.update(packages)
    RUNTIME.clear()
    OPAQUE_USED.clear()
    OPAQUE_FALSY["on"] = False
