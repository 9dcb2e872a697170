"""Which field or tensor drives a forward difference (issue 25, item 1): each change of
`changes.toml` re-runs one drafter of the forward run with exactly one config field set or
removed, or one module's tensors dropped, on the producer's side, the engines' side or both, and
records per engine version the top-1 agreement before and after, and whether the producer's and
the engine's own logits moved at all (a side that ignores the field does not move). Written to
`forward_attribution.json` next to `forward_truth.json`.

Usage (the producers venv, after run_forward.py with the same --work; see README.md; SpecForge's
and speculators' producer re-runs in separate invocations):
    python tools/engine_truth/forward/attribute.py --work /tmp/e3-fwd-work --only 3 4 5 6 7 8
    python tools/engine_truth/forward/attribute.py --work /tmp/e3-fwd-work --only 0 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import warnings
from pathlib import Path
from typing import Any

import tomllib

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parents[2] / "python"))  # eagle3_inspect.installed.harness
os.environ.setdefault("TORCHDYNAMO_DISABLE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from inputs import run_verifier  # noqa: E402
from producer_run import ProducerRun  # noqa: E402
from run_forward import (  # noqa: E402
    CORPUS,
    compare,
    manifest_entry,
    prepare,
    producer_forward,
    run_engine,
)

from eagle3_inspect.installed.harness.drafter import DrafterFiles, read_drafter  # noqa: E402

SCHEMA_VERSION = 1
PLAN = HERE / "changes.toml"
DEFAULT_OUT = HERE.parent / "forward_attribution.json"
SIDES = ("both", "producer", "engine")
KINDS = ("set", "unset", "drop", "reset")


def label(change: dict[str, Any]) -> str:
    """`side: what`, e.g. `both: unset norm_output`, `producer: fc_norm=false`."""
    if "set" in change:
        ((field, value),) = change["set"].items()
        what = f"{field}={json.dumps(value)}"
    elif "unset" in change:
        what = f"unset {change['unset']}"
    elif "reset" in change:
        what = f"reset {change['reset']}*"
    else:
        what = f"drop {change['drop']}*"
    return f"{change['side']}: {what}"


def check(change: dict[str, Any]) -> None:
    """One change, on a known side: anything else is a plan error."""
    kinds = [k for k in KINDS if k in change]
    if len(kinds) != 1 or ("set" in change and len(change["set"]) != 1):
        raise ValueError(f"{change['drafter']}: exactly one field or tensor prefix per change")
    if change["side"] not in SIDES:
        raise ValueError(f"{change['drafter']}: side must be one of {SIDES}")


def _set(config: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for key in parents:
        config = config.setdefault(key, {})
    config[last] = value


def changed(base: DrafterFiles, change: dict[str, Any], out: Path) -> DrafterFiles:
    """`base` with the one change applied, written to `out`."""
    config = json.loads(json.dumps(base.config))
    tensors = dict(base.tensors)
    if "set" in change:
        ((field, value),) = change["set"].items()
        _set(config, field, value)
    elif "unset" in change:
        *parents, last = change["unset"].split(".")
        node = config
        for key in parents:
            node = node[key]
        del node[last]
    elif "reset" in change:
        # the corpus drafter's own values (its producer's init) instead of the perturbed ones
        own = read_drafter(CORPUS / base.name, base.name).tensors
        hit = [n for n in tensors if n.startswith(change["reset"])]
        if not hit:
            raise LookupError(f"{base.name}: no tensor starts with {change['reset']!r}")
        for name in hit:
            tensors[name] = own[name]
    else:
        gone = [n for n in tensors if n.startswith(change["drop"])]
        if not gone:
            raise LookupError(f"{base.name}: no tensor starts with {change['drop']!r}")
        for name in gone:
            del tensors[name]
    return DrafterFiles(base.name, base.path, config, tensors).copy_to(out)


def base_of(change: dict[str, Any], work: Path, plan: list[dict[str, Any]]) -> Path:
    """The run a change starts from: the forward run's drafter, or with `on` (another change's
    label) that change's variant, so a second single change is measured on top of a first."""
    if "on" not in change:
        return work / change["drafter"]
    (first,) = [c for c in plan if c["drafter"] == change["drafter"] and label(c) == change["on"]]
    return work / slug(first)


def slug(change: dict[str, Any]) -> str:
    """The variant's directory name under --work."""
    text = label(change).replace(": ", "~").replace(" ", "-").replace("*", "")
    on = "" if "on" not in change else "~on~" + change["on"].replace(": ", "~").replace(" ", "-")
    text = (text + on).replace("*", "")
    return f"{change['drafter']}~{''.join(c if c.isalnum() or c in '-_=.~' else '_' for c in text)}"


def _max_diff(a: list[torch.Tensor], b: list[torch.Tensor]) -> float | None:
    if len(a) != len(b) or any(x.shape != y.shape for x, y in zip(a, b, strict=True)):
        return None
    return max(float((x.float() - y.float()).abs().max()) for x, y in zip(a, b, strict=True))


def _summary(c: dict[str, Any]) -> dict[str, Any]:
    keep = ("top1_agree", "positions", "max_abs_logit_diff")
    return {k: c[k] for k in keep} | {"top1_by_step": [s.get("top1_agree") for s in c["steps"]]}


