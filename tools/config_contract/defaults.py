"""Defaults a missing field falls back to outside the engine's own code: the `transformers`
config class of the drafter's `model_type` (an attribute the class defines is never missing),
read by instantiating it (the real thing, in the truth venv), and speculators' pydantic config
models (field defaults and required fields, read with `ast` from its source)."""

from __future__ import annotations

import ast
from typing import Any

from config_contract.sources import Module, Source, resolve

MODEL_TYPES = ("llama", "qwen3", "qwen2", "deepseek_v2", "deepseek_v3")
REQUIRED = "<required>"


def transformers_defaults(fields: set[str]) -> tuple[str, dict[str, dict[str, str]]]:
    """(transformers version, model_type -> field -> repr of the class default) for `fields`
    the class defines; "base" is `PretrainedConfig` itself (vLLM's speculators adapter builds
    a bare one)."""
    import transformers
    from transformers import AutoConfig, PretrainedConfig

    out: dict[str, dict[str, str]] = {}
    base = PretrainedConfig()
    out["base"] = {n: _literal_repr(getattr(base, n)) for n in sorted(fields) if hasattr(base, n)}
    for model_type in MODEL_TYPES:
        try:
            config = AutoConfig.for_model(model_type)
        except (ValueError, KeyError):
            continue
        values: dict[str, str] = {}
        for name in sorted(fields):
            if hasattr(config, name):
                values[name] = _literal_repr(getattr(config, name))
        out[model_type] = values
    return transformers.__version__, out


def _literal_repr(value: Any) -> str:
    """A Python literal for `value` (what cannot be written as one is `<object>`)."""
    text = repr(value)
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return "<object>"
    return text


def pydantic_models(
    source: Source, module: Module, names: list[str], package: str = "speculators/"
) -> dict[str, dict[str, Any]]:
    """Class name -> {"fields": name -> default text / REQUIRED, "nested": name -> class}, for
    the pydantic models `names` in `module` and every model their fields' annotations name,
    as far as they are defined in `package` (transformers' own classes are not pydantic)."""
    out: dict[str, dict[str, Any]] = {}
    todo = [(module, n) for n in names]
    while todo:
        mod, name = todo.pop()
        if name in out:
            continue
        found = resolve(source, mod, name)
        if found is None or not isinstance(found[1], ast.ClassDef):
            continue
        if not found[0].path.startswith(package):
            continue
        cls_mod, node = found
        if not isinstance(node, ast.ClassDef):
            continue
        fields: dict[str, str] = {}
        nested: dict[str, str] = {}
        for base in node.bases:
            base_name = getattr(base, "id", getattr(base, "attr", ""))
            base_found = resolve(source, cls_mod, base_name)
            if base_found is not None and isinstance(base_found[1], ast.ClassDef):
                out_base = pydantic_models(source, cls_mod, [base_name], package).get(base_name, {})
                fields.update(out_base.get("fields", {}))
                nested.update(out_base.get("nested", {}))
        for item in node.body:
            if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
                continue
            field_name = item.target.id
            fields[field_name] = _default_text(item.value)
            for sub in ast.walk(item.annotation):
                if isinstance(sub, ast.Name):
                    sub_found = resolve(source, cls_mod, sub.id)
                    if (
                        sub_found is not None
                        and isinstance(sub_found[1], ast.ClassDef)
                        and sub_found[0].path.startswith(package)
                    ):
                        nested[field_name] = sub.id
                        todo.append((cls_mod, sub.id))
        out[name] = {"fields": fields, "nested": nested, "file": cls_mod.path, "line": node.lineno}
    return out


def _default_text(value: ast.AST | None) -> str:
    if value is None:
        return REQUIRED
    if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "Field":
        for kw in value.keywords:
            if kw.arg == "default":
                return ast.unparse(kw.value)
            if kw.arg == "default_factory":
                return f"<factory {ast.unparse(kw.value)}>"
        if value.args and not (
            isinstance(value.args[0], ast.Constant) and value.args[0].value is Ellipsis
        ):
            return ast.unparse(value.args[0])
        return REQUIRED
    return ast.unparse(value)
