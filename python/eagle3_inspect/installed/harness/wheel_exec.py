"""Running pieces of a wheel's source that cannot be imported whole: a function or a class's
method cut out unchanged (sources.cut / method_source) and exec'd into a namespace that holds
what it refers to (the module's own third-party imports and literal constants)."""

from __future__ import annotations

import ast
import textwrap
from typing import Any


def run_source(text: str, member: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Exec `text` (cut from wheel file `member`) into `namespace`; tracebacks name the wheel
    file, as the outcome records expect. Returns the namespace."""
    code = compile("from __future__ import annotations\n" + text, f"<wheel>/{member}", "exec")
    exec(code, namespace)
    return namespace


def method_source(source: str, class_name: str | None, method: str) -> str | None:
    """The dedented source of `class_name.method` in `source` (any class when None)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and class_name in (None, node.name):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == method:
                    return textwrap.dedent(ast.get_source_segment(source, item) or "")
    return None


def literal_constants(source: str) -> dict[str, object]:
    """The module-level `NAME = <literal>` assignments of `source`."""
    found: dict[str, object] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    found[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
    return found


def third_party_imports(source: str, namespace: dict[str, Any]) -> None:
    """Runs the module's own top-level imports of non-engine packages (transformers,
    packaging, the stdlib; `try: ... except ImportError:` blocks of them too) into
    `namespace`."""

    def third_party(node: ast.stmt) -> bool:
        if isinstance(node, ast.Try):
            return all(third_party(n) for n in node.body)
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            return False
        root = (node.module if isinstance(node, ast.ImportFrom) else node.names[0].name) or ""
        return root.split(".")[0] not in ("vllm", "sglang", "")

    for node in ast.parse(source).body:
        if third_party(node):
            try:
                exec(compile(ast.Module([node], []), "<imports>", "exec"), namespace)
            except ImportError:
                continue
