"""The import hook that lets an engine's model files run unchanged without the engine installed.

While a `Session` is active, `import sglang...` / `import vllm...` is served by this hook:

* modules the session names real (`real_prefixes`) are exec'd from the engine's own source text
  (`sources.EngineSource`), unchanged;
* any other engine module is a stub whose attributes come from `runtime` (per-run values such as
  the engine's own `default_weight_loader`), then `explicit` (the stub layers, the reference
  attention, platform answers: `stubs.py`), else an opaque placeholder: falsy, any attribute or
  subscript is another placeholder, a decorator keeps what it decorates, a lower-case (function)
  name returns None when called and an upper-case (class) name an inert instance. Every
  placeholder handed out is recorded in `opaque_used`, so a run lists what it did not model;
* a third-party module that is not installed (sgl_kernel, flashinfer, triton, ...) is a stub too,
  but only when an engine module imports it.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .sources import EngineSource

ENGINE_ROOTS = ("sglang", "vllm")


@dataclass
class Session:
    """One engine version's import world."""

    source: EngineSource
    real_prefixes: tuple[str, ...]
    explicit: Mapping[str, object]
    runtime: dict[str, object] = field(default_factory=dict)
    opaque_used: set[str] = field(default_factory=set)
    stubbed_third_party: set[str] = field(default_factory=set)

    def member_of(self, module: str) -> str | None:
        """The source file that defines dotted `module`, if it is one the session runs real."""
        if not any(module == p or module.startswith(p + ".") for p in self.real_prefixes):
            return None
        path = module.replace(".", "/")
        for member in (f"{path}.py", f"{path}/__init__.py"):
            if self.source.has(member):
                return member
        return None


_ACTIVE: list[Session] = []
_ENGINE_DEPTH = [0]


def active() -> Session:
    """The session engine code is running under."""
    if not _ACTIVE:
        raise RuntimeError("no engine import session is active")
    return _ACTIVE[-1]


class _OpaqueMeta(type):
    def __call__(cls, *a: Any, **k: Any) -> Any:
        # As a decorator over a function or class: keep it, so the engine's decorated code runs.
        if len(a) == 1 and not k and (inspect.isfunction(a[0]) or isinstance(a[0], type)):
            _record(f"{cls.__qualname__} (as decorator: pass-through)")
            return a[0]
        # A lower-case name is a function: it returns None (loud if the result is used); an
        # upper-case one is a class: an inert instance.
        if not cls.__qualname__.rsplit(".", 1)[-1][:1].isupper():
            _record(f"{cls.__qualname__}() -> None")
            return None
        return super().__call__(*a, **k)

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return opaque(f"{cls.__qualname__}.{name}")

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __or__(cls, other: Any) -> Any:
        return cls

    def __ror__(cls, other: Any) -> Any:
        return cls

    def __bool__(cls) -> bool:
        return False


def _record(name: str) -> None:
    if _ACTIVE:
        _ACTIVE[-1].opaque_used.add(name)


def opaque(qualname: str) -> type:
    """A placeholder class standing for an engine name nobody modelled (falsy; calling a
    lower-case one returns None, an upper-case one an inert falsy instance)."""
    _record(qualname)

    def __init__(self: Any, *a: Any, **k: Any) -> None:
        pass

    def __getattr__(self: Any, name: str) -> Any:
        # Only the placeholder's own instances answer everything; an engine class that merely
        # inherits from a placeholder (an unmodelled mixin) keeps normal attribute errors.
        if name.startswith("__") or type(self).__qualname__ != qualname:
            raise AttributeError(name)
        return opaque(f"{qualname}().{name}")

    def __bool__(self: Any) -> bool:
        return False

    def __iter__(self: Any) -> Iterator[Any]:
        return iter(())

    def __enter__(self: Any) -> Any:
        return self

    def __exit__(self: Any, *a: Any) -> Literal[False]:
        return False

    namespace: dict[str, Any] = {
        "__init__": __init__,
        "__getattr__": __getattr__,
        "__bool__": __bool__,
        "__iter__": __iter__,
        "__enter__": __enter__,
        "__exit__": __exit__,
    }
    cls = _OpaqueMeta(qualname.rsplit(".", 1)[-1], (), namespace)
    cls.__qualname__ = qualname
    return cls


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        session = active()
        if session.member_of(f"{self.__name__}.{name}") is not None:  # a real submodule
            return import_engine(f"{self.__name__}.{name}")
        if name in session.runtime:
            return session.runtime[name]
        if name in session.explicit:
            return session.explicit[name]
        value = opaque(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class _Loader(importlib.abc.Loader):
    def __init__(self, member: str | None) -> None:
        self.member = member

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None if self.member is not None else _StubModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        if self.member is None:
            return
        session = active()
        code = compile(session.source.read(self.member), engine_filename(self.member), "exec")
        _ENGINE_DEPTH[0] += 1
        try:
            exec(code, module.__dict__)
        finally:
            _ENGINE_DEPTH[0] -= 1


def engine_filename(member: str) -> str:
    """The filename engine code runs under (tracebacks name the engine file)."""
    return f"<engine>/{member}"


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not _ACTIVE:
            return None
        root = fullname.split(".")[0]
        session = _ACTIVE[-1]
        if root in ENGINE_ROOTS:
            member = session.member_of(fullname)
            is_package = member is None or member.endswith("__init__.py")
            return importlib.util.spec_from_loader(fullname, _Loader(member), is_package=is_package)
        if _ENGINE_DEPTH[0] and importlib.machinery.PathFinder.find_spec(root) is None:
            session.stubbed_third_party.add(root)
            return importlib.util.spec_from_loader(fullname, _Loader(None), is_package=True)
        return None


_FINDER = _Finder()


def _forget_engine_modules() -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in ENGINE_ROOTS:
            del sys.modules[name]


@contextlib.contextmanager
def session(active_session: Session) -> Iterator[Session]:
    """Runs the body with `active_session`'s import world (engine modules forgotten before and
    after, so versions never mix)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    _forget_engine_modules()
    _ACTIVE.append(active_session)
    try:
        yield active_session
    finally:
        _ACTIVE.pop()
        _forget_engine_modules()


def run_engine_text(source_text: str, member: str, namespace: dict[str, Any]) -> None:
    """Execs a piece of engine source (a function cut out of a larger file) into `namespace`."""
    _ENGINE_DEPTH[0] += 1
    try:
        exec(compile(source_text, engine_filename(member), "exec"), namespace)
    finally:
        _ENGINE_DEPTH[0] -= 1


def import_engine(module: str) -> types.ModuleType:
    """Imports dotted `module` inside the active session."""
    return importlib.import_module(module)


Factory = Callable[..., Any]
