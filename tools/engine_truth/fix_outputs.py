"""`fix` over the producer corpus, for the engine truth to judge: every corpus drafter x every
engine version the harness can run x with and without `--target`, written with the project's own
`fix` (run in the project's venv: no torch), plus `manifest.json` naming each output and its
fingerprint. `fix_truth.py` (the torch venv) then loads every FIXED output, and the source of
every NOTHING TO DO, with the engine version it was fixed for.

Usage (project venv):
    python tools/engine_truth/fix_outputs.py --out /tmp/fix_outputs \
        [--engine sglang@0.5.23 ...] [--drafter speculators-0.9.0-default ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from fingerprint import fix_fingerprint  # noqa: E402

CORPUS = ROOT / "tests/corpus"
# Every engine version with a wheel (tools/engine_truth/README.md) and speculators as installed
# in the truth venv: the versions the harness can judge a fix output with.
ENGINES = (
    *(f"sglang@{v}" for v in ("0.5.8", "0.5.9", "0.5.11", "0.5.12", "0.5.13", "0.5.14")),
    *(f"sglang@{v}" for v in ("0.5.15", "0.5.16", "0.5.23")),
    *(f"vllm@{v}" for v in ("0.11.0", "0.15.0", "0.17.0", "0.20.0", "0.21.0", "0.25.0")),
    *(f"vllm@{v}" for v in ("0.30.0", "0.33.0")),
    "speculators@0.9.0",
)
MODES = ("plain", "target")  # without / with --target <the drafter's corpus verifier>


def corpus_drafters() -> list[dict[str, Any]]:
    """The corpus manifest's drafter entries."""
    drafters: list[dict[str, Any]] = json.loads((CORPUS / "manifest.json").read_text())["drafters"]
    return drafters


def verifier_dir(entry: dict[str, Any]) -> Path:
    """The corpus verifier the drafter was trained against (its `--target`)."""
    verifiers = json.loads((CORPUS / "manifest.json").read_text())["verifiers"]
    return CORPUS / str(verifiers[entry["verifier"]["arch"]])


def row_key(drafter: str, engine: str, mode: str) -> str:
    """The key of one fix run in the manifest and in fix_truth.json."""
    return f"{drafter} {engine} {mode}"


def run_one(
    entry: dict[str, Any], engine: str, mode: str, out: Path, dry_run: bool = False
) -> dict[str, Any]:
    """One `fix` run into `out`: its status, refusal and fingerprint (a dry run plans the
    same and writes nothing; its `planned` is reported as `fixed`)."""
    from eagle3_inspect.commands.fix import fix

    src = CORPUS / entry["dir"]
    target = verifier_dir(entry) if mode == "target" else None
    report = fix(src, engine=engine, out=out, target=target, dry_run=dry_run)
    status = "fixed" if report.status == "planned" else report.status
    row: dict[str, Any] = {"status": status, "exit_code": report.exit_code}
    if report.refusal:
        row["refusal"] = report.refusal
    row["fingerprint"] = fix_fingerprint(report.to_dict(), target)
    if status == "fixed" and not dry_run:
        row["path"] = str(out)
    elif status == "nothing-to-do":
        row["path"] = str(src)
    return row


def main(argv: list[str] | None = None) -> int:
    """Writes every output and the manifest."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--engine", nargs="*", default=list(ENGINES))
    ap.add_argument("--drafter", nargs="*", default=None)
    args = ap.parse_args(argv)
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    rows: dict[str, dict[str, Any]] = {}
    for entry in corpus_drafters():
        if args.drafter and entry["dir"] not in args.drafter:
            continue
        for engine in args.engine:
            for mode in MODES:
                dst = args.out / entry["dir"] / engine.replace("@", "-") / mode
                dst.parent.mkdir(parents=True, exist_ok=True)
                row = run_one(entry, engine, mode, dst)
                rows[row_key(entry["dir"], engine, mode)] = row
                print(f"{entry['dir']:42s} {engine:18s} {mode:6s} {row['status']}", flush=True)
    (args.out / "manifest.json").write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} rows to {args.out / 'manifest.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
