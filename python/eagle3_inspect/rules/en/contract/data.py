"""The config contract as typed records: which config fields each engine version's draft model
classes and config adapters read, how, and what they use them for. Loaded from the generated
`rules/en/profiles/contracts/<engine>-<version>.toml` (one file per scanned engine version,
written by `tools/gen_config_contract.py`; schema in `rules/en/profiles/README.md`), one file
at a time and cached."""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from importlib import resources
from typing import Any

from eagle3_inspect.rules.en.profile import ProfileError
from eagle3_inspect.rules.en.versions import Version, in_range, parse_version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

CONTRACTS = "contracts"
PROFILE_PACKAGE = "eagle3_inspect.rules.en.profiles"


@dataclass(frozen=True)
class FieldRead:
    """One place engine code reads a config field (`field` is dotted below the object the entry
    point receives: `root` "config" = the config object a model class is built from, "raw" =
    the config.json dict)."""

    field: str
    access: str  # attr | getattr | get | subscript | hasattr | in
    use: str
    line: int
    at: str  # "<file>:<qualname>" of the function holding the read
    root: str = "config"
    default: str | None = None  # Python text used when the field is missing
    default_field: str | None = None  # when that default is another field
    none_default: str | None = None  # what replaces a None / falsy value
    guard: str = ""  # "hasattr": read only when the field exists (None passes)
    engine_set: bool = False
    caught: bool = False
    when: tuple[str, ...] = ()
    conditional: bool = False  # only under a test of something else, or in a rarely-run method
    use_line: int | None = None
    use_in: str | None = None
    raises_on_none: bool = False
    needs: str | None = None

    @property
    def file(self) -> str:
        return self.at.split(":", 1)[0]

    @property
    def where(self) -> str:
        """`file:line` of the read, and of the use when elsewhere."""
        text = f"{self.file}:{self.line}"
        if self.use_line is not None and self.use_line != self.line:
            used = self.use_in.split(":", 1)[0] if self.use_in else self.file
            text += (
                f" (used at {used}:{self.use_line})" if used != self.file else f"-{self.use_line}"
            )
        return text


@dataclass(frozen=True)
class FieldWrite:
    """A field the engine's own code sets (a config adapter's output, or a model filling a
    field it found None): copied from `copy` (else `literal`, else computed)."""

    field: str
    line: int
    at: str
    root: str = "config"
    copy: str | None = None
    default: str | None = None
    literal: str | None = None
    computed: bool = False
    when: str = ""  # "not-none" / "truthy": only when the copied field is
    if_none: bool = False


@dataclass(frozen=True)
class ContractEntry:
    """One draft model class (`kind = "model"`) or config adapter (`kind = "adapter"`)."""

    name: str
    kind: str
    file: str
    architectures: tuple[str, ...]
    algorithm: str
    reads: tuple[FieldRead, ...]
    writes: tuple[FieldWrite, ...]


@dataclass(frozen=True)
class EngineContract:
    """The contract of one scanned engine version."""

    engine: str
    version: str
    source: str
    entries: tuple[ContractEntry, ...]
    pydantic: dict[str, dict[str, Any]]

    @property
    def label(self) -> str:
        return f"{self.engine}@{self.version}"

    def model(self, architecture: str) -> ContractEntry | None:
        """The draft class an architecture name selects."""
        return next(
            (e for e in self.entries if e.kind == "model" and architecture in e.architectures),
            None,
        )

    def for_algorithm(self, kind: str, algorithm: str) -> ContractEntry | None:
        """The model / adapter handling a `speculators_model_type`."""
        return next((e for e in self.entries if e.kind == kind and e.algorithm == algorithm), None)

    def adapters(self) -> tuple[ContractEntry, ...]:
        return tuple(e for e in self.entries if e.kind == "adapter")


def _node(name: str) -> Any:
    return resources.files(PROFILE_PACKAGE).joinpath(CONTRACTS).joinpath(name)


@functools.lru_cache(maxsize=1)
def scanned() -> dict[str, tuple[str, ...]]:
    """Engine -> the versions with a generated contract, oldest first."""
    out: dict[str, list[str]] = {}
    for item in resources.files(PROFILE_PACKAGE).joinpath(CONTRACTS).iterdir():
        name = item.name
        if not name.endswith(".toml") or "-" not in name:
            continue
        engine, version = name.removesuffix(".toml").split("-", 1)
        out.setdefault(engine, []).append(version)
    return {e: tuple(sorted(vs, key=parse_version)) for e, vs in out.items()}


def contract_version(engine: str, version: str, low: Version, high: Version | None) -> str | None:
    """The scanned version a request for `engine@version` is checked against: the newest one
    not newer than `version` inside the profile range [low, high), else the oldest in it."""
    inside = [v for v in scanned().get(engine, ()) if in_range(parse_version(v), low, high)]
    if not inside:
        return None
    try:
        asked = parse_version(version)
    except ValueError:
        return inside[-1]
    older = [v for v in inside if parse_version(v) <= asked]
    return older[-1] if older else inside[0]


@functools.lru_cache(maxsize=8)
def load_contract(engine: str, version: str) -> EngineContract:
    """The generated contract of `engine@version` (ProfileError when absent or malformed)."""
    name = f"{engine}-{version}.toml"
    try:
        data = tomllib.loads(_node(name).read_text(encoding="utf-8"))
    except (FileNotFoundError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"{CONTRACTS}/{name}: {exc}") from exc
    entries: list[ContractEntry] = []
    for kind, table in (("model", "models"), ("adapter", "adapters")):
        for entry_name, item in data["versions"][version].get(table, {}).items():
            entries.append(_entry(entry_name, kind, item, name))
    return EngineContract(
        engine=data["engine"],
        version=data["version"],
        source=data["source"],
        entries=tuple(entries),
        pydantic=dict(data.get("pydantic", {})),
    )


def _entry(name: str, kind: str, item: dict[str, Any], file: str) -> ContractEntry:
    try:
        reads = tuple(
            _read(read, fn["at"]) for fn in item.get("functions", []) for read in fn["reads"]
        )
        writes = tuple(FieldWrite(**w) for w in item.get("writes", []))
    except TypeError as exc:
        raise ProfileError(f"{CONTRACTS}/{file}: {name}: {exc}") from exc
    return ContractEntry(
        name=name,
        kind=kind,
        file=item["file"],
        architectures=tuple(item.get("architectures", ())),
        algorithm=item.get("algorithm", ""),
        reads=reads,
        writes=writes,
    )


def _read(item: dict[str, Any], at: str) -> FieldRead:
    fields = dict(item)
    fields["when"] = tuple(fields.get("when", ()))
    return FieldRead(at=at, **fields)


@functools.lru_cache(maxsize=1)
def config_classes() -> dict[str, dict[str, str]]:
    """model_type -> field -> Python text of the transformers config class default."""
    data = tomllib.loads(_node("config_classes.toml").read_text(encoding="utf-8"))
    return dict(data.get("config_classes", {}))
