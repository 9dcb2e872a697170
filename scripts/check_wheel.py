"""Checks a built wheel the way a user meets it: a fresh venv, no Rust toolchain on PATH.

    python scripts/check_wheel.py dist/eagle3_inspect-*.whl [--python PY]... [--keep DIR]

For each interpreter (default: this one) it creates a venv, installs the wheel (its
dependencies come from the package index) and the test runner's few dependencies, and then,
with every PATH entry that holds `cargo` or `rustc` removed, checks that:
- the extension imported is the wheel's abi3 build, inside the venv, not this checkout;
- `eagle3-inspect --version` and `eagle3-inspect demo` run (the demo exits 0);
- a slice of the test suite passes against the installed package (SLICE below; override with
  `--tests`);
- with `--extras all`, that the wheel installs with every optional feature and each one loads
  (ml_dtypes, matplotlib for an HTML report written here, ray, huggingface_hub).
The release workflow (.github/workflows/release.yml) runs it on every platform it builds for;
docs/release.md runs it by hand. Exit status 1 when any check fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Fast tests that reach the extension where abi3 changed it (array-interface views, ranged-read
# answers), the version, the start-up imports, and one end-to-end fix.
SLICE = [
    "tests/test_release.py",
    "tests/reader/test_checkpoint.py",
    "tests/reader/test_source_hostile.py",
    "tests/cli/test_fast_start.py",
    "tests/commands/fix/test_seed.py",
]
TEST_DEPS = ["pytest>=8", "hypothesis>=6", "safetensors>=0.6"]
TOOLS = ("cargo", "rustc")


def without_rust(env: dict[str, str]) -> dict[str, str]:
    """`env` with every PATH entry that holds cargo or rustc left out."""
    keep = [
        d
        for d in env.get("PATH", "").split(os.pathsep)
        if d and not any(shutil.which(tool, path=d) for tool in TOOLS)
    ]
    return {**env, "PATH": os.pathsep.join(keep)}


def venv_bin(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, env=env, cwd=cwd, check=True)


IMPORT_CHECK = """
import sys
from pathlib import Path
import eagle3_inspect, eagle3_inspect._native as native
where = Path(native.__file__).resolve()
assert Path(sys.prefix).resolve() in where.parents, f"not the installed wheel: {where}"
if sys.platform != "win32":
    assert where.name == "_native.abi3.so", where.name
print(f"{eagle3_inspect.__version__} on Python {sys.version.split()[0]}: {where}")
"""


EXTRAS_CHECK = """
import importlib
for module in ("ml_dtypes", "matplotlib", "ray", "huggingface_hub"):
    print(module, importlib.import_module(module).__version__)
"""


def check(wheel: Path, python: str, work: Path, tests: list[str], extras: str) -> None:
    venv = work / "venv"
    run([python, "-m", "venv", str(venv)])
    py = str(venv_bin(venv) / "python")
    run([py, "-m", "pip", "install", "-q", f"{wheel}[{extras}]", *TEST_DEPS])
    env = without_rust(dict(os.environ))
    removed = set(os.environ.get("PATH", "").split(os.pathsep)) - set(env["PATH"].split(os.pathsep))
    print(f"left out of PATH (they hold {' or '.join(TOOLS)}): {sorted(removed)}", flush=True)
    env["PATH"] = os.pathsep.join([str(venv_bin(venv)), env["PATH"]])
    env.pop("PYTHONPATH", None)
    found = [tool for tool in TOOLS if shutil.which(tool, path=env["PATH"])]
    if found:
        raise SystemExit(f"still on PATH: {found}")
    cli = str(venv_bin(venv) / "eagle3-inspect")
    run([py, "-c", IMPORT_CHECK], env=env, cwd=work)
    run([cli, "--version"], env=env, cwd=work)
    run([cli, "demo", "--out", str(work / "demo")], env=env, cwd=work)
    if extras == "all":
        run([py, "-c", EXTRAS_CHECK], env=env, cwd=work)
        drafter = str(work / "demo" / "drafter-correct")
        run([cli, "validate", drafter, "--html", str(work / "report.html")], env=env, cwd=work)
    # From the checkout's root: its tests, the installed package (python/ is not on sys.path).
    run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], env=env, cwd=ROOT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--python", action="append", help="interpreter(s); default: this one")
    parser.add_argument("--tests", nargs="+", default=SLICE, help="pytest paths")
    parser.add_argument("--keep", type=Path, help="work here and keep it (default: a temp dir)")
    parser.add_argument("--extras", default="dtypes", help="extras to install (all: check each)")
    args = parser.parse_args()
    wheel = args.wheel.resolve()
    failed = []
    for python in args.python or [sys.executable]:
        with tempfile.TemporaryDirectory(prefix="e3i-wheel-") as tmp:
            work = Path(args.keep or tmp) / Path(python).name
            work.mkdir(parents=True, exist_ok=True)
            try:
                check(wheel, python, work, args.tests, args.extras)
            except (subprocess.CalledProcessError, SystemExit) as exc:
                print(f"FAILED with {python}: {exc}", flush=True)
                failed.append(python)
    print("wheel check:", "FAILED for " + ", ".join(failed) if failed else "passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
