"""Capture truth (issue 25, item 2): for one engine version, the aux states its own target model
records for each corpus drafter's ids (as the engine's runner reads them: `aux_layer_ids` of the
load truth, `engine_truth.json`), matched by value against the verifier's residual stream, and
compared with the boundaries the drafter's producer trained on by table.py (`forward_truth.json`
holds those). Merged into `capture_truth.json`; one process per engine version (vLLM's custom
ops register once).

    python run_capture.py --engine vllm --version 0.33.0 [--target qwen3] [--cache DIR]
    python run_capture.py --engine vllm --version 0.33.0 --target kimi-k2  # then kimi-k2-noaux-tc
    python run_capture.py --engine sglang --version 0.5.23 [--target qwen3] [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Target:
    """One `--target`: the manifest's verifier arch it serves, the verifier dir transformers
    runs for the stream, the dir whose config the engine reads, and config attributes set on
    top of that file (recorded in the capture key)."""

    arch: str
    stream: str
    config: str
    config_set: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        """`qwen3-8l`, `kimi-k2-8l topk_method=noaux_tc scoring_func=sigmoid`."""
        return " ".join([self.config, *(f"{k}={v}" for k, v in self.config_set)])


TARGET_RUNS = {
    "llama": Target("llama", "llama-8l", "llama-8l"),
    "qwen3": Target("qwen3", "qwen3-8l", "qwen3-8l"),
    # The MLA drafter's target: transformers runs verifiers/deepseek-v3-8l (its layout), the
    # engine reads verifiers/kimi-k2-8l (the same weights in Kimi-K2's published layout, as a
    # Kimi-K2 deployment gives it to the engine).
    "kimi-k2": Target("deepseek_v3", "deepseek-v3-8l", "kimi-k2-8l"),
    # The same with the two routing fields Kimi-K2's and DeepSeek-V3's published config.json
    # carry and the verifier's config does not (transformers' DeepseekV3 has no such fields: it
    # always routes by sigmoid scores plus e_score_correction_bias, which is what they select in
    # vLLM's deepseek_v2.py). Written as `with_config` beside the drafter's kimi-k2 row.
    "kimi-k2-noaux-tc": Target(
        "deepseek_v3",
        "deepseek-v3-8l",
        "kimi-k2-8l",
        (("topk_method", "noaux_tc"), ("scoring_func", "sigmoid")),
    ),
}
# The targets each engine's capture runs (capture.VLLM_TARGETS, capture.SGLANG_TARGETS).
TARGETS = {"sglang": ("llama", "qwen3"), "vllm": ("llama", "qwen3", "kimi-k2", "kimi-k2-noaux-tc")}


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


def capture_key(key: str, target: Target, ids: str) -> str:
    """`vllm@0.33.0 ids=[1, 3, 4]` on the Llama verifier, `vllm@0.33.0 qwen3-8l ids=...` else."""
    return f"{key} ids={ids}" if target.arch == "llama" else f"{key} {target.label} ids={ids}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=sorted(CAPTURERS), required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache/eagle3-inspect/engine_wheels"
    )
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--target", choices=sorted(TARGET_RUNS), default="llama", help="the verifier captured"
    )
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    if args.target not in TARGETS[args.engine]:
        ap.error(f"--target {args.target} is not run for {args.engine}")
    key = f"{args.engine}@{args.version}"
    load_truth = json.loads((TRUTH / "engine_truth.json").read_text())["drafters"]
    target = TARGET_RUNS[args.target]
    verifiers_dir = REPO / "tests/corpus/verifiers"
    # One target per process: a second vLLM model file would register vllm.ir's ops again.
    verifiers = {target.arch: run_verifier(verifiers_dir / target.stream)}
    # Engine config read from another dir than the stream's, or with attributes set on top.
    options: dict[str, Any] = {}
    if target.config != target.stream or target.config_set:
        options = {"config_dir": verifiers_dir / target.config, "config_set": target.config_set}
    served = {TARGET_RUNS[t].arch for t in TARGETS[args.engine]}
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
            args.version, args.cache, verifiers[arch], list(wanted.values()), **options
        )
        captures |= {capture_key(key, target, ids): cap for ids, cap in found.items()}
    for entry in manifest:
        name, arch = entry["dir"], entry["verifier"]["arch"]
        load = _load_row(load_truth, name, key)
        row: dict[str, Any] = {}
        if arch != target.arch and arch in served:
            continue  # another target's row: its own --target run writes it
        if load.get("verdict") != "LOADED":
            row["verdict"] = f"not loaded ({load.get('verdict', 'no load truth')})"
        elif arch not in verifiers:
            row["verdict"] = f"NOT-RUN: the {arch} target class is not run by this harness"
        else:
            ids = load.get("aux_layer_ids")
            ckey = capture_key(key, target, str(ids))
            cap = captures[ckey]
            row |= {"ids": ids, "capture": ckey, "verdict": cap["verdict"]}
            if cap["verdict"] == "CAPTURED":
                row["engine_boundaries"] = cap["boundaries"]
        old = doc["drafters"].setdefault(name, {}).get(key, {})
        if target.config_set:  # beside the row of the config as written, never in its place
            if "ids" not in row:
                continue
            row = old | {"with_config": row | {"set": dict(target.config_set)}}
        elif "with_config" in old:
            row["with_config"] = old["with_config"]
        doc["drafters"][name][key] = row
        print(f"   {name} {key}: {row}", flush=True)
    for ckey, cap in captures.items():
        doc["captures"][ckey] = {k: v for k, v in cap.items() if k != "opaque_used"}
    doc["drafters"] = dict(sorted(doc["drafters"].items()))
    doc["captures"] = dict(sorted(doc["captures"].items()))
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
