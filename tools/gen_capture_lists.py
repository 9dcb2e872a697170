"""Generate per-version lists of target architectures that can feed an EAGLE-3 drafter.

An engine only hands the drafter the K concatenated aux hidden states when the *target* model
class implements capture:

* SGLang: the class defines (or inherits) ``set_eagle3_layers_to_capture``; the model runner calls
  it for every EAGLE-3 run.
* vLLM: the class implements the ``SupportsEagle3`` protocol (a base class named
  ``SupportsEagle3`` anywhere in its ancestry, or a ``supports_eagle3 = True`` class attribute).

This tool reads downloaded engine wheels (``pip download --no-deps -d DIR sglang==X``), parses the
model sources with ``ast`` (nothing is imported or executed), follows inheritance inside the
package, and writes one TOML file per engine:
``python/eagle3_inspect/rules/en/profiles/<engine>.capture.toml``.
For SGLang it also classifies how each target's ``set_eagle3_layers_to_capture`` turns config ids
into capture indices (always ``+1`` = "output-of", ``+1`` only when the first id is 1 =
"output-of-if-first-is-1", verbatim = "input-of").

Usage: python tools/gen_capture_lists.py --wheels ./wheels [--out DIR]
"""

from __future__ import annotations

import argparse
import ast
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "python/eagle3_inspect/rules/en/profiles"
SGLANG_MODELS = "sglang/srt/models/"
VLLM_MODELS = "vllm/model_executor/models/"
VLLM_NEW_MODELS = "vllm/models/"  # newer vLLM registers some models by full dotted path here
CAPTURE_METHOD = "set_eagle3_layers_to_capture"


@dataclass
class ClassInfo:
    """What the generator needs to know about one class definition."""

    module: str
    name: str
    bases: list[str]
    methods: dict[str, str] = field(default_factory=dict)  # name -> source segment
    attrs: dict[str, object] = field(default_factory=dict)  # class-level constant assignments
    members: dict[str, str] = field(default_factory=dict)  # self.x = Cls(...) in any method


@dataclass
class Package:
    """All classes of one wheel's model directory, with per-module import maps."""

    classes: dict[tuple[str, str], ClassInfo] = field(default_factory=dict)
    imports: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def resolve(self, module: str, name: str) -> ClassInfo | None:
        """The class `name` as seen from `module`: its own definition, else followed through
        `from X import name` chains (package `__init__` re-exports included)."""
        for _ in range(8):
            if (module, name) in self.classes:
                return self.classes[(module, name)]
            target = self.imports.get(module, {}).get(name)
            if target is None:
                return None
            module, name = target
        return None

    def ancestry(self, info: ClassInfo, seen: set[tuple[str, str]] | None = None):
        """`info` then every resolvable ancestor, depth-first in base order."""
        seen = set() if seen is None else seen
        key = (info.module, info.name)
        if key in seen:
            return
        seen.add(key)
        yield info
        for base in info.bases:
            parent = self.resolve(info.module, base)
            if parent is not None:
                yield from self.ancestry(parent, seen)


def _module_name(path: str) -> str:
    """`a/b/c.py` -> `a.b.c`; `a/b/__init__.py` -> `a.b` (full dotted names throughout)."""
    name = path[: -len(".py")].replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def _import_base(module: str, is_package: bool, level: int) -> list[str]:
    parts = module.split(".") if is_package else module.split(".")[:-1]
    return parts[: len(parts) - (level - 1)] if level > 1 else parts


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):  # Generic[...] style bases
        return _base_name(node.value)
    return ""


def _call_name(node: ast.expr) -> str:
    return _base_name(node.func) if isinstance(node, ast.Call) else ""


def _parse_module(pkg: Package, module: str, source: str, is_package: bool) -> None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    pkg.sources[module] = source
    lines = source.splitlines()
    imports: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            parts = _import_base(module, is_package, node.level) if node.level else []
            target = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                imports[alias.asname or alias.name] = (target, alias.name)
    pkg.imports[module] = imports
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            info = ClassInfo(module, node.name, [_base_name(b) for b in node.bases])
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    # Line slicing: ast.get_source_segment re-splits the file per call.
                    info.methods[item.name] = "\n".join(lines[item.lineno - 1 : item.end_lineno])
                    for sub in ast.walk(item):
                        if (
                            isinstance(sub, ast.Assign)
                            and len(sub.targets) == 1
                            and isinstance(sub.targets[0], ast.Attribute)
                            and isinstance(sub.targets[0].value, ast.Name)
                            and sub.targets[0].value.id == "self"
                            and _call_name(sub.value)
                        ):
                            info.members.setdefault(sub.targets[0].attr, _call_name(sub.value))
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    for target in targets:
                        if isinstance(target, ast.Name) and isinstance(item.value, ast.Constant):
                            info.attrs[target.id] = item.value.value
            pkg.classes[(module, node.name)] = info


def load_package(wheel: Path, *prefixes: str) -> Package:
    """Parse every Python file under any of `prefixes` in `wheel`."""
    pkg = Package()
    with zipfile.ZipFile(wheel) as archive:
        for path in archive.namelist():
            if path.startswith(prefixes) and path.endswith(".py"):
                source = archive.read(path).decode("utf-8", errors="replace")
                is_package = path.endswith("/__init__.py")
                _parse_module(pkg, _module_name(path), source, is_package)
    return pkg


DRAFT_MODULE = re.compile(r"(eagle|_mtp|nextn)")


