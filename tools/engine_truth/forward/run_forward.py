"""Forward ground truth (issue 25, item 1): each corpus drafter's producer training-time forward
against each engine version's own draft-model forward, on identical inputs, written to
`forward_truth.json` next to `engine_truth.json` (see README.md in this directory).

Usage (the producers venv; speculators 0.3 drafters' producer forward in the spec03 overlay venv,
tests/corpus/README.md, named by --overlay-python):
    python tools/engine_truth/forward/run_forward.py --drafter speculators-0.9.0-default ... \
        --sglang 0.5.23 --vllm 0.33.0 [--out tools/engine_truth/forward_truth.json] \
        [--overlay-python $VENVS/spec03/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
CORPUS = REPO / "tests" / "corpus"
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(REPO / "python"))  # eagle3_inspect.installed.harness
# Eager everywhere: torch.compile (ModelOpt's EAGLE module, speculators' flex attention) only picks
# kernels, and its inductor C++ builds take minutes per shape on CPU. The Hub is never asked.
os.environ.setdefault("TORCHDYNAMO_DISABLE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from inputs import ROWS, STEPS, VerifierRun, run_verifier  # noqa: E402
from perturb import perturbed  # noqa: E402
from producer_run import ProducerRun  # noqa: E402

from eagle3_inspect.installed.harness.drafter import read_drafter, scratch_dir  # noqa: E402
from eagle3_inspect.installed.harness.record import error_record  # noqa: E402

SCHEMA_VERSION = 1
DEFAULT_OUT = HERE.parent / "forward_truth.json"


def manifest_entry(name: str) -> dict[str, Any]:
    """The corpus manifest's record of drafter `name`."""
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    for entry in manifest["drafters"]:
        if entry["dir"] == name:
            return dict(entry)
    raise LookupError(f"{name} is not in tests/corpus/manifest.json")


def verifier_dir(entry: dict[str, Any]) -> str:
    """The corpus verifier the drafter was trained over (`deepseek_v3` -> `deepseek-v3-8l`)."""
    return f"{entry['verifier']['arch'].replace('_', '-')}-8l"


def overlay_forward(
    script: str, drafter: Any, verifier: VerifierRun, python: Path | None
) -> ProducerRun:
    """A producer forward that runs in another venv (`python`): the verifier run saved beside the
    perturbed drafter, `script` run on that folder, its `producer.pt` read back."""
    if python is None:
        raise RuntimeError(f"{drafter.name}: its producer forward needs --overlay-python")
    torch.save(verifier, drafter.path / "verifier.pt")
    subprocess.run([str(python), str(HERE / script), str(drafter.path)], check=True)
    prod: ProducerRun = torch.load(drafter.path / "producer.pt", weights_only=False)
    return prod


def producer_forward(
    entry: dict[str, Any], drafter: Any, verifier: VerifierRun, overlay: Path | None = None
) -> ProducerRun:
    """The drafter's own producer's training forward over the perturbed copy."""
    producer = entry["producer"]
    if producer == "speculators" and entry["producer_version"].startswith("0.3."):
        # 0.3 predates transformers 5: its own process in the overlay venv
        return overlay_forward("producer_speculators03.py", drafter, verifier, overlay)
    if producer == "speculators":
        import producer_speculators

        return producer_speculators.run(drafter.path, verifier)
    if producer == "specforge":
        import producer_specforge

        return producer_specforge.run(drafter.path, verifier, drafter.config)
    if producer == "modelopt":
        import producer_modelopt

        return producer_modelopt.run(drafter, verifier, entry["options"])
    raise LookupError(f"no producer forward for {producer}")


def compare(
    prod: ProducerRun, logits: list[torch.Tensor], top1: list[torch.Tensor]
) -> dict[str, Any]:
    """Per draft step over the producer's valid rows: max |logit diff| (draft vocab) and top-1
    target-id agreement."""
    steps = []
    for s in range(STEPS):
        n = prod.valid[s]
        a, b = prod.logits[s][:n].float(), logits[s][:n].float()
        if a.shape != b.shape:
            steps.append({"step": s, "rows": n, "shape_mismatch": [list(a.shape), list(b.shape)]})
            continue
        agree = int((prod.top1[s][:n] == top1[s][:n]).sum())
        steps.append(
            {
                "step": s,
                "rows": n,
                "max_abs_logit_diff": float((a - b).abs().max()),
                "top1_agree": agree,
            }
        )
    agree = sum(x.get("top1_agree", 0) for x in steps)
    total = sum(x["rows"] for x in steps)
    return {
        "steps": steps,
        "top1_agree": agree,
        "positions": total,
        "max_abs_logit_diff": max(x.get("max_abs_logit_diff", float("inf")) for x in steps),
    }


