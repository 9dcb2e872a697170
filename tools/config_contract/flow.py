"""Following a config object through engine code with `ast`: from an entry point (a draft model
class's `__init__`, a config adapter function) with its config parameter bound, every attribute,
`getattr`, `hasattr`, `.get`, subscript and `in` on it (and on objects read from it, and on the
locals and `self` attributes holding them) becomes a `Read`; every later use of a read value is
recorded on it (`uses.py`), including inside the engine functions and classes it is passed to,
which are followed through the same source. Tests that make None impossible (`x is not None`,
truthiness, `or` fallbacks, `if x is None: x = ...`, early returns, a broad `try`) mark the uses
they cover; `hasattr` guards and defaults are kept on the read. Nothing is imported or run."""

from __future__ import annotations

import ast
from typing import Any

from config_contract.model import Read, Ref, Use, Write
from config_contract.patterns import (
    assigned_value as _assigned_value,
)
from config_contract.patterns import (
    bind as _bind,
)
from config_contract.patterns import (
    branch_default as _branch_default,
)
from config_contract.patterns import (
    broad as _broad,
)
from config_contract.patterns import (
    callee_name as _callee_name,
)
from config_contract.patterns import (
    condition as _condition,
)
from config_contract.patterns import (
    const_str as _const_str,
)
from config_contract.patterns import (
    copy_source as _copy_source,
)
from config_contract.patterns import (
    exits as _exits,
)
from config_contract.patterns import (
    is_range as _is_range,
)
from config_contract.patterns import (
    literal as _literal,
)
from config_contract.patterns import (
    none_test as _none_test,
)
from config_contract.patterns import (
    params as _params,
)
from config_contract.sources import Module, Source, resolve, resolve_module
from config_contract.state import (
    NO_INHERIT,
    ClassCtx,
    Ctx,
    FunctionNode,
    Inherit,
    Key,
    Keys,
    Target,
    Val,
)
from config_contract.state import (
    bind_key as _bind_key,
)
from config_contract.state import (
    inherit as _inherit,
)
from config_contract.state import (
    keys as _keys,
)
from config_contract.state import (
    merge as _merge,
)
from config_contract.state import (
    merge_maps as _merge_maps,
)
from config_contract.state import (
    terms as _terms,
)
from config_contract.uses import (
    COPIES,
    ITERATORS,
    KEY_READERS,
    LAYER_CTORS,
    SAME_OBJECT,
    call_arg_use,
)

OBJECT_DEPTH = 6  # calls followed with a config object argument
VALUE_HOPS = 2  # consecutive calls followed with only read values as arguments
# Methods an engine calls on every draft model it serves (construction is __init__); reads in
# any other method happen only when something calls it (`conditional`).
RUN_METHODS = {
    "forward",
    "load_weights",
    "compute_logits",
    "from_pretrained",
    "load_verifier_weights",
}