def setup(change: dict[str, Any], work: Path, plan: list[dict[str, Any]]) -> Path:
    """The variant's dir: the drafter the engines load, `inputs.pt`, and `producer.pt` (re-run
    when the producer's side changed, else the original run's)."""
    name = change["drafter"]
    base_dir = base_of(change, work, plan)
    if not (base_dir / "producer.pt").exists():
        if "on" in change:
            raise LookupError(f"{name}: run {change['on']!r} (the change this one is on) first")
        prepare(name, work)  # the original forward run's perturbed copy and producer run
    base = read_drafter(base_dir, name)
    vdir = work / slug(change)
    if vdir.exists():
        shutil.rmtree(vdir)
    side = change["side"]
    engine_copy = changed(base, change, vdir) if side in ("both", "engine") else base.copy_to(vdir)
    if side == "engine":
        shutil.copy(base_dir / "producer.pt", vdir / "producer.pt")
        shutil.copy(base_dir / "inputs.pt", vdir / "inputs.pt")
        return vdir
    entry = manifest_entry(name)
    verifier = run_verifier(CORPUS / "verifiers" / f"{entry['verifier']['arch']}-8l")
    trained = engine_copy if side == "both" else changed(base, change, vdir / "producer-side")
    prod = producer_forward(entry, trained, verifier)
    torch.save(prod, vdir / "producer.pt")
    torch.save(
        {
            "tokens": verifier.tokens,
            "aux": prod.aux,
            "embed": verifier.embed,
            "head": verifier.head,
        },
        vdir / "inputs.pt",
    )
    if side == "producer":  # the engines load the original: their runs on it are reused
        for key in change["engines"]:
            if (base_dir / f"{key}.pt").exists():
                shutil.copy(base_dir / f"{key}.pt", vdir / f"{key}.pt")
    return vdir


def result(
    change: dict[str, Any], work: Path, key: str, plan: list[dict[str, Any]]
) -> dict[str, Any]:
    """One engine version's record for the change: verdict, agreement before / after, and how
    far each side's logits moved."""
    base_dir, vdir = base_of(change, work, plan), work / slug(change)
    before_prod: ProducerRun = torch.load(base_dir / "producer.pt", weights_only=False)
    after_prod: ProducerRun = torch.load(vdir / "producer.pt", weights_only=False)
    file = vdir / f"{key}.pt"
    after = torch.load(file) if file.exists() else {"verdict": "HARNESS-CRASH"}
    out: dict[str, Any] = {"verdict": after["verdict"]}
    if "why" in after:
        out["why"] = after["why"]
    before = torch.load(base_dir / f"{key}.pt") if (base_dir / f"{key}.pt").exists() else {}
    if "logits" in before:
        out["before"] = _summary(compare(before_prod, before["logits"], before["top1"]))
    if "logits" in after:
        out["after"] = _summary(compare(after_prod, after["logits"], after["top1"]))
        if "logits" in before:
            out["engine_logits_moved"] = _max_diff(before["logits"], after["logits"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True, help="run_forward.py's --work dir")
    ap.add_argument("--plan", type=Path, default=PLAN)
    ap.add_argument("--only", type=int, nargs="*", help="run these changes (0-based) only")
    ap.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache/eagle3-inspect/engine_wheels"
    )
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    plan = tomllib.loads(args.plan.read_text())["change"]
    for change in plan:
        check(change)
    chosen = [plan[i] for i in args.only] if args.only else plan
    producers = {manifest_entry(c["drafter"])["producer"] for c in chosen if c["side"] != "engine"}
    if {"specforge", "speculators"} <= producers:
        # producer_specforge's triton stand-in breaks speculators' flex attention (inductor
        # imports triton.Config) once both run in one process
        ap.error("SpecForge and speculators producer re-runs need separate --only invocations")
    doc: dict[str, Any] = (
        json.loads(args.out.read_text())
        if args.out.exists()
        else {"schema_version": SCHEMA_VERSION, "changes": []}
    )
    by_engine: dict[str, list[str]] = {}
    for change in chosen:
        print(f"== {label(change)} on {change['drafter']}", flush=True)
        vdir = setup(change, args.work, plan)
        for key in change["engines"]:
            if not (vdir / f"{key}.pt").exists():
                by_engine.setdefault(key, []).append(vdir.name)
    for key, names in sorted(by_engine.items()):
        engine, version = key.split("@")
        run_engine(engine, version, args.cache, args.work, names)
    records = {(c["drafter"], c["label"], c.get("on", "")): c for c in doc["changes"]}
    for change in chosen:
        base_prod: ProducerRun = torch.load(
            base_of(change, args.work, plan) / "producer.pt", weights_only=False
        )
        prod: ProducerRun = torch.load(args.work / slug(change) / "producer.pt", weights_only=False)
        record = {k: change[k] for k in ("drafter", "side", "why", "engine_code", "engines")}
        record |= {k: change[k] for k in KINDS if k in change}
        record["label"] = label(change)
        record["producer_logits_moved"] = _max_diff(base_prod.logits, prod.logits)
        for optional in ("on", "cause"):
            if optional in change:
                record[optional] = change[optional]
        record["results"] = {key: result(change, args.work, key, plan) for key in change["engines"]}
        for key, r in record["results"].items():
            b, a = r.get("before", {}), r.get("after", {})
            print(
                f"   {key}: {b.get('top1_agree')}/{b.get('positions')} -> "
                f"{a.get('top1_agree')}/{a.get('positions')} ({r['verdict']})",
                flush=True,
            )
        records[(change["drafter"], record["label"], change.get("on", ""))] = record
    doc["changes"] = [records[k] for k in sorted(records)]
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
