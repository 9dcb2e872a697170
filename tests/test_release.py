"""What a release ships: one version everywhere, and the binding built for the stable ABI.

The version is written once, in the root Cargo.toml's `[workspace.package]`; the crates, the
extension, the distribution's metadata (maturin), `__version__`, `--version`, the JSON
documents' `producer`, the HTML footer and CHANGELOG.md all follow it. The extension is built
abi3 for the oldest Python that pyproject.toml admits, so one wheel serves every later one."""

from __future__ import annotations

import importlib.metadata
import json
import platform
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

import eagle3_inspect
from eagle3_inspect import _native
from eagle3_inspect.html.markup import Markup
from eagle3_inspect.html.page import document
from eagle3_inspect.html.provenance import Provenance
from eagle3_inspect.rules.en import engines, resolve_engines
from eagle3_inspect.synthetic.demo import write_demo
from eagle3_inspect.version import PRODUCER, engine_versions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def toml(relative: str) -> dict:
    return tomllib.loads((ROOT / relative).read_text(encoding="utf-8"))


WORKSPACE_VERSION = toml("Cargo.toml")["workspace"]["package"]["version"]


def test_the_version_is_written_once():
    for crate in ("rust/core/Cargo.toml", "rust/python/Cargo.toml"):
        assert toml(crate)["package"]["version"] == {"workspace": True}, crate
    project = toml("pyproject.toml")["project"]
    assert "version" not in project and "version" in project["dynamic"]


def test_every_reader_of_the_version_agrees_with_cargo():
    assert _native.VERSION == WORKSPACE_VERSION
    assert eagle3_inspect.__version__ == WORKSPACE_VERSION
    assert importlib.metadata.version("eagle3-inspect") == WORKSPACE_VERSION
    assert f"eagle3-inspect {WORKSPACE_VERSION}" == PRODUCER


def test_version_flag_names_the_package_and_the_newest_profiled_engines(run_cli):
    code, out, _ = run_cli("--version")
    first, second, third = out.splitlines()
    assert code == 0 and first == PRODUCER
    assert third == f"vector kernels on this CPU: {_native.kernel_level()}"
    assert second.startswith("engine profiles (newest version read): ")
    for engine in engines():
        (newest,) = resolve_engines(engine)  # no version: the newest profile, its newest label
        shown = f"{engine} {newest.version}" + ("" if newest.verified else " (unverified)")
        assert shown in second.split(": ", 1)[1].split(", "), (engine, second)


def test_the_fast_profile_reading_matches_the_loader():
    """`--version` reads only the profiles' top-level keys; the full loader must agree."""
    expected = {}
    for engine in engines():
        (newest,) = resolve_engines(engine)
        expected[engine] = (newest.version, newest.verified)
    assert engine_versions() == expected
    assert engine_versions()["trtllm"][1] is False  # the check can fail: one profile is unverified


def test_every_json_document_names_its_producer(run_cli, tmp_path):
    demo = write_demo(tmp_path / "demo")
    drafter = str(demo.correct)
    commands = [
        ["scan", drafter],
        ["validate", drafter, "--no-stats"],
        ["diff", drafter, drafter, "--structure-only"],
        ["rules"],
        ["fix", drafter, "--engine", "sglang@0.5.11", "--out", str(tmp_path / "o"), "--dry-run"],
    ]
    for args in commands:
        code, out, _ = run_cli(*args, "--format", "json")
        assert json.loads(out)["producer"] == PRODUCER, (args, code)


def test_the_html_footer_names_the_version():
    footer = Provenance("eagle3-inspect scan x", datetime(2026, 1, 2, tzinfo=timezone.utc))
    page = document("t", Markup("<p>body</p>"), footer.footer())
    assert f'<span class="producer">{PRODUCER}</span>' in page
    assert f'<meta name="generator" content="{PRODUCER}">' in page


def test_the_changelog_has_a_section_for_this_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, re.MULTILINE)
    assert WORKSPACE_VERSION in headings, headings


def test_the_binding_is_built_for_the_stable_abi_of_the_oldest_python_supported():
    floor = re.fullmatch(r">=\s*3\.(\d+)", toml("pyproject.toml")["project"]["requires-python"])
    assert floor is not None
    pyo3 = toml("rust/python/Cargo.toml")["dependencies"]["pyo3"]
    assert pyo3["features"] == [f"abi3-py3{floor.group(1)}"]


@pytest.mark.skipif(sys.platform == "win32", reason="Windows extensions carry no ABI tag")
def test_the_loaded_extension_is_the_abi3_build():
    name = Path(_native.__file__).name
    assert name == "_native.abi3.so", (
        f"loaded {_native.__file__}: a build for one Python version shadows the abi3 one "
        "(a stale file from before the abi3 switch? delete it and rebuild)"
    )


def test_the_all_extra_covers_every_optional_feature():
    extras = toml("pyproject.toml")["project"]["optional-dependencies"]
    (spec,) = extras["all"]
    named = re.fullmatch(r"eagle3-inspect\[([a-z,]+)\]", spec)
    assert named is not None and set(named.group(1).split(",")) == set(extras) - {"all", "dev"}


def cpu_flags() -> set[str] | None:
    """The CPU's feature flags as Linux reports them (x86_64 only), else None."""
    cpuinfo = Path("/proc/cpuinfo")
    if sys.platform != "linux" or not cpuinfo.is_file():
        return None
    for line in cpuinfo.read_text().splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return None


def test_the_kernel_level_is_what_the_cpu_reports():
    """Run-time dispatch: the level follows the CPU (the kernel's view of it), not the build."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        assert _native.kernel_level() == "portable"  # the vector kernels are x86_64 only
        return
    flags = cpu_flags()
    if flags is None:  # macOS, Windows: no /proc/cpuinfo to hold it to
        assert _native.kernel_level() in ("avx512", "avx2", "portable")
        return
    avx512 = {"avx512f", "avx512bw", "avx512vl", "avx2", "fma", "f16c"} <= flags
    expected = "avx512" if avx512 else "avx2" if "avx2" in flags else "portable"
    assert _native.kernel_level() == expected
