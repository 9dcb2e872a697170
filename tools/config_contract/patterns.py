"""Recognising the AST shapes the extractor cares about, without evaluating anything: constant
keys, callee names, blocks that always leave, None / truthiness tests, the value a block assigns
to a name, the default branch of a `hasattr` test, `d.get("K", D)`-style copies, and binding
call arguments to a callee's parameters."""

from __future__ import annotations

import ast

from config_contract.model import Ref
from config_contract.state import FunctionNode, Val

BROAD_EXCEPT = {
    "Exception",
    "BaseException",
    "KeyError",
    "AttributeError",
    "TypeError",
    "ValueError",
    "IndexError",
}


def const_str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def callee_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def exits(body: list[ast.stmt]) -> str:
    """ "raise" / "return" when the block always leaves the function (its last statement)."""
    if not body:
        return ""
    last = body[-1]
    if isinstance(last, ast.Raise):
        return "raise"
    if isinstance(last, (ast.Return, ast.Continue, ast.Break)):
        return "return"
    return ""


def params(fn: FunctionNode, skip_self: bool) -> list[str]:
    args = fn.args
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    if skip_self and names:
        names = names[1:]
    return names + [f"*{a.arg}" for a in args.kwonlyargs]


def bind(
    params: list[str], args: list[Val | None], kwargs: dict[str | None, Val | None]
) -> dict[str, Val]:
    """Parameter name -> config-derived argument (positional, then keyword)."""
    binding: dict[str, Val] = {}
    positional = [p for p in params if not p.startswith("*")]
    for name, val in zip(positional, args, strict=False):
        if val is not None:
            binding[name] = val
    names = {p.lstrip("*") for p in params}
    for key, val in kwargs.items():
        if val is not None and key in names:
            binding[key] = val
    return binding


def literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def copy_source(value: ast.AST) -> tuple[ast.AST, str, str | None] | None:
    """`d.get("K", D)` / `d["K"]` / `getattr(d, "K", D)` / `d.K` -> (d, "K", D text)."""
    if not isinstance(value, ast.Call):
        pass
    elif isinstance(value.func, ast.Attribute) and value.func.attr == "get" and value.args:
        key = const_str(value.args[0])
        if key:
            default = ast.unparse(value.args[1]) if len(value.args) > 1 else "None"
            return value.func.value, key, default
    elif callee_name(value.func) == "getattr" and len(value.args) >= 2:
        name = const_str(value.args[1])
        if name:
            fallback = ast.unparse(value.args[2]) if len(value.args) > 2 else None
            return value.args[0], name, fallback
    if isinstance(value, ast.Subscript):
        index = const_str(value.slice)
        if index:
            return value.value, index, None
    if isinstance(value, ast.Attribute):
        return value.value, value.attr, None
    return None


def is_range(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and callee_name(node.func) == "range"


def broad(handler: ast.ExceptHandler) -> bool:
    """A handler that swallows what a bad value raises (one that raises again refuses)."""
    if exits(handler.body) == "raise":
        return False
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(callee_name(n) in BROAD_EXCEPT for n in names)


def none_test(test: ast.AST) -> tuple[ast.AST, bool] | None:
    """(subject, True) for `x is None` / `not x` (the body sees x None / falsy); (subject,
    False) for `x is not None` / `x` (the else branch does)."""
    plain = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return (test.operand, True) if isinstance(test.operand, plain) else None
    if isinstance(test, plain):
        return test, False
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        if isinstance(test.ops[0], ast.Is):
            return test.left, True
        if isinstance(test.ops[0], ast.IsNot):
            return test.left, False
    return None


def condition(
    test: ast.AST, subject: Val | None, none_test: tuple[ast.AST, bool] | None
) -> tuple[Ref, str] | None:
    """(field, "not-none") for `if x is not None:`, (field, "truthy") for `if x:`, of a read."""
    if subject is None or subject.ref is None or not subject.reads:
        return None
    if none_test is not None and not none_test[1]:
        return subject.ref, ("truthy" if not isinstance(test, ast.Compare) else "not-none")
    return None


def assigned_value(body: list[ast.stmt], subject: ast.AST) -> ast.AST | None:
    """The value the block assigns to `subject` (same name / attribute text), if it does."""
    text = ast.unparse(subject)
    for stmt in body:
        if isinstance(stmt, ast.Assign) and any(ast.unparse(t) == text for t in stmt.targets):
            return stmt.value
    return None


def branch_default(
    present: list[ast.stmt], missing: list[ast.stmt], name: str, line: int
) -> tuple[str | None, str | None]:
    """What the missing branch of `if hasattr(cfg, name)` uses: (text, field) when it is the
    present branch with `name` replaced by another field, else (text, None)."""
    if not missing:
        return None, None
    present_text = "\n".join(ast.unparse(s) for s in present)
    missing_text = "\n".join(ast.unparse(s) for s in missing)
    for node in ast.walk(ast.Module(body=missing, type_ignores=[])):
        if (
            isinstance(node, ast.Attribute)
            and node.attr != name
            and present_text.replace(f".{name}", f".{node.attr}") == missing_text
        ):
            return missing_text, node.attr
    for stmt in missing:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Attribute):
            return ast.unparse(stmt.value), stmt.value.attr
    return f"(else branch, line {missing[0].lineno})", None
