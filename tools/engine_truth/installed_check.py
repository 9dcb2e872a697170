"""`--engine NAME@installed` held to the load truth: for every drafter under the roots, the
installed engine's verdict as validate gets it (`installed.judge`: stand-ins, the installed
package's source, the worker subprocess) against the harness on the drafter's own tensors with
the same version's wheel (`run_load` + `open_wheel`, the way run.py writes engine_truth.json).
After a load, the installed engine's short draft chain (harness/forward.py) is held to the
committed forward truth where it has the version: the engine's forward ran there (the drafter
loaded in forward_truth.json) exactly when it runs here. Prints one line per drafter and the
fields that differ; exit 1 when any does.

Run in a throwaway venv with CPU torch, transformers, the engine installed (`--no-deps` is
enough) and eagle3-inspect importable, e.g. (tests/corpus/README.md's producers venv as base):

    python -m venv $VENVS/inst && echo $VENVS/producers/lib/python3.11/site-packages \\
        > $VENVS/inst/lib/python3.11/site-packages/producers.pth
    $VENVS/inst/bin/pip install --no-deps vllm==0.34.0
    PYTHONPATH=python $VENVS/inst/bin/python tools/engine_truth/installed_check.py \\
        --engine vllm --drafter-root tests/corpus
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))

from eagle3_inspect.installed.harness.load import run_load  # noqa: E402
from eagle3_inspect.installed.harness.sources import open_wheel  # noqa: E402
from eagle3_inspect.installed.judge import judge  # noqa: E402
from eagle3_inspect.installed.probe import find_installed  # noqa: E402
from eagle3_inspect.reader.opening import open_checkpoint  # noqa: E402

# What both sides must agree on (the verdict fields validate's findings read; shapes inside
# exception texts are at the stand-in's scale on one side, so `why` is compared by stage).
FIELDS = ("verdict", "dropped", "never_loaded", "aux_layer_ids", "fc_in_features", "stage")
FORWARD = json.loads((HERE / "forward_truth.json").read_text())["drafters"]


def facts(record: dict[str, Any], scale: int = 1) -> dict[str, Any]:
    """The compared fields of a load record (fc width back at the drafter's scale)."""
    fc = record.get("fc_in_features")
    return {
        "verdict": record.get("verdict"),
        "dropped": sorted(record.get("dropped") or []),
        "never_loaded": sorted(record.get("never_loaded") or []),
        "aux_layer_ids": record.get("aux_layer_ids"),
        "fc_in_features": fc * scale if isinstance(fc, int) else None,
        "stage": (record.get("why") or {}).get("stage"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=("sglang", "vllm"), required=True)
    ap.add_argument("--drafter-root", type=Path, required=True)
    ap.add_argument("--json", type=Path, help="also write the per-drafter comparison here")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    installed = find_installed(args.engine)
    wheel = open_wheel(args.engine, installed.version)
    rows, differing = [], 0
    for config_path in sorted(args.drafter_root.glob("*/config.json")):
        folder = config_path.parent
        ckpt = open_checkpoint(folder)
        verdict = judge(installed, ckpt.config or {}, ckpt.tensors)
        mine = facts(dict(verdict.record), verdict.scale) if verdict.record else {}
        if verdict.outcome == "NOT-RUN":
            mine = {"verdict": "NOT-RUN", "reason": verdict.reason}
        truth = facts(run_load(folder, wheel))
        diff = sorted(k for k in FIELDS if mine.get(k) != truth.get(k))
        ran = (verdict.forward or {}).get("verdict")
        forward_truth = FORWARD.get(folder.name, {}).get("results", {})
        key = f"{args.engine}@{installed.version}"
        ran_there = key in forward_truth and forward_truth[key]["verdict"] == "LOADED"
        if key in forward_truth and ran is not None and (ran == "RAN") != ran_there:
            diff.append("forward")
        mine["forward"] = ran
        differing += bool(diff)
        rows.append({"drafter": folder.name, "installed": mine, "wheel": truth, "differ": diff})
        status = "same" if not diff else "DIFFERS in " + ", ".join(diff)
        shown = f"{truth['verdict']} / installed {mine.get('verdict')}, forward {ran}"
        print(f"{folder.name}: {shown}: {status}")
    print(
        f"{args.engine} {installed.version} installed at {installed.location}: "
        f"{len(rows) - differing} of {len(rows)} drafters agree with the wheel run"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
