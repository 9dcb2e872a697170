"""Capture truth (issue 25, item 2): for one engine version, the aux states its own target model
records for each corpus drafter's ids (as the engine's runner reads them: `aux_layer_ids` of the
load truth, `engine_truth.json`), matched by value against the verifier's residual stream, and
compared with the boundaries the drafter's producer trained on by table.py (`forward_truth.json`
holds those). Merged into `capture_truth.json`; one process per engine version (vLLM's custom
ops register once).

    python run_capture.py --engine vllm --version 0.33.0 [--target qwen3] [--cache DIR]
    python run_capture.py --engine sglang --version 0.5.23 [--target qwen3] [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parents[2] / "python"))  # eagle3_inspect.installed.harness
os.environ.setdefault("TORCHDYNAMO_DISABLE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import capture  # noqa: E402
from inputs import run_verifier  # noqa: E402

REPO = HERE.parents[2]
TRUTH = HERE.parent
OUT = TRUTH / "capture_truth.json"
FORWARD = (
    json.loads((TRUTH / "forward_truth.json").read_text())["drafters"]
    if (TRUTH / "forward_truth.json").exists()
    else {}
)
CAPTURERS = {"sglang": capture.sglang_capture, "vllm": capture.vllm_capture}
# The verifiers each engine's capture runs (capture.VLLM_TARGETS, capture.SGLANG_TARGETS).
TARGETS = {"sglang": ("llama", "qwen3"), "vllm": ("llama", "qwen3")}


def _load_row(load_truth: dict[str, Any], name: str, key: str) -> dict[str, Any]:
    """The load truth's row; for an SGLang version it does not cover, the verdict of the
    forward run's own load (forward_truth.json) and the ids SGLang's ModelRunner reads
    (`eagle_config["eagle_aux_hidden_state_layer_ids"]`, as the load truth re-states it)."""
    row = load_truth.get(f"corpus/{name}", {}).get("results", {}).get(key)
    if row is not None or not key.startswith("sglang@"):
        return dict(row or {})
    forward = FORWARD.get(name, {}).get("results", {}).get(key, {})
    config = json.loads((REPO / "tests/corpus" / name / "config.json").read_text())
    ids = (config.get("eagle_config") or {}).get("eagle_aux_hidden_state_layer_ids")
    return {"verdict": forward.get("verdict", "no load truth"), "aux_layer_ids": ids}


def capture_key(key: str, arch: str, ids: str) -> str:
    """`vllm@0.33.0 ids=[1, 3, 4]` on the Llama verifier, `vllm@0.33.0 qwen3-8l ids=...` else."""
    return f"{key} ids={ids}" if arch == "llama" else f"{key} {arch}-8l ids={ids}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=sorted(CAPTURERS), required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache/eagle3-inspect/engine_wheels"
    )
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--target", choices=["llama", "qwen3"], default="llama", help="the verifier captured"
    )
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    key = f"{args.engine}@{args.version}"
    load_truth = json.loads((TRUTH / "engine_truth.json").read_text())["drafters"]
    # One target per process: a second vLLM model file would register vllm.ir's ops again.
    verifiers = {args.target: run_verifier(REPO / f"tests/corpus/verifiers/{args.target}-8l")}
    doc: dict[str, Any] = (
        json.loads(args.out.read_text())
        if args.out.exists()
        else {"schema_version": 1, "captures": {}, "drafters": {}}
    )
    manifest = json.loads((REPO / "tests/corpus/manifest.json").read_text())["drafters"]
    variants: dict[str, dict[str, list[int] | None]] = {arch: {} for arch in verifiers}
    for entry in manifest:
        load = _load_row(load_truth, entry["dir"], key)
        if load.get("verdict") == "LOADED" and entry["verifier"]["arch"] in verifiers:
            ids = load.get("aux_layer_ids")
            variants[entry["verifier"]["arch"]][str(ids)] = ids
    captures: dict[str, dict[str, Any]] = {}
    for arch, wanted in variants.items():
        if not wanted:
            continue
        found = CAPTURERS[args.engine](
            args.version, args.cache, verifiers[arch], list(wanted.values())
        )
        captures |= {capture_key(key, arch, ids): cap for ids, cap in found.items()}
    for entry in manifest:
        name, arch = entry["dir"], entry["verifier"]["arch"]
        load = _load_row(load_truth, name, key)
        row: dict[str, Any] = {}
        if arch != args.target and arch in TARGETS[args.engine]:
            continue  # another target's row: its own --target run writes it
        if load.get("verdict") != "LOADED":
            row["verdict"] = f"not loaded ({load.get('verdict', 'no load truth')})"
        elif arch not in verifiers:
            row["verdict"] = f"NOT-RUN: the {arch} target class is not run by this harness"
        else:
            ids = load.get("aux_layer_ids")
            ckey = capture_key(key, arch, str(ids))
            cap = captures[ckey]
            row |= {"ids": ids, "capture": ckey, "verdict": cap["verdict"]}
            if cap["verdict"] == "CAPTURED":
                row["engine_boundaries"] = cap["boundaries"]
        doc["drafters"].setdefault(name, {})[key] = row
        print(f"   {name} {key}: {row}", flush=True)
    for ckey, cap in captures.items():
        doc["captures"][ckey] = {k: v for k, v in cap.items() if k != "opaque_used"}
    doc["drafters"] = dict(sorted(doc["drafters"].items()))
    doc["captures"] = dict(sorted(doc["captures"].items()))
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
