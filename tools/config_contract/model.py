"""What the extractor records: one `Read` per place engine code reads a config field, with how it
reads it (the access and its default) and every way the value is then used (`Use`), and one
`Write` per place the engine's own code sets a field (a config adapter's output, or a model
filling a field it found None)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

# The use vocabulary (raising uses strongest first, then the tolerant ones) is the package's,
# loaded by path: the generator runs in the truth venv, where the package is not installed,
# and the file imports nothing.
_USES_FILE = Path(__file__).resolve().parents[2] / "python/eagle3_inspect/rules/en/contract/uses.py"
_spec = importlib.util.spec_from_file_location("eagle3_inspect_contract_uses", _USES_FILE)
assert _spec is not None and _spec.loader is not None
_uses = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_uses)
RAISING: tuple[str, ...] = _uses.RAISING
TOLERANT: tuple[str, ...] = _uses.TOLERANT
RANK = {kind: i for i, kind in enumerate(RAISING + TOLERANT)}


@dataclass(frozen=True)
class Ref:
    """A config object or field: `root` names the object the entry point received ("config":
    the config object the model class is built from; "raw": the config.json dict an adapter
    reads), `path` the fields below it."""

    root: str
    path: tuple[str, ...] = ()

    def child(self, name: str) -> Ref:
        return Ref(self.root, (*self.path, name))

    @property
    def dotted(self) -> str:
        return ".".join(self.path)


@dataclass
class Use:
    """One use of a read value: its kind, line, and whether a test on the same value made None
    impossible there (`guarded`)."""

    kind: str
    line: int
    guarded: bool = False
    via: str = ""  # the callee the value was passed to, when the use is inside it


@dataclass
class Read:
    """One read of a config field."""

    ref: Ref
    access: str  # attr | getattr | get | subscript | hasattr | in
    line: int
    where: str  # "<file>:<qualname>"
    default: str | None = None  # Python text of the value used when the field is missing
    default_field: str | None = None  # when that default is another field of the same object
    # "hasattr": read only when the field exists (None passes that test); "present": under an
    # `in` test; "tested": under a test that it is present and not None
    guard: str = ""
    none_default: str | None = None  # what replaces a None / falsy value (`or X`, `is None`)
    engine_set: bool = False  # the engine's own code set the field before this read
    caught: bool = False  # inside a `try` whose handler catches what a bad value raises
    when: tuple[str, ...] = ()  # equality tests on other fields the read happens under
    conditional: bool = False  # only under a test of something else, or in a method not always run
    uses: list[Use] = field(default_factory=list)

    def strongest(self) -> Use | None:
        """The use that decides what a bad value does (raising uses first, unguarded first)."""
        if not self.uses:
            return None
        return min(self.uses, key=lambda u: (RANK.get(u.kind, 99), u.guarded, u.line))


@dataclass
class Write:
    """A field the engine's code sets: `value` is a source field (`copy`), a literal, or
    `computed`; `when` = `not-none` / `truthy` when it is set only if the source field is."""

    ref: Ref
    line: int
    where: str
    copy: str | None = None  # source field path (same root) the value comes from
    default: str | None = None  # Python text used when `copy` is missing
    literal: str | None = None  # Python text of a constant value
    when: str = ""
    if_none: bool = False  # only when the field itself was None (a model filling it)
