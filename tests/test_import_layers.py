"""The package's import graph: acyclic, and every import runs down the layers.

faces (cli, html, the top-level API) -> commands (scan, validate, diff, fix) -> rules -> layout
(the drafter architecture) -> reader (Checkpoint, stats, vocab, configs; cluster/, its Ray-backed
twin; writer, fix's one write path) -> base (findings, errors, registry, records, units, version) ->
_native. `synthetic` (test and demo data) sits beside the reader and needs only the base;
`installed` (`--engine NAME@installed`) sits beside the rules, below the commands that run it, and
its torch-only `harness/` imports nothing of the package outside itself (it runs in a worker
subprocess and in the truth tools, without `_native`).
Every import counts: module level, inside functions and under `if TYPE_CHECKING:`, with one
exception: a notebook hook (`_repr_html_`, called by Jupyter, never by the package) imports its
view from the `html` face when it is called.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = "eagle3_inspect"
ROOT = Path(__file__).resolve().parents[1] / "python" / PACKAGE
# Lower numbers are lower layers; a module may import its own layer or any lower one.
LAYERS = {
    "_native": 0,
    "errors": 1,
    "findings": 1,
    "jsontext": 1,
    "records": 1,
    "registry": 1,
    "units": 1,
    "version": 1,
    "echo": 1,
    "writing": 1,
    "reader": 2,
    "cluster": 2,
    "writer": 2,
    "synthetic": 2,
    "layout": 3,
    "rules": 4,
    "installed": 4,
    "commands": 5,
    "cli": 6,
    "html": 6,
    "__init__": 6,
    "__main__": 6,
}


# Jupyter calls it to show an object; it draws the object through the html face.
NOTEBOOK_HOOK = "_repr_html_"


def is_face_import(node: ast.AST) -> bool:
    """`from eagle3_inspect.html... import ...`: what a notebook hook may import."""
    return isinstance(node, ast.ImportFrom) and (node.module or "").startswith(f"{PACKAGE}.html")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def resolve(name: str, known: dict[str, Path]) -> str | None:
    """The package module `name` refers to (a `from X import Y` may name module X.Y)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every package module `module` imports, wherever the import statement is."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    hooks = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == NOTEBOOK_HOOK
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in hooks and is_face_import(node):
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from X import Y` imports module X.Y when there is one, else a name from X.
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        for name in names:
            if name == PACKAGE or name.startswith(PACKAGE + "."):
                target = resolve(name, known)
                if target is not None and target != module:
                    found.add(target)
    return found


@functools.cache
def graph() -> dict[str, set[str]]:
    known = modules()
    known[f"{PACKAGE}._native"] = ROOT / "_native.pyi"
    return {m: imports_of(m, p, known) for m, p in modules().items()}


def layer(module: str) -> int:
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    assert key in LAYERS, f"{module} is in no layer: add its top-level folder to LAYERS"
    return LAYERS[key]


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_graph_sees_function_level_and_type_checking_imports():
    edges = graph()
    # Sanity: the parser finds imports in every position, so an empty graph cannot pass.
    assert sum(len(v) for v in edges.values()) > 100
    assert f"{PACKAGE}.commands.validate" in edges[f"{PACKAGE}.cli.main"]  # function-level


def test_no_import_cycle():
    cycle = find_cycle(graph())
    assert cycle is None, " -> ".join(cycle or [])


@pytest.mark.parametrize("module", sorted(modules()))
def test_imports_run_down_the_layers(module):
    upward = sorted(target for target in graph()[module] if layer(target) > layer(module))
    assert not upward, f"{module} (layer {layer(module)}) imports higher layers: {upward}"


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_only_the_reader_consumes_native_results():
    """The binding's return shapes are read in one place (reader/); errors, the package version
    (`version`) and fix's write path (`writer`) are the only other uses of `_native`."""
    users = {m for m, targets in graph().items() if f"{PACKAGE}._native" in targets}
    outside = {m for m in users if not m.startswith(f"{PACKAGE}.reader")}
    assert outside == {f"{PACKAGE}.version", f"{PACKAGE}.errors", f"{PACKAGE}.writer"}


def test_the_installed_harness_imports_only_itself():
    """harness/ runs where only its own files and torch are (the installed-engine worker, the
    truth tools in a venv without the package built): no other package module, so no _native."""
    harness = f"{PACKAGE}.installed.harness"
    inside = [m for m in graph() if m == harness or m.startswith(harness + ".")]
    assert f"{harness}.load" in inside
    outside = {(m, t) for m in inside for t in graph()[m] if not t.startswith(harness)}
    assert not outside, sorted(outside)


def test_only_notebook_hooks_import_the_html_face_from_below():
    """The exemption above is used, and only by `_repr_html_` (a test that would pass with an
    import anywhere else in it would prove nothing)."""
    known = modules()
    below = [m for m in known if layer(m) < LAYERS["html"]]
    hooked = set()
    for module in below:
        tree = ast.parse(known[module].read_text())
        for node in ast.walk(tree):
            hook = isinstance(node, ast.FunctionDef) and node.name == NOTEBOOK_HOOK
            if hook and any(is_face_import(inner) for inner in ast.walk(node)):
                hooked.add(module)
    assert f"{PACKAGE}.reader.checkpoint" in hooked
    assert f"{PACKAGE}.commands.scan" in hooked
