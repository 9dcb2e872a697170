"""Fast start, as a mechanism (not a time): `--version` and `rules` import neither numpy nor
rich, and `validate --no-stats --format concise` not numpy, rich or ml_dtypes (`diff`: in
tests/commands/test_diff_vocab.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from eagle3_inspect.synthetic.demo import write_demo

HEAVY = ("numpy", "rich", "ml_dtypes")
PROBE = """
import json, sys
from eagle3_inspect.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "loaded": [m for m in %r if m in sys.modules]}), file=sys.stderr)
"""


def probed(*args: str) -> tuple[int, list[str], str]:
    """The exit code, the heavy modules loaded, and what the command printed on stdout."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE % (HEAVY,), *args], capture_output=True, text=True, timeout=120
    )
    result = json.loads(done.stderr.strip().splitlines()[-1])
    return result["code"], result["loaded"], done.stdout


def loaded_by(*args: str) -> tuple[int, list[str]]:
    code, loaded, _ = probed(*args)
    return code, loaded


@pytest.mark.parametrize("args", [["--version"], ["rules"], ["rules", "--format", "concise"]])
def test_version_and_rules_load_no_numpy_or_rich(args):
    code, loaded = loaded_by(*args)
    assert code == 0 and loaded == []


def test_validate_no_stats_concise_loads_no_numpy_or_rich(tmp_path):
    demo = write_demo(tmp_path)
    for drafter, want in ((demo.correct, 0), (demo.broken, 1)):
        code, loaded = loaded_by("validate", str(drafter), "--no-stats", "--format", "concise")
        assert code == want and loaded == []


def test_the_probe_sees_imports(tmp_path):
    """The check can fail: the full renderer does import rich."""
    code, loaded = loaded_by("rules", "--format", "full")
    assert code == 0 and "rich" in loaded
