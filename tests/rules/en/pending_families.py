"""Engine-truth cells that wait for the drafter-families rules (issue 19): the differential test
compares them like every other cell, prints each disagreement as a PendingFamilyCell warning
(named, counted) instead of failing, and fails once one of them agrees, so the list only
shrinks. Each entry: "drafter engine@version" -> the checks pending for it:

* "errors": `validate --engine` errors do not yet match the engine's verdict (harm.py);
* "fc_width": the profile's fc model (EN015 `fc_aux_count`) does not give the fc the engine
  built;
* "aux_ids": the profile's aux-id location does not give the ids the engine's reader returned.

A "<drafter> no-engine" cell is `validate` without `--engine` reporting errors on a drafter some
engine version loads as trained.

Generated from the committed truth and the rules as they stand (see tools/engine_truth/
README.md, "Pending cells"); edit by hand only to remove cells the rules now get right.
"""

from __future__ import annotations

PENDING: dict[str, frozenset[str]] = {
    "corpus/modelopt-0.47.0-dflash no-engine": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.11": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.12": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.13": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.14": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.15": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.16": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.17": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.18": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.19": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.20": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.21": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.22": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash sglang@0.5.23": frozenset(["errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash vllm@0.20.0": frozenset(["aux_ids", "errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash vllm@0.21.0": frozenset(["aux_ids", "errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash vllm@0.22.0": frozenset(["aux_ids", "errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash vllm@0.24.0": frozenset(["aux_ids", "errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash vllm@0.25.0": frozenset(["aux_ids", "errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash vllm@0.27.0": frozenset(["aux_ids", "errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash vllm@0.30.0": frozenset(["aux_ids", "errors", "fc_width"]),
    "corpus/modelopt-0.47.0-dflash vllm@0.33.0": frozenset(["aux_ids", "errors", "fc_width"]),
    "corpus/modelopt-0.47.0-fp8 no-engine": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-fp8 vllm@0.15.0": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-fp8 vllm@0.17.0": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-fp8 vllm@0.19.0": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-fp8 vllm@0.20.0": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-fp8 vllm@0.21.0": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-fp8 vllm@0.22.0": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-fp8 vllm@0.24.0": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-fp8 vllm@0.25.0": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-fp8 vllm@0.27.0": frozenset(["errors"]),
    "corpus/modelopt-0.47.0-mla-kimik2 vllm@0.19.0": frozenset(["errors"]),
    "corpus/specforge-0.2.0-dflash-hf no-engine": frozenset(["errors"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.11": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.12": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.13": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.14": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.15": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.16": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.17": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.18": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.19": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.20": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.21": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.22": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf sglang@0.5.23": frozenset(["errors", "fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf vllm@0.20.0": frozenset(["fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf vllm@0.21.0": frozenset(["fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf vllm@0.22.0": frozenset(["fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf vllm@0.24.0": frozenset(["fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf vllm@0.25.0": frozenset(["fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf vllm@0.27.0": frozenset(["fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf vllm@0.30.0": frozenset(["fc_width"]),
    "corpus/specforge-0.2.0-dflash-hf vllm@0.33.0": frozenset(["fc_width"]),
    "corpus/speculators-0.9.0-aux-ids vllm@0.19.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-default vllm@0.19.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-dflash no-engine": frozenset(["errors"]),
    "corpus/speculators-0.9.0-dflash speculators@0.9.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-dflash vllm@0.20.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash vllm@0.21.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash vllm@0.22.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash vllm@0.24.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash vllm@0.25.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash vllm@0.27.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash vllm@0.30.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash vllm@0.33.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab no-engine": frozenset(["errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab speculators@0.9.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab vllm@0.20.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab vllm@0.21.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab vllm@0.22.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab vllm@0.24.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab vllm@0.25.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab vllm@0.27.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab vllm@0.30.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash-full-vocab vllm@0.33.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash2 no-engine": frozenset(["errors"]),
    "corpus/speculators-0.9.0-dflash2 speculators@0.9.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-dflash2 vllm@0.30.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-dflash2 vllm@0.33.0": frozenset(["aux_ids", "errors"]),
    "corpus/speculators-0.9.0-full-vocab vllm@0.19.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-layers2 vllm@0.19.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-nbr-false vllm@0.19.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-no-norm-output vllm@0.19.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle speculators@0.9.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle vllm@0.24.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle vllm@0.25.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle vllm@0.27.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle vllm@0.30.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle vllm@0.33.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle-llama speculators@0.9.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle-llama vllm@0.22.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle-llama vllm@0.24.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle-llama vllm@0.25.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle-llama vllm@0.27.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle-llama vllm@0.30.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-peagle-llama vllm@0.33.0": frozenset(["errors"]),
    "corpus/speculators-0.9.0-qwen3-verifier vllm@0.19.0": frozenset(["errors"]),
}

# Corpus drafters `tests/commands/fix/test_corpus.py` (fix over every drafter x engine) waits on:
# `fix` has no per-family plan for them yet (a DFlash drafter is planned as a broken EAGLE-3; the
# FP8 drafter's scales are not a precision class `fix` knows). Same contract: a failure is
# printed as a PendingFamilyCell warning, a pass fails as stale.
PENDING_FIX_DRAFTERS: dict[str, str] = {
    "modelopt-0.47.0-dflash": "DFlash: no DFlash fix plan",
    "modelopt-0.47.0-fp8": "FP8: F8_E4M3 weights + F32 scales are not one precision class to fix",
    "specforge-0.2.0-dflash-hf": "DFlash: no DFlash fix plan",
    "speculators-0.9.0-dflash": "DFlash: no DFlash fix plan",
    "speculators-0.9.0-dflash-full-vocab": "DFlash: no DFlash fix plan",
    "speculators-0.9.0-dflash2": "DFlash2: no DFlash2 fix plan",
}
