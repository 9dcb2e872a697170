"""One engine version's draft-model forward over every prepared drafter, in its own process
(vLLM's `vllm.ir` registers torch custom ops at import, which cannot be registered twice in one
process): the engine's own config, __init__ and load_weights (from the wheel, through
eagle3_inspect.installed.harness), the worker's embedding / head sharing with the verifier, then
the draft chain (harness/chain.py) over the aux hidden states the producer was fed.

    python engine_run.py --engine vllm --version 0.33.0 --cache DIR --work DIR NAME...

reads `WORK/NAME/` (the perturbed drafter and `inputs.pt`, written by run_forward.py) and
writes `WORK/NAME/ENGINE@VERSION.pt`: the record, and per-step logits / top-1 when it ran."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[3] / "python"))  # the load harness
os.environ.setdefault("TORCHDYNAMO_DISABLE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

# transformers before any engine session: imported under it, its optional-dependency probes
# would meet the session's stubs for uninstalled packages (and read their version as 'N/A').
import transformers  # noqa: F401
from transformers import AutoConfig, LlamaConfig  # noqa: F401

from eagle3_inspect.installed.harness import chain, imports, sglang_eagle3, vllm_eagle3
from eagle3_inspect.installed.harness.drafter import read_drafter
from eagle3_inspect.installed.harness.record import error_record
from eagle3_inspect.installed.harness.sources import WheelSource, wheel_path

DRIVERS = {"sglang": sglang_eagle3, "vllm": vllm_eagle3}


def run_one(engine: str, source: WheelSource, folder: Path, steps: int) -> dict[str, Any]:
    """The engine's record (verdict, sharing) plus per-step `logits` / `top1` when it loaded.
    Call inside the engine's import session."""
    driver = DRIVERS[engine]
    drafter = read_drafter(folder, folder.name)
    inputs = torch.load(folder / "inputs.pt")
    if engine == "sglang":
        record, model = driver.load(drafter, source)
    else:
        record, model = driver.load(drafter, source, int(inputs["embed"].shape[0]))
    if model is None:
        return record
    model = model.float().eval()
    try:
        record["sharing"] = driver.share_target(model, inputs["embed"], inputs["head"])
        out = chain.run_chain(
            driver.step_function(model),
            chain.ChainInputs(inputs["tokens"], inputs["aux"], steps),
        )
    except Exception as exc:
        record["verdict"] = "FORWARD-ERROR"
        record["why"] = error_record("forward", exc, f"{source.origin} draft forward")
        return record
    record["logits"], record["top1"] = out.logits, out.top1
    return record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=sorted(DRIVERS), required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("names", nargs="+")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    key = f"{args.engine}@{args.version}"
    path = wheel_path(args.engine, args.version, args.cache)
    if path is None:
        for name in args.names:
            torch.save({"verdict": "NO-WHEEL"}, args.work / name / f"{key}.pt")
        return 0
    source = WheelSource(args.engine, args.version, path)
    session = DRIVERS[args.engine].session(source)
    with imports.session(session):
        for name in args.names:
            record = run_one(args.engine, source, args.work / name, args.steps)
            record["opaque_used"] = sorted(session.opaque_used)
            torch.save(record, args.work / name / f"{key}.pt")
            print(f"   {name} {key}: {record['verdict']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
