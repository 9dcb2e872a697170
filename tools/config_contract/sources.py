"""Where engine source text comes from, read-only: a downloaded wheel (zipfile, never installed)
or an installed package's directory (speculators in the producers venv). Modules are addressed
by dotted name; parsed modules are cached with their import map and top-level definitions."""

from __future__ import annotations

import ast
import hashlib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

# A top-level definition a name can resolve to.
Def = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Module:
    """One parsed source file."""

    name: str  # dotted module name
    path: str  # file path inside the source (wheel member / package-relative path)
    text: str
    tree: ast.Module
    is_package: bool
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # alias -> (mod, name)
    defs: dict[str, Def] = field(default_factory=dict)  # top-level classes and functions
    aliases: dict[str, str] = field(default_factory=dict)  # top-level `A = B`

    @property
    def digest(self) -> str:
        """First 12 hex digits of the file's sha256 (identical files share contract units)."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:12]


class Source:
    """A read-only tree of Python files, looked up by dotted module name."""

    label: str

    def __init__(self) -> None:
        self._cache: dict[str, Module | None] = {}

    def members(self) -> list[str]:
        """Every .py path in the source."""
        raise NotImplementedError

    def read(self, path: str) -> str | None:
        """The text of `path`, or None."""
        raise NotImplementedError

    def module(self, name: str) -> Module | None:
        """The parsed module `name` (a module file or a package __init__), or None."""
        if name not in self._cache:
            self._cache[name] = self._load(name)
        return self._cache[name]

    def _load(self, name: str) -> Module | None:
        base = name.replace(".", "/")
        for path, is_package in ((f"{base}.py", False), (f"{base}/__init__.py", True)):
            text = self.read(path)
            if text is None:
                continue
            try:
                tree = ast.parse(text)
            except SyntaxError:
                return None
            module = Module(name, path, text, tree, is_package)
            _index(module)
            return module
        return None


class WheelSource(Source):
    """A wheel's files, read with zipfile."""

    def __init__(self, wheel: Path) -> None:
        super().__init__()
        self.label = wheel.name
        self._zip = zipfile.ZipFile(wheel)
        self._names = set(self._zip.namelist())

    def members(self) -> list[str]:
        return sorted(n for n in self._names if n.endswith(".py"))

    def read(self, path: str) -> str | None:
        if path not in self._names:
            return None
        return self._zip.read(path).decode("utf-8-sig", errors="replace")


class DirSource(Source):
    """An installed package: `root` is the directory holding the top-level package directory."""

    def __init__(self, root: Path, label: str, package: str) -> None:
        super().__init__()
        self.root = root
        self.label = label
        self.package = package  # members() lists this package only (imports may go further)

    def members(self) -> list[str]:
        return sorted(
            str(p.relative_to(self.root))
            for p in (self.root / self.package).rglob("*.py")
            if "__pycache__" not in p.parts
        )

    def read(self, path: str) -> str | None:
        file = self.root / path
        return file.read_text(encoding="utf-8") if file.is_file() else None


def _index(module: Module) -> None:
    """Fills the import map (relative imports resolved) and the top-level definitions."""
    parts = module.name.split(".")
    package = parts if module.is_package else parts[:-1]
    for node in ast.walk(module.tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - (node.level - 1)] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                module.imports[alias.asname or alias.name] = (target, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    module.imports[alias.asname] = (alias.name, None)
                else:
                    top = alias.name.split(".")[0]
                    module.imports[top] = (top, None)
    _top_level(module, module.tree.body)


def _top_level(module: Module, body: list[ast.stmt]) -> None:
    """Top-level definitions and `A = B` aliases, including inside module-level `if`s (for
    `if TYPE_CHECKING:` only the runtime branch)."""
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            module.defs.setdefault(node.name, node)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.Name, ast.Attribute))
        ):
            value = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
            module.aliases.setdefault(node.targets[0].id, value)
        elif isinstance(node, ast.If):
            test = node.test
            type_checking = getattr(test, "id", getattr(test, "attr", "")) == "TYPE_CHECKING"
            if not type_checking:
                _top_level(module, node.body)
            _top_level(module, node.orelse)


def resolve(source: Source, module: Module, name: str) -> tuple[Module, Def] | None:
    """The definition `name` refers to inside `module`: its own top-level def, else followed
    through `from X import name` chains (package re-exports included)."""
    for _ in range(8):
        if name in module.defs:
            return module, module.defs[name]
        if name in module.aliases and module.aliases[name] != name:
            name = module.aliases[name]
            continue
        target = module.imports.get(name)
        if target is None:
            return None
        mod_name, attr = target
        if attr is None:
            return None
        found = source.module(mod_name)
        if found is None:
            # `from pkg import submodule` names a module, not a definition
            return None
        module, name = found, attr
    return None


def resolve_module(source: Source, module: Module, name: str) -> Module | None:
    """The module an alias names (`import a.b as m`, `from a import b` where b is a module)."""
    target = module.imports.get(name)
    if target is None:
        return None
    mod_name, attr = target
    return source.module(mod_name if attr is None else f"{mod_name}.{attr}")