def sglang_registered(pkg: Package) -> dict[str, ClassInfo]:
    """Architecture name -> class, from each module's `EntryClass` (the SGLang registry), skipping
    draft-model modules (names containing eagle, _mtp or nextn)."""
    registered: dict[str, ClassInfo] = {}
    for module, source in pkg.sources.items():
        if DRAFT_MODULE.search(module.rsplit(".", 1)[-1]):
            continue  # drafters (EAGLE / MTP / NextN heads) are not targets
        tree = ast.parse(source)
        for node in tree.body:
            if not (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets)
            ):
                continue
            values = (
                node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            )
            for value in values:
                name = _base_name(value)
                info = pkg.resolve(module, name)
                if info is not None:
                    registered[name] = info
    return registered


def vllm_registered(pkg: Package) -> dict[str, ClassInfo]:
    """Architecture name -> class, from the literal dicts in `registry.py`.

    Dicts assigned to a name containing SPECULATIVE (the draft-model registry) are skipped: those
    classes are drafters, not targets.
    """
    registered: dict[str, ClassInfo] = {}
    base = VLLM_MODELS.rstrip("/").replace("/", ".")
    tree = ast.parse(pkg.sources.get(f"{base}.registry", ""))
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            names, value = [_base_name(t) for t in statement.targets], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            names, value = [_base_name(statement.target)], statement.value
        else:
            continue
        if any("SPECULATIVE" in name for name in names) or not isinstance(value, ast.Dict):
            continue
        for key, entry in zip(value.keys, value.values, strict=True):
            if not (
                isinstance(key, ast.Constant)
                and isinstance(key.value, str)
                and isinstance(entry, ast.Tuple)
                and len(entry.elts) == 2
                and all(isinstance(e, ast.Constant) for e in entry.elts)
            ):
                continue
            module, cls = entry.elts[0].value, entry.elts[1].value
            full = module if module.startswith("vllm.") else f"{base}.{module}"
            info = pkg.resolve(full, cls)
            if info is not None:
                registered[key.value] = info
    return registered


def sglang_captures(pkg: Package, info: ClassInfo) -> bool:
    return any(CAPTURE_METHOD in c.methods for c in pkg.ancestry(info))


def vllm_captures(pkg: Package, info: ClassInfo) -> bool:
    for cls in pkg.ancestry(info):
        if "SupportsEagle3" in cls.bases or cls.attrs.get("supports_eagle3") is True:
            return True
    return False


_DELEGATE = re.compile(r"self\.(\w+)\.set_eagle3_layers_to_capture\(")


def sglang_convention(pkg: Package, info: ClassInfo, depth: int = 0) -> str:
    """How `info`'s capture method maps config ids to capture-before-layer indices."""
    for cls in pkg.ancestry(info):
        body = cls.methods.get(CAPTURE_METHOD)
        if body is None:
            continue
        if re.search(r"\[0\]\s*==\s*1", body):
            return "output-of-if-first-is-1"
        if re.search(r"\+\s*1\b", body):
            return "output-of"
        delegate = _DELEGATE.search(body)
        if delegate and depth < 4:
            for owner in pkg.ancestry(info):
                member_cls = owner.members.get(delegate.group(1))
                inner = pkg.resolve(owner.module, member_cls) if member_cls else None
                if inner is not None and inner is not cls:
                    return sglang_convention(pkg, inner, depth + 1)
            return "unknown"
        return "input-of"
    return "none"


def wheel_version(wheel: Path) -> str:
    return wheel.name.split("-")[1]


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.]", version))


def _toml_list(items: list[str]) -> str:
    inner = "".join(f'  "{item}",\n' for item in items)
    return "[\n" + inner + "]"


def generate(engine: str, wheels: list[Path]) -> str:
    """The TOML text for `engine` across `wheels`."""
    lines = [
        f"# GENERATED by tools/gen_capture_lists.py from the {engine} wheels named below.",
        "# Do not edit by hand: re-run the tool on newly downloaded wheels instead.",
        f'engine = "{engine}"',
        "",
    ]
    for wheel in sorted(wheels, key=lambda w: _version_key(wheel_version(w))):
        version = wheel_version(wheel)
        if engine == "sglang":
            pkg = load_package(wheel, SGLANG_MODELS)
            registered = sglang_registered(pkg)
            capturing = {a: i for a, i in registered.items() if sglang_captures(pkg, i)}
            source = f"{wheel.name}: {SGLANG_MODELS}*.py, EntryClass + {CAPTURE_METHOD}"
        else:
            pkg = load_package(wheel, VLLM_MODELS, VLLM_NEW_MODELS)
            registered = vllm_registered(pkg)
            capturing = {a: i for a, i in registered.items() if vllm_captures(pkg, i)}
            source = f"{wheel.name}: {VLLM_MODELS}registry.py + SupportsEagle3 ancestry"
        lines += [
            f'[versions."{version}"]',
            f'source = "{source}"',
            f"registered_count = {len(registered)}",
            f"target_architectures = {_toml_list(sorted(capturing))}",
        ]
        if engine == "sglang":
            overrides = {
                arch: conv
                for arch, info in sorted(capturing.items())
                if (conv := sglang_convention(pkg, info)) != "output-of"
            }
            lines.append(f'[versions."{version}".aux_layer_conventions]')
            lines += [f'{arch} = "{conv}"' for arch, conv in overrides.items()]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, required=True, help="directory of .whl files")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for engine in ("sglang", "vllm"):
        wheels = sorted(args.wheels.glob(f"{engine}-*.whl"))
        if not wheels:
            continue
        text = generate(engine, wheels)
        target = args.out / f"{engine}.capture.toml"
        target.write_text(text)
        print(f"wrote {target} ({len(wheels)} wheels)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