def prepare(name: str, work: Path, overlay: Path | None = None) -> dict[str, Any]:
    """One drafter: verifier run, perturbed copy and inputs under `work/name`, producer forward.
    Returns the drafter's record with the producer's run under "_producer"."""
    entry = manifest_entry(name)
    verifier = run_verifier(CORPUS / "verifiers" / verifier_dir(entry))
    original = read_drafter(CORPUS / name, name)
    head_trained = any(n.endswith("lm_head.weight") for n in original.tensors)
    drafter = original.copy_to(work / name)
    drafter.tensors = perturbed(original.tensors, head_trained)
    drafter = drafter.copy_to(drafter.path)
    saved = work / name / "producer.pt"
    prod = torch.load(saved, weights_only=False) if saved.exists() else None
    if prod is None:
        prod = producer_forward(entry, drafter, verifier, overlay)
        torch.save(prod, saved)
    torch.save(
        {
            "tokens": verifier.tokens,
            "aux": prod.aux,
            "embed": verifier.embed,
            "head": verifier.head,
        },
        work / name / "inputs.pt",
    )
    return {
        "producer": prod.summary(),
        "inputs": {
            "verifier": f"tests/corpus/verifiers/{verifier_dir(entry)}",
            "rows": ROWS,
            "steps": STEPS,
            "perturbed": "norm weights" + (" + lm_head" if head_trained else ""),
        },
        "results": {},
        "_producer": prod,
    }


def run_engine(engine: str, version: str, cache: Path, work: Path, names: list[str]) -> None:
    """engine_run.py for one engine version over every prepared drafter (its own process)."""
    subprocess.run(
        [
            sys.executable,
            str(HERE / "engine_run.py"),
            "--engine",
            engine,
            "--version",
            version,
            "--cache",
            str(cache),
            "--work",
            str(work),
            "--steps",
            str(STEPS),
            *names,
        ],
        check=False,  # a crashed engine process leaves its drafters without a .pt: recorded
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--drafter", nargs="+", required=True)
    ap.add_argument("--sglang", nargs="*", default=[])
    ap.add_argument("--vllm", nargs="*", default=[])
    ap.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache/eagle3-inspect/engine_wheels"
    )
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--work", type=Path, help="reuse this scratch dir's producer runs")
    ap.add_argument(
        "--overlay-python", type=Path, help="the spec03 overlay venv's python (speculators 0.3)"
    )
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    engines = [("sglang", v) for v in args.sglang] + [("vllm", v) for v in args.vllm]
    doc: dict[str, Any] = (
        json.loads(args.out.read_text())
        if args.out.exists()
        else {"schema_version": SCHEMA_VERSION, "drafters": {}}
    )
    work = args.work or scratch_dir("forward")
    prepared: dict[str, dict[str, Any]] = {}
    for name in args.drafter:
        print(f"== {name}", flush=True)
        try:
            prepared[name] = prepare(name, work, args.overlay_python)
        except Exception as exc:  # a producer forward that fails is recorded, not fatal
            print(f"   producer forward failed: {type(exc).__name__}: {exc}", flush=True)
            traceback.print_exc()
            doc["drafters"][name] = {"error": error_record("producer forward", exc, name)}
    for engine, version in engines:
        run_engine(engine, version, args.cache, work, list(prepared))
    for name, record in prepared.items():
        prod = record.pop("_producer")
        for engine, version in engines:
            key = f"{engine}@{version}"
            file = work / name / f"{key}.pt"
            run = torch.load(file) if file.exists() else {"verdict": "HARNESS-CRASH"}
            if "logits" in run and not prod.logits:  # the producer's draft module raised
                del run["logits"], run["top1"]
                run["comparison_not_run"] = "the producer's draft forward raised (draft_error)"
            if "logits" in run:
                run["comparison"] = compare(prod, run.pop("logits"), run.pop("top1"))
                c = run["comparison"]
                print(f"   {name} {key}: top1 {c['top1_agree']}/{c['positions']}", flush=True)
            record["results"][key] = run
        old = doc["drafters"].get(name, {}).get("results", {})
        record["results"] = old | record["results"]  # other engine versions' earlier results
        doc["drafters"][name] = record
    doc["drafters"] = dict(sorted(doc["drafters"].items()))
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