class Analyzer:
    """One entry point's reads and writes (create one per entry point)."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.reads: dict[Key, Read] = {}
        self.writes: list[Write] = []
        self.fills: dict[Ref, tuple[str, bool]] = {}  # field -> (value text, only-if-None)
        self._classes: set[Key] = set()
        self._stack: list[Key] = []

    # -- entry points -------------------------------------------------------------------------
    def run_class(
        self, module: Module, node: ast.ClassDef, binding: dict[str, Val], attrs: dict[str, Val]
    ) -> None:
        """Analyses class `node` as built with `binding` for its `__init__` parameters, then
        every other method it defines (with `self` attributes from `__init__`)."""
        cls = ClassCtx(module, node, dict(attrs))
        self._class(cls, binding, depth=0)

    def run_function(self, module: Module, node: ast.AST, binding: dict[str, Val]) -> None:
        """Analyses a module-level function or a method (qualname from its position)."""
        qual = getattr(node, "name", "?")
        cls = None
        for top in module.tree.body:
            if isinstance(top, ast.ClassDef) and node in top.body:
                cls = ClassCtx(module, top)
                qual = f"{top.name}.{qual}"
        self._function(module, node, qual, cls, binding, 0, method=cls is not None)

    # -- classes and functions ----------------------------------------------------------------
    def _class(
        self,
        cls: ClassCtx,
        binding: dict[str, Val],
        depth: int,
        hops: int = 0,
        inherit: Inherit = NO_INHERIT,
    ) -> None:
        key = (cls.module.path, cls.node.name, tuple(sorted(_bind_key(binding).items())))
        if key in self._classes:
            return
        self._classes.add(key)
        methods = {
            n.name: n
            for n in cls.node.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        init = methods.get("__init__")
        if init is not None:
            self._function(
                cls.module,
                init,
                f"{cls.node.name}.__init__",
                cls,
                binding,
                depth,
                True,
                hops,
                inherit,
            )
        else:
            found = self._base_method(cls, "__init__")
            if found is not None:
                module, fn, owner = found
                self._function(
                    module, fn, f"{owner}.__init__", cls, binding, depth, True, hops, inherit
                )
        for name, fn in methods.items():
            if name != "__init__":
                run = Inherit(run=inherit.run and name in RUN_METHODS)
                self._function(
                    cls.module, fn, f"{cls.node.name}.{name}", cls, {}, depth, True, hops, run
                )

    def _base_method(self, cls: ClassCtx, name: str) -> tuple[Module, FunctionNode, str] | None:
        """The first base class (in order, followed through the source) defining `name`."""
        seen: set[tuple[str, str]] = set()
        todo = [(cls.module, b) for b in cls.node.bases]
        while todo:
            module, base = todo.pop(0)
            base_name = _callee_name(base)
            found = resolve(self.source, module, base_name) if base_name else None
            if found is not None and found[1] is cls.node and base_name in module.imports:
                # `class X(X)`: the base is the imported X the definition shadows
                mod_name, attr = module.imports[base_name]
                imported = self.source.module(mod_name)
                found = resolve(self.source, imported, attr) if imported and attr else None
            if found is None:
                continue
            bmod, bnode = found
            if not isinstance(bnode, ast.ClassDef) or (bmod.path, bnode.name) in seen:
                continue
            seen.add((bmod.path, bnode.name))
            for item in bnode.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    return bmod, item, bnode.name
            todo += [(bmod, b) for b in bnode.bases]
        return None

    def _function(
        self,
        module: Module,
        fn: ast.AST,
        qual: str,
        cls: ClassCtx | None,
        binding: dict[str, Val],
        depth: int,
        method: bool = False,
        hops: int = 0,
        inherit: Inherit = NO_INHERIT,
    ) -> Val | None:
        key = (module.path, qual, tuple(sorted(_bind_key(binding).items())))
        if key in self._stack:
            return None
        args = fn.args  # type: ignore[attr-defined]
        params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        local = {p: v for p, v in binding.items() if p in params}
        if method and params and cls is not None:
            local[params[0]] = Val(kind="self")
        ctx = Ctx(module, qual, cls, local, depth, hops)
        # the caller's tests still hold for the values it passed (and its `try` still catches)
        ctx.guards.append(inherit.guards)
        ctx.caught = inherit.caught
        ctx.branches = list(inherit.branches)
        ctx.when = list(inherit.when)
        ctx.run = inherit.run
        self._stack.append(key)
        try:
            self._block(fn.body, ctx)  # type: ignore[attr-defined]
        finally:
            self._stack.pop()
        return None

    # -- statements ---------------------------------------------------------------------------
    def _block(self, body: list[ast.stmt], ctx: Ctx) -> None:
        pushed = 0
        for stmt in body:
            after = self._stmt(stmt, ctx)
            if after:
                ctx.guards.append(after)
                pushed += 1
        for _ in range(pushed):
            ctx.guards.pop()

    def _stmt(self, node: ast.stmt, ctx: Ctx) -> Keys | None:
        """Analyses one statement; returns guard keys that hold for the rest of the block (an
        `if <x> is None: return` before it)."""
        if isinstance(node, ast.Assign):
            val = self.ev(node.value, ctx)
            for target in node.targets:
                self._assign(target, val, node.value, ctx)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self._assign(node.target, self.ev(node.value, ctx), node.value, ctx)
        elif isinstance(node, ast.AugAssign):
            current = self.ev(node.target, ctx)
            self._consume(current, "arithmetic", node.lineno, ctx)
            self._consume(self.ev(node.value, ctx), "arithmetic", node.lineno, ctx)
            self._assign(node.target, None, node, ctx)
        elif isinstance(node, ast.Expr):
            self.ev(node.value, ctx)
        elif isinstance(node, ast.Return) and node.value is not None:
            self._consume(self.ev(node.value, ctx), "value", node.lineno, ctx)
        elif isinstance(node, ast.If):
            return self._if(node, ctx)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            it = self.ev(node.iter, ctx)
            if not _is_range(node.iter):
                self._consume(it, "iterate", node.lineno, ctx)
            self._block(node.body, ctx)
            self._block(node.orelse, ctx)
        elif isinstance(node, ast.While):
            pos, _ = self.cond(node.test, ctx)
            ctx.guards.append(pos)
            self._block(node.body, ctx)
            ctx.guards.pop()
            self._block(node.orelse, ctx)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.ev(item.context_expr, ctx)
            self._block(node.body, ctx)
        elif isinstance(node, ast.Try):
            broad = any(_broad(h) for h in node.handlers)
            ctx.caught += broad
            self._block(node.body, ctx)
            ctx.caught -= broad
            for handler in node.handlers:
                ctx.branches.append("except")
                self._block(handler.body, ctx)
                ctx.branches.pop()
            self._block(node.orelse, ctx)
            self._block(node.finalbody, ctx)
        elif isinstance(node, ast.Assert):
            self.cond(node.test, ctx)
        elif isinstance(node, ast.Raise) and node.exc is not None:
            self.ev(node.exc, ctx)
        return None

    def _if(self, node: ast.If, ctx: Ctx) -> Keys | None:
        test = node.test
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        call = test.operand if negated else test  # type: ignore[attr-defined]
        if (
            isinstance(call, ast.Call)
            and _callee_name(call.func) == "hasattr"
            and len(call.args) == 2
        ):
            self._hasattr_if(node, call, negated, ctx)
            return None
        none_test = _none_test(test)
        pos, neg = self.cond(test, ctx)
        subject_val: Val | None = None
        none_block: list[ast.stmt] = []
        if none_test is not None:
            subject, in_body = none_test
            subject_val = self.ev_quiet(subject, ctx)
            none_block = node.body if in_body else node.orelse
            assigned = _assigned_value(none_block, subject)
            if subject_val is not None and assigned is not None:
                for read in subject_val.reads:
                    read.none_default = read.none_default or ast.unparse(assigned)
        none_ref = subject_val.ref if subject_val is not None and subject_val.reads else None
        in_body = none_test is not None and none_test[1]
        truthy = _condition(test, subject_val, none_test)
        equal = self._equality(test, ctx)
        text = ast.unparse(test)
        self._fork(
            ctx,
            [
                (node.body, pos, none_ref if in_body else None, truthy, equal[0], text, neg),
                (node.orelse, neg, None if in_body else none_ref, None, equal[1], text, pos),
            ],
        )
        if subject_val is not None and _exits(none_block) == "raise":
            self._consume(subject_val, "required", node.lineno, ctx)
        # past `if <test>: return`, the test is false (and the other way round)
        if _exits(node.body) and not _exits(node.orelse):
            return neg
        if _exits(node.orelse) and not _exits(node.body):
            return pos
        return None

    def _equality(self, test: ast.AST, ctx: Ctx) -> tuple[str | None, str | None]:
        """("field == literal", "field != literal") for a test comparing a read with a constant."""
        if not (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Eq, ast.NotEq))
            and isinstance(test.comparators[0], ast.Constant)
        ):
            return None, None
        val = self.ev_quiet(test.left, ctx)
        if val is None or val.ref is None or len(val.reads) != 1 or not val.ref.path:
            return None, None
        literal = repr(test.comparators[0].value)
        eq, ne = f"{val.ref.dotted} == {literal}", f"{val.ref.dotted} != {literal}"
        return (eq, ne) if isinstance(test.ops[0], ast.Eq) else (ne, eq)

    def _enter(self, ctx: Ctx, test: str, terms: list[str]) -> None:
        """Under a test: its terms on config fields (`set:F`, `unset:F`, `F == x`, `has:F`)
        are kept on the reads below it (validate evaluates them); a test of anything else
        makes the reads `conditional`."""
        if terms:
            ctx.when.extend(terms)
        else:
            ctx.branches.append(test)

    def _leave(self, ctx: Ctx, terms: list[str]) -> None:
        if terms:
            del ctx.when[len(ctx.when) - len(terms) :]
        else:
            ctx.branches.pop()

    def _fork(self, ctx: Ctx, branches: list[tuple[Any, ...]]) -> None:
        """Runs alternative blocks from the same state; afterwards a name or `self` attribute
        holds what any branch that falls through assigned (their reads merged)."""
        start_locals = dict(ctx.locals)
        start_attrs = dict(ctx.cls.attrs) if ctx.cls is not None else {}
        results = []
        for body, guard, none_ref, condition, when, test, falsy in branches:
            ctx.locals = dict(start_locals)
            if ctx.cls is not None:
                ctx.cls.attrs = dict(start_attrs)
            saved = ctx.none_branch
            ctx.none_branch = none_ref
            ctx.guards.append(guard)
            if condition is not None:
                ctx.conditions.append(condition)
            terms = ([when] if when is not None else []) + _terms(guard, falsy)
            self._enter(ctx, test, terms)
            self._block(body, ctx)
            self._leave(ctx, terms)
            if condition is not None:
                ctx.conditions.pop()
            ctx.guards.pop()
            ctx.none_branch = saved
            if not _exits(body):
                results.append((ctx.locals, ctx.cls.attrs if ctx.cls is not None else {}))
        if not results:
            results = [(start_locals, start_attrs)]
        ctx.locals = _merge_maps([r[0] for r in results])
        if ctx.cls is not None:
            ctx.cls.attrs = _merge_maps([r[1] for r in results])

    def _hasattr_if(self, node: ast.If, call: ast.Call, negated: bool, ctx: Ctx) -> None:
        """`if hasattr(cfg, "X"):` -- the present branch reads X without a None test; the other
        branch is X's default (the field it uses instead, when the branches differ only there)."""
        obj = self.ev(call.args[0], ctx)
        name = _const_str(call.args[1])
        present, missing = (node.orelse, node.body) if negated else (node.body, node.orelse)
        if obj is None or obj.ref is None or name is None:
            self._block(node.body, ctx)
            self._block(node.orelse, ctx)
            return None
        ref = obj.ref.child(name)
        self._read(ref, "hasattr", call, ctx, uses=("presence",))
        default, default_field = _branch_default(present, missing, name, node.lineno)
        saved = dict(ctx.hasattr_guards)
        ctx.hasattr_guards[ref] = (default, default_field)
        start_locals = dict(ctx.locals)
        start_attrs = dict(ctx.cls.attrs) if ctx.cls is not None else {}
        self._enter(ctx, "", [f"has:{ref.dotted}"])
        self._block(present, ctx)
        self._leave(ctx, [f"has:{ref.dotted}"])
        ctx.hasattr_guards = saved
        after_present = (ctx.locals, ctx.cls.attrs if ctx.cls is not None else {})
        ctx.locals = dict(start_locals)
        if ctx.cls is not None:
            ctx.cls.attrs = dict(start_attrs)
        self._enter(ctx, "", [f"hasnot:{ref.dotted}"])
        self._block(missing, ctx)
        self._leave(ctx, [f"hasnot:{ref.dotted}"])
        after_missing = (ctx.locals, ctx.cls.attrs if ctx.cls is not None else {})
        ctx.locals = _merge_maps([after_present[0], after_missing[0]])
        if ctx.cls is not None:
            ctx.cls.attrs = _merge_maps([after_present[1], after_missing[1]])
        return None

    def _assign(self, target: ast.AST, val: Val | None, value: ast.AST, ctx: Ctx) -> None:
        if isinstance(target, ast.Name):
            if val is None:
                ctx.locals.pop(target.id, None)
            else:
                ctx.locals[target.id] = val
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._assign(elt, None, value, ctx)
            return
        owner = None
        name = None
        if isinstance(target, ast.Attribute):
            owner, name = target.value, target.attr
            if (
                isinstance(owner, ast.Name)
                and owner.id in ctx.locals
                and ctx.locals[owner.id].kind == "self"
            ):
                if ctx.cls is not None:
                    if val is None:
                        ctx.cls.attrs.pop(name, None)
                    else:
                        ctx.cls.attrs[name] = val
                return
        elif isinstance(target, ast.Subscript):
            owner, name = target.value, _const_str(target.slice)
        if owner is None or name is None:
            return
        base = self.ev_quiet(owner, ctx)
        if base is None or base.ref is None:
            return
        ref = base.ref.child(name)
        if_none = ctx.none_branch == ref
        self.writes.append(self._write(ref, value, getattr(target, "lineno", 0), ctx, if_none))
        self.fills[ref] = (ast.unparse(value), if_none)

    def _write(self, ref: Ref, value: ast.AST, line: int, ctx: Ctx, if_none: bool) -> Write:
        write = Write(ref=ref, line=line, where=ctx.where, if_none=if_none)
        if isinstance(value, ast.Constant) or (
            isinstance(value, (ast.List, ast.Tuple, ast.Dict)) and _literal(value)
        ):
            write.literal = ast.unparse(value)
            return write
        source = _copy_source(value)
        if source is None:
            return write
        base_node, key, default = source
        base = self.ev_quiet(base_node, ctx)
        if base is None or base.ref is None or base.ref.root != ref.root:
            return write
        write.copy = base.ref.child(key).dotted
        write.default = default
        for cond_ref, kind in reversed(ctx.conditions):
            if cond_ref.dotted == write.copy:
                write.when = kind
                break
        return write

    # -- conditions ---------------------------------------------------------------------------
    def cond(self, test: ast.AST, ctx: Ctx) -> tuple[Keys, Keys]:
        """Evaluates a test; returns the guard keys known not None when it is true / false."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            pos: Keys = frozenset()
            for value in test.values:
                ctx.guards.append(pos)
                p, _ = self.cond(value, ctx)
                ctx.guards.pop()
                pos |= p
            return pos, frozenset()
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
            neg: Keys = frozenset()
            for value in test.values:
                ctx.guards.append(neg)
                _, n = self.cond(value, ctx)
                ctx.guards.pop()
                neg |= n
            return frozenset(), neg
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            p, n = self.cond(test.operand, ctx)
            return n, p
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            val = self.ev(test.left, ctx)
            self._consume(val, "presence", test.lineno, ctx)
            keys = _keys(val)
            return (frozenset(), keys) if isinstance(test.ops[0], ast.Is) else (keys, frozenset())
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.In, ast.NotIn))
        ):
            key = _const_str(test.left)
            container = self.ev_quiet(test.comparators[0], ctx)
            self.ev(test, ctx)
            if key is None or container is None or container.ref is None:
                return frozenset(), frozenset()
            present = frozenset({("present", container.ref.child(key))})
            return (
                (present, frozenset())
                if isinstance(test.ops[0], ast.In)
                else (frozenset(), present)
            )
        if isinstance(test, ast.Compare):
            self.ev(test, ctx)
            return frozenset(), frozenset()
        if isinstance(test, ast.Call) and _callee_name(test.func) == "isinstance" and test.args:
            val = self.ev(test.args[0], ctx)
            self._consume(val, "presence", test.lineno, ctx)
            return _keys(val), frozenset()
        if isinstance(test, ast.Call) and _callee_name(test.func) == "hasattr":
            self.ev(test, ctx)
            return frozenset(), frozenset()
        val = self.ev(test, ctx)
        self._consume(val, "flag", getattr(test, "lineno", 0), ctx)
        return _keys(val), frozenset()

    # -- expressions --------------------------------------------------------------------------
    def ev_quiet(self, node: ast.AST, ctx: Ctx) -> Val | None:
        """The value of a plain name / self attribute, without recording a new read."""
        if isinstance(node, ast.Name):
            return ctx.locals.get(node.id)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and ctx.locals.get(node.value.id, Val()).kind == "self"
            and ctx.cls is not None
        ):
            return ctx.cls.attrs.get(node.attr)
        return self.ev(node, ctx)

    def ev(self, node: ast.AST | None, ctx: Ctx) -> Val | None:
        """Evaluates `node` for config flow, recording reads and uses; None when the value is not
        config-derived."""
        if node is None:
            return None
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name):
            return ctx.locals.get(node.id)
        if isinstance(node, ast.Attribute):
            return self._attribute(node, ctx)
        if isinstance(node, ast.Call):
            return self._call(node, ctx)
        if isinstance(node, ast.Subscript):
            base = self.ev(node.value, ctx)
            key = _const_str(node.slice)
            if base is not None and base.ref is not None and key is not None:
                self._consume(base, "object", line, ctx)
                return self._read(base.ref.child(key), "subscript", node, ctx)
            self._consume(self.ev(node.slice, ctx), "lookup", line, ctx)
            self._consume(base, "index", line, ctx)
            return None
        if isinstance(node, ast.BinOp):
            kind = (
                "format"
                if isinstance(node.op, ast.Mod)
                and isinstance(node.left, (ast.Constant, ast.JoinedStr))
                else "arithmetic"
            )
            self._consume(self.ev(node.left, ctx), kind, line, ctx)
            self._consume(self.ev(node.right, ctx), kind, line, ctx)
            return None
        if isinstance(node, ast.UnaryOp):
            val = self.ev(node.operand, ctx)
            self._consume(val, "flag" if isinstance(node.op, ast.Not) else "arithmetic", line, ctx)
            return None
        if isinstance(node, ast.BoolOp):
            return self._boolop(node, ctx)
        if isinstance(node, ast.Compare):
            self._compare(node, ctx)
            return None
        if isinstance(node, ast.IfExp):
            pos, neg = self.cond(node.test, ctx)
            text = ast.unparse(node.test)
            ctx.guards.append(pos)
            self._enter(ctx, text, _terms(pos, neg))
            body = self.ev(node.body, ctx)
            self._leave(ctx, _terms(pos, neg))
            ctx.guards[-1] = neg
            self._enter(ctx, text, _terms(neg, pos))
            other = self.ev(node.orelse, ctx)
            self._leave(ctx, _terms(neg, pos))
            ctx.guards.pop()
            return _merge(body, other)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            for elt in node.elts:
                self._consume(self.ev(elt, ctx), "value", line, ctx)
            return None
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                self._consume(self.ev(k, ctx), "value", line, ctx)
                self._consume(self.ev(v, ctx), "value", line, ctx)
            return None
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            for gen in node.generators:
                it = self.ev(gen.iter, ctx)
                if not _is_range(gen.iter):
                    self._consume(it, "iterate", line, ctx)
                for cond in gen.ifs:
                    self.cond(cond, ctx)
            if isinstance(node, ast.DictComp):
                self.ev(node.key, ctx)
                self.ev(node.value, ctx)
            else:
                self.ev(node.elt, ctx)
            return None
        if isinstance(node, ast.JoinedStr):
            for value in node.values:
                if isinstance(value, ast.FormattedValue):
                    self._consume(self.ev(value.value, ctx), "format", line, ctx)
            return None
        if isinstance(node, ast.NamedExpr):
            val = self.ev(node.value, ctx)
            self._assign(node.target, val, node.value, ctx)
            return val
        if isinstance(node, (ast.Starred, ast.Await)):
            return self.ev(node.value, ctx)
        return None

    def _attribute(self, node: ast.Attribute, ctx: Ctx) -> Val | None:
        base = self.ev(node.value, ctx)
        if base is None:
            return None
        if base.kind == "self":
            if ctx.cls is None:
                return None
            return ctx.cls.attrs.get(node.attr)
        if base.kind.startswith("vllm"):
            step = {
                ("vllm", "speculative_config"): "vllm_spec",
                ("vllm_spec", "draft_model_config"): "vllm_draft",
            }.get((base.kind, node.attr))
            if step:
                return Val(kind=step)
            if base.kind == "vllm_draft" and node.attr == "hf_config":
                return Val(ref=Ref("config"))
            return None
        if base.kind == "instance":
            return Val(ref=Ref("config")) if node.attr == "config" else None
        if base.ref is None:
            return None
        if node.attr in SAME_OBJECT | KEY_READERS | ITERATORS:
            return Val(ref=base.ref, reads=base.reads, kind=f"method:{node.attr}")
        self._consume(base, "object", node.lineno, ctx)
        return self._read(base.ref.child(node.attr), "attr", node, ctx)

    def _boolop(self, node: ast.BoolOp, ctx: Ctx) -> Val | None:
        vals: list[Val | None] = []
        guard: Keys = frozenset()
        for i, value in enumerate(node.values):
            last = i == len(node.values) - 1
            ctx.guards.append(guard)
            terms = _terms(guard, frozenset()) if isinstance(node.op, ast.And) else []
            if i:
                self._enter(ctx, ast.unparse(node.values[i - 1]), terms)
            if isinstance(node.op, ast.And) and not last:
                pos, _ = self.cond(value, ctx)
                if i:
                    self._leave(ctx, terms)
                ctx.guards.pop()
                guard |= pos
                continue
            val = self.ev(value, ctx)
            if i:
                self._leave(ctx, terms)
            ctx.guards.pop()
            if not last:
                self._consume(val, "flag", node.lineno, ctx)
                if isinstance(node.op, ast.Or) and val is not None:
                    rest = ast.unparse(ast.BoolOp(op=ast.Or(), values=node.values[i + 1 :]))
                    for read in val.reads:
                        read.none_default = read.none_default or rest
            vals.append(val)
        merged: Val | None = None
        for val in vals:
            merged = _merge(merged, val)
        return merged

    def _compare(self, node: ast.Compare, ctx: Ctx) -> None:
        left = self.ev(node.left, ctx)
        operands = [left] + [self.ev(c, ctx) for c in node.comparators]
        exprs = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            a, b = operands[i], operands[i + 1]
            if isinstance(op, (ast.Is, ast.IsNot)):
                kind_a = kind_b = "presence"
            elif isinstance(op, (ast.Eq, ast.NotEq)):
                kind_a = kind_b = "equality"
            elif isinstance(op, (ast.In, ast.NotIn)):
                key = _const_str(exprs[i])
                if b is not None and b.ref is not None and key is not None:
                    self._read(b.ref.child(key), "in", node, ctx, uses=("presence",))
                kind_a, kind_b = "member", "iterate"
            else:
                kind_a = kind_b = "compare"
            self._consume(a, kind_a, node.lineno, ctx)
            self._consume(b, kind_b, node.lineno, ctx)
        return None

    def _call(self, node: ast.Call, ctx: Ctx) -> Val | None:
        name = _callee_name(node.func)
        line = node.lineno
        if name == "getattr" and len(node.args) >= 2 and isinstance(node.func, ast.Name):
            obj = self.ev(node.args[0], ctx)
            field_name = _const_str(node.args[1])
            default_node = node.args[2] if len(node.args) > 2 else None
            default = self.ev(default_node, ctx)
            if obj is None or obj.ref is None or field_name is None:
                return None
            if obj.ref is not None and obj.reads:
                self._consume(obj, "object", line, ctx)
            read = self._read(
                obj.ref.child(field_name), "getattr", node, ctx, default_node, default
            )
            return _merge(read, default)
        if name == "hasattr" and len(node.args) == 2 and isinstance(node.func, ast.Name):
            obj = self.ev(node.args[0], ctx)
            field_name = _const_str(node.args[1])
            if obj is not None and obj.ref is not None and field_name is not None:
                self._read(obj.ref.child(field_name), "hasattr", node, ctx, uses=("presence",))
            return None
        if name == "get_current_vllm_config":
            return Val(kind="vllm")
        func_val = self.ev(node.func, ctx) if isinstance(node.func, ast.Attribute) else None
        if func_val is not None and func_val.kind.startswith("method:"):
            return self._method_call(node, func_val, ctx)
        if func_val is not None and func_val.ref is not None and func_val.reads:
            # cfg.some_method(...): the "field" read is a method of the config object
            method = func_val.reads[0]
            if method.line == node.lineno and method.access == "attr" and not method.uses:
                self.reads = {k: r for k, r in self.reads.items() if r is not method}
            self._args(node, name, ctx, resolved=False)
            return None
        if isinstance(node.func, ast.Attribute) and node.func.attr == "from_pretrained":
            inner = node.func.value
            if (isinstance(inner, ast.Call) and _callee_name(inner.func) == "super") or (
                isinstance(inner, ast.Name) and inner.id == "cls"
            ):
                self._args(node, name, ctx, resolved=False)
                return Val(kind="instance")
        args = [self.ev(a, ctx) for a in node.args]
        kwargs = {k.arg: self.ev(k.value, ctx) for k in node.keywords}
        if name in COPIES and args and args[0] is not None and args[0].ref is not None:
            return args[0]
        if name in LAYER_CTORS or not any(v is not None for v in (*args, *kwargs.values())):
            self._classify_args(node, name, args, kwargs, ctx)
            return None
        if self._follow(node, args, kwargs, ctx):
            return None
        self._classify_args(node, name, args, kwargs, ctx)
        return None

    def _args(self, node: ast.Call, name: str, ctx: Ctx, resolved: bool) -> None:
        args = [self.ev(a, ctx) for a in node.args]
        kwargs = {k.arg: self.ev(k.value, ctx) for k in node.keywords}
        self._classify_args(node, name, args, kwargs, ctx)

    def _classify_args(
        self,
        node: ast.Call,
        name: str,
        args: list[Val | None],
        kwargs: dict[str | None, Val | None],
        ctx: Ctx,
    ) -> None:
        for val in args:
            self._consume(val, call_arg_use(name, None), node.lineno, ctx)
        for key, val in kwargs.items():
            self._consume(val, call_arg_use(name, key or "**"), node.lineno, ctx)

    def _method_call(self, node: ast.Call, func: Val, ctx: Ctx) -> Val | None:
        method = func.kind.removeprefix("method:")
        obj = Val(ref=func.ref, reads=func.reads)
        if method in SAME_OBJECT:
            return obj
        if obj.reads:
            self._consume(obj, "object", node.lineno, ctx)
        if method in ITERATORS:
            self._consume(obj, "iterate", node.lineno, ctx)
            return None
        key = _const_str(node.args[0]) if node.args else None
        default_node = node.args[1] if len(node.args) > 1 else None
        default = self.ev(default_node, ctx)
        if key is None or func.ref is None:
            return None
        read = self._read(func.ref.child(key), "get", node, ctx, default_node, default)
        if default_node is None:
            read.reads[0].default = read.reads[0].default or "None"
        return _merge(read, default)

    def _follow(
        self,
        node: ast.Call,
        args: list[Val | None],
        kwargs: dict[str | None, Val | None],
        ctx: Ctx,
    ) -> bool:
        """Follows a call with config-derived arguments into the engine's own callee, binding
        them to its parameters. False when the callee cannot be found in the source."""
        has_object = any(
            v is not None and (v.kind or (v.ref is not None and not v.ref.path))
            for v in (*args, *kwargs.values())
        )
        hops = 0 if has_object else ctx.value_hops + 1
        if ctx.depth >= OBJECT_DEPTH or hops > VALUE_HOPS:
            return False
        target = self._resolve_call(node.func, ctx)
        if target is None:
            return False
        module, fn, qual, cls, method = target
        if isinstance(fn, ast.ClassDef):
            init = next(
                (i for i in fn.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"),
                None,
            )
            cls_ctx = ClassCtx(module, fn)
            params = _params(init, skip_self=True) if init is not None else []
            binding = _bind(params, args, kwargs)
            if not binding:
                return True
            self._class(cls_ctx, binding, ctx.depth + 1, hops, _inherit(ctx))
            return True
        params = _params(fn, skip_self=method)
        binding = _bind(params, args, kwargs)
        if not binding:
            return True
        self._function(module, fn, qual, cls, binding, ctx.depth + 1, method, hops, _inherit(ctx))
        return True

    def _resolve_call(self, func: ast.AST, ctx: Ctx) -> Target | None:
        """(module, def, qualname, class ctx, is_method) for a call's target, if in the source."""
        if isinstance(func, ast.Name):
            found = resolve(self.source, ctx.module, func.id)
            if found is None:
                return None
            module, node = found
            return module, node, node.name, None, False
        if not isinstance(func, ast.Attribute):
            return None
        value = func.value
        if (
            isinstance(value, ast.Call)
            and _callee_name(value.func) == "super"
            and ctx.cls is not None
        ):
            base = self._base_method(ctx.cls, func.attr)
            if base is None:
                return None
            module, method, owner = base
            return module, method, f"{owner}.{func.attr}", ctx.cls, True
        if isinstance(value, ast.Name):
            if ctx.locals.get(value.id, Val()).kind == "self" and ctx.cls is not None:
                own = next(
                    (
                        n
                        for n in ctx.cls.node.body
                        if isinstance(n, ast.FunctionDef) and n.name == func.attr
                    ),
                    None,
                )
                if own is not None:
                    return None  # analysed with the class
                base = self._base_method(ctx.cls, func.attr)
                if base is None:
                    return None
                module, method, owner = base
                return module, method, f"{owner}.{func.attr}", ctx.cls, True
            alias = resolve_module(self.source, ctx.module, value.id)
            if alias is not None and func.attr in alias.defs:
                return alias, alias.defs[func.attr], func.attr, None, False
            found = resolve(self.source, ctx.module, value.id)
            cnode = found[1] if found is not None else None
            if found is not None and isinstance(cnode, ast.ClassDef):
                module = found[0]
                for item in cnode.body:
                    if isinstance(item, ast.FunctionDef) and item.name == func.attr:
                        return (
                            module,
                            item,
                            f"{cnode.name}.{func.attr}",
                            ClassCtx(module, cnode),
                            True,
                        )
        return None

    # -- recording ----------------------------------------------------------------------------
    def _read(
        self,
        ref: Ref,
        access: str,
        node: ast.AST,
        ctx: Ctx,
        default_node: ast.AST | None = None,
        default_val: Val | None = None,
        uses: tuple[str, ...] = (),
    ) -> Val:
        key = (ctx.module.path, node.lineno, node.col_offset, ref, access)  # type: ignore[attr-defined]
        read = self.reads.get(key)
        if read is None:
            read = Read(ref=ref, access=access, line=node.lineno, where=ctx.where)  # type: ignore[attr-defined]
            if default_node is not None:
                read.default = ast.unparse(default_node)
                if (
                    default_val is not None
                    and len(default_val.reads) == 1
                    and default_val.ref is not None
                    and default_val.ref.root == ref.root
                    and default_val.ref.path[:-1] == ref.path[:-1]
                ):
                    read.default_field = default_val.ref.dotted
            read.caught = bool(ctx.caught)
            read.when = tuple(ctx.when)
            name = ref.path[-1] if ref.path else ""
            read.conditional = not ctx.run or any(name not in t for t in ctx.branches)
            active = ctx.guarded()
            if ("ref", ref) in active:
                read.guard = "tested"  # read where a test made it present and not None
            elif ("present", ref) in active:
                read.guard = "present"  # read where an `in` test made it present
            if ref in ctx.hasattr_guards and access == "attr":
                read.guard = "hasattr"
                read.default, read.default_field = ctx.hasattr_guards[ref]
            if ref in self.fills:
                # set by the engine's own code before this read (when None, or always)
                text, if_none = self.fills[ref]
                read.engine_set = True
                if if_none:
                    read.none_default = read.none_default or text
            self.reads[key] = read
        for kind in uses:
            read.uses.append(Use(kind, node.lineno, guarded=self._is_guarded(read, ctx)))  # type: ignore[attr-defined]
        return Val(ref=ref, reads=(read,))

    def _is_guarded(self, read: Read, ctx: Ctx) -> bool:
        active = ctx.guarded()
        return bool(ctx.caught) or ("read", id(read)) in active or ("ref", read.ref) in active

    def _consume(self, val: Val | None, kind: str, line: int, ctx: Ctx) -> None:
        if val is None:
            return
        for read in val.reads:
            via = ctx.where if read.where != ctx.where else ""
            read.uses.append(Use(kind, line, self._is_guarded(read, ctx), via=via))
