"""The extractor's state while it walks engine code: what an expression evaluates to (`Val`),
the class and function being walked (`ClassCtx`, `Ctx`: locals, `self` attributes, the tests in
force), what a callee inherits from its call site (`Inherit`), and merging values that flow
together from alternative branches."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from config_contract.model import Read, Ref
from config_contract.sources import Def, Module

Keys = frozenset[tuple[str, object]]  # guard keys: ("read", id) / ("ref" | "present", Ref)
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
# (module, definition, qualname, class context, is a method) of a call's target
Target = tuple[Module, Def, str, "ClassCtx | None", bool]
Key = tuple[object, ...]  # memo keys


@dataclass
class Val:
    """What an expression evaluates to, as far as config flow goes: a config object or field
    (`ref`), the reads its value came from, or a marker (`kind`: "self", "vllm*" for vLLM's
    engine config on the way to the draft config, "instance" for a loaded model)."""

    ref: Ref | None = None
    reads: tuple[Read, ...] = ()
    kind: str = ""


@dataclass(frozen=True)
class Inherit:
    """What holds in a callee because of where it was called: the caller's None tests, its
    `try`, the branch tests around the call, and whether the caller always runs."""

    guards: Keys = frozenset()
    caught: int = 0
    branches: tuple[str, ...] = ()
    run: bool = True
    when: tuple[str, ...] = ()


NO_INHERIT = Inherit()


@dataclass
class ClassCtx:
    module: Module
    node: ast.ClassDef
    attrs: dict[str, Val] = field(default_factory=dict)


@dataclass
class Ctx:
    module: Module
    qual: str
    cls: ClassCtx | None
    locals: dict[str, Val]
    depth: int
    value_hops: int = 0  # consecutive calls followed with only read values (no config object)
    guards: list[Keys] = field(default_factory=list)
    hasattr_guards: dict[Ref, tuple[str | None, str | None]] = field(default_factory=dict)
    caught: int = 0
    none_branch: Ref | None = None  # inside `if <field> is None:` of this field
    conditions: list[tuple[Ref, str]] = field(default_factory=list)  # (field, "not-none"/"truthy")
    when: list[str] = field(default_factory=list)  # `field == literal` tests around this point
    branches: list[str] = field(default_factory=list)  # texts of the tests this point is under
    run: bool = True  # in a method every load / forward runs (and what it calls)

    @property
    def where(self) -> str:
        return f"{self.module.path}:{self.qual}"

    def guarded(self) -> Keys:
        out: Keys = frozenset()
        for g in self.guards:
            out |= g
        return out


def keys(val: Val | None) -> Keys:
    """Guard keys for a value: its reads, and the fields they read (a later read of the same
    field in the guarded region is covered too)."""
    if val is None:
        return frozenset()
    keys = {("read", id(r)) for r in val.reads} | {("ref", r.ref) for r in val.reads}
    if val.ref is not None:
        keys.add(("ref", val.ref))
    return frozenset(keys)


def terms(truthy: Keys, falsy: Keys) -> list[str]:
    """`set:F` for the fields a test makes truthy / not None, `unset:F` for those it makes
    None or falsy."""

    def fields(keys: Keys) -> list[str]:
        refs = [k[1] for k in keys if k[0] == "ref" and isinstance(k[1], Ref)]
        return sorted({r.dotted for r in refs if r.path})

    return [f"set:{f}" for f in fields(truthy)] + [f"unset:{f}" for f in fields(falsy)]


def inherit(ctx: Ctx) -> Inherit:
    return Inherit(ctx.guarded(), ctx.caught, tuple(ctx.branches), ctx.run, tuple(ctx.when))


def bind_key(binding: dict[str, Val]) -> dict[str, Key]:
    return {k: (v.ref, v.kind, tuple(id(r) for r in v.reads)) for k, v in binding.items()}


def merge_maps(maps: list[dict[str, Val]]) -> dict[str, Val]:
    out: dict[str, Val] = {}
    for name in dict.fromkeys(k for m in maps for k in m):
        merged: Val | None = None
        for m in maps:
            merged = merge(merged, m.get(name))
        if merged is not None:
            out[name] = merged
    return out


def merge(a: Val | None, b: Val | None) -> Val | None:
    if a is None:
        return b
    if b is None:
        return a
    return Val(
        ref=a.ref or b.ref,
        reads=a.reads + tuple(r for r in b.reads if r not in a.reads),
        kind=a.kind or b.kind,
    )
