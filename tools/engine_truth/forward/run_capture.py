"""Capture truth (issue 25, item 2): for one engine version, the aux states its own target model
records for each corpus drafter's ids (as the engine's runner reads them: `aux_layer_ids` of the
load truth, `engine_truth.json`), matched by value against the verifier's residual stream, and
compared with the boundaries the drafter's producer trained on by table.py (`forward_truth.json`
holds those). Merged into `capture_truth.json`; one process per engine version (vLLM's custom
ops register once).

    python run_capture.py --engine vllm --version 0.33.0 [--cache DIR]
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=sorted(CAPTURERS), required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache/eagle3-inspect/engine_wheels"
    )
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    key = f"{args.engine}@{args.version}"
    load_truth = json.loads((TRUTH / "engine_truth.json").read_text())["drafters"]
    verifiers = {"llama": run_verifier(REPO / "tests/corpus/verifiers/llama-8l")}
    doc: dict[str, Any] = (
        json.loads(args.out.read_text())
        if args.out.exists()
        else {"schema_version": 1, "captures": {}, "drafters": {}}
    )
    manifest = json.loads((REPO / "tests/corpus/manifest.json").read_text())["drafters"]
    variants: dict[str, list[int] | None] = {}
    for entry in manifest:
        load = _load_row(load_truth, entry["dir"], key)
        if load.get("verdict") == "LOADED" and entry["verifier"]["arch"] in verifiers:
            ids = load.get("aux_layer_ids")
            variants[str(ids)] = ids
    found = CAPTURERS[args.engine](
        args.version, args.cache, verifiers["llama"], list(variants.values())
    )
    captures = {f"{key} ids={ids}": cap for ids, cap in found.items()}
    for entry in manifest:
        name, arch = entry["dir"], entry["verifier"]["arch"]
        load = _load_row(load_truth, name, key)
        row: dict[str, Any] = {}
        if load.get("verdict") != "LOADED":
            row["verdict"] = f"not loaded ({load.get('verdict', 'no load truth')})"
        elif arch not in verifiers:
            row["verdict"] = f"NOT-RUN: the {arch} target class is not run by this harness"
        else:
            ids = load.get("aux_layer_ids")
            ckey = f"{key} ids={ids}"
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
