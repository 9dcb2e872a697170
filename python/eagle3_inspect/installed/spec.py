"""`NAME@installed` in an `--engine` spec: split from the profile parts, found (`probe`), and
paired with the profile judged beside it: the installed version's own when one covers it, else
the newest profile of an older version, else the newest profile."""

from __future__ import annotations

from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.installed.probe import InstalledEngine, find_installed
from eagle3_inspect.rules.en.loader import known_versions, resolve_engines
from eagle3_inspect.rules.en.profile import EngineProfile
from eagle3_inspect.rules.en.versions import parse_version, try_parse_version

SUFFIX = "@installed"


def split_spec(spec: str) -> tuple[str, list[str]]:
    """(the spec without its `NAME@installed` parts, the engine names of those parts)."""
    parts = [part.strip() for part in spec.split(",") if part.strip()]
    installed = [p[: -len(SUFFIX)].strip().lower() for p in parts if p.lower().endswith(SUFFIX)]
    rest = [p for p in parts if not p.lower().endswith(SUFFIX)]
    return ",".join(rest), list(dict.fromkeys(installed))


def profile_beside(installed: InstalledEngine) -> EngineProfile:
    """The profile whose verdict is reported beside the installed engine's own (a dev or
    post release, `0.5.23.dev4+g1234`, is judged as its release number, `0.5.23`)."""
    asked = try_parse_version(installed.version)
    if asked is not None:
        try:
            return resolve_engines(f"{installed.engine}@{'.'.join(map(str, asked))}")[0]
        except InvalidArgumentError:
            pass
    older = [
        v
        for v in known_versions(installed.engine)
        if asked is not None and parse_version(v) <= asked
    ]
    return resolve_engines(f"{installed.engine}@{older[-1]}" if older else installed.engine)[0]


def installed_engines(names: list[str]) -> list[tuple[InstalledEngine, EngineProfile]]:
    """Each named engine as installed here, with its profile; MissingDependencyError (one
    line: what to install) before any work when one cannot run."""
    found = [find_installed(name) for name in names]
    return [(engine, profile_beside(engine)) for engine in found]
