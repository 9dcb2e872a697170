"""The rule data files ship with the package: every codes.toml and engine profile is found as
package data (importlib.resources, as from an installed wheel), and the maturin `include` in
pyproject.toml covers every TOML file under the package, so sdists and wheels carry them."""

from __future__ import annotations

import fnmatch
import sys
from importlib import resources
from pathlib import Path

from eagle3_inspect.registry import CODES_FILE, FOLDERS, all_rules
from eagle3_inspect.rules.en import load_profiles
from eagle3_inspect.rules.en.loader import PROFILE_PACKAGE

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "eagle3_inspect"


def test_every_codes_file_and_profile_loads_as_package_data():
    rules = resources.files("eagle3_inspect.rules")
    for folder, _ in FOLDERS:
        assert rules.joinpath(folder, CODES_FILE).is_file(), folder
    assert len(all_rules()) >= 113
    shipped = [p.name for p in resources.files(PROFILE_PACKAGE).iterdir()]
    assert sum(name.endswith(".toml") for name in shipped) >= 10
    assert len(load_profiles()) >= 10


def test_the_maturin_include_covers_every_toml_in_the_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = [entry["path"] for entry in config["tool"]["maturin"]["include"]]
    for entry in config["tool"]["maturin"]["include"]:
        assert {"sdist", "wheel"} <= set(entry["format"])
    tomls = sorted(PACKAGE.rglob("*.toml"))
    assert len(tomls) >= 15
    for path in tomls:
        relative = path.relative_to(ROOT).as_posix()
        assert any(fnmatch.fnmatch(relative, p) for p in patterns), relative
