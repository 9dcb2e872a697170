"""The package's version and what `--version` reports, from the one place each is written.

The version is the Cargo workspace's `[workspace.package] version` (the root `Cargo.toml`): the
extension is compiled with it (`_native.VERSION`), maturin writes it into the wheel's metadata,
and from here it reaches `__version__`, `--version`, the JSON documents' `producer` field and the
HTML report's footer. The engine versions are the newest `checked_versions` of the shipped
profiles (`rules/en/profiles/*.toml`), read from their top-level keys alone so `--version` stays
fast (no rule module, no validation; a test holds them to the full profile loader). The kernel
level is the run-time CPU check the statistics and diff passes dispatch on."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from eagle3_inspect._native import VERSION, kernel_level

__version__: str = VERSION
# The `producer` field of every JSON document and the HTML footer.
PRODUCER = f"eagle3-inspect {VERSION}"

PROFILES = Path(__file__).resolve().parent / "rules" / "en" / "profiles"
# The first table header (`[names]`, `[[config.rejects]]`) ends a profile's top-level keys.
_FIRST_TABLE = re.compile(r"^\[\[?[A-Za-z_]", re.MULTILINE)
_RELEASE = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")


def _release(label: str) -> tuple[int, ...] | None:
    """`"0.5.10.post1"` -> `(0, 5, 10)`; None for labels such as `"main-00679c66"` (the same
    reading as `rules.en.versions.parse_version`)."""
    match = _RELEASE.match(label.strip())
    return None if match is None else tuple(int(p) if p else 0 for p in match.groups())


def _top_level(text: str) -> dict[str, object]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised only on Python 3.10
        import tomli as tomllib

    cut = _FIRST_TABLE.search(text)
    try:
        return tomllib.loads(text if cut is None else text[: cut.start()])
    except tomllib.TOMLDecodeError:  # the cut fell inside a multi-line string: read it all
        return tomllib.loads(text)


def engine_versions() -> dict[str, tuple[str, bool]]:
    """Per engine, `(newest version a profile was checked against, verified)`: the newest
    release number among every profile's `checked_versions` (a label that is no release, like
    TensorRT-LLM's `main-00679c66`, counts only when the engine has no release)."""
    newest: dict[str, tuple[str, bool]] = {}
    for path in sorted(PROFILES.glob("*.toml")):
        if path.name.endswith(".capture.toml"):
            continue
        top = _top_level(path.read_text(encoding="utf-8"))
        engine, checked = str(top["engine"]), top["checked_versions"]
        verified = top.get("verified", True) is not False
        for label in map(str, checked if isinstance(checked, list) else []):
            known = newest.get(engine)
            if known is None or (_release(label) or ()) > (_release(known[0]) or ()):
                newest[engine] = (label, verified)
    return dict(sorted(newest.items()))


def version_text() -> str:
    """What `eagle3-inspect --version` prints: the package, the engine versions profiled and the
    vector kernels this CPU runs."""
    engines = ", ".join(
        f"{engine} {label}" + ("" if verified else " (unverified)")
        for engine, (label, verified) in engine_versions().items()
    )
    return (
        f"{PRODUCER}\nengine profiles (newest version read): {engines}\n"
        f"vector kernels on this CPU: {kernel_level()}"
    )
