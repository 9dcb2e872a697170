"""Agreement between `eagle3-inspect validate --engine E@V` and the engine ground truth: for every
drafter x engine version in engine_truth.json, does validate report an error exactly when the
engine refuses the drafter, fails to load it, or drops / leaves at init a weight?

Run in the project's venv (it calls the installed `eagle3-inspect`):
    python tools/engine_truth/agreement.py --truth tools/engine_truth/engine_truth.json \
        --drafter-root corpus=tests/corpus --drafter-root demo=DIR ... [--markdown OUT.md]
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

# Left at init but replaced by the target's at runtime / not used by the forward pass: the
# engines share the target's embedding (SGLang set_embed, vLLM has_own_embed_tokens=False);
# t2d is never consumed by either engine.
BENIGN_UNLOADED = ("embed_tokens.weight",)
BENIGN_DROPPED = ("t2d",)


def _few(names: list[str]) -> str:
    return ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")


def engine_says_harm(result: dict) -> tuple[bool, str]:
    """(harmful, short reason) for one engine record."""
    if result["verdict"] != "LOADED":
        return True, f"{result['verdict']}: {result['why']['exception'][:80]}"
    dropped = [n for n in result["dropped"] if n not in BENIGN_DROPPED]
    unloaded = [n for n in result["never_loaded"] if not n.endswith(BENIGN_UNLOADED)]
    if dropped or unloaded:
        return (
            True,
            f"LOADED, dropped {_few(dropped)}, never loaded {_few(unloaded)}",
        )
    return False, "LOADED as trained"


def validate_errors(path: Path, engine: str) -> list[str]:
    """Error codes `eagle3-inspect validate --engine engine` reports on `path`."""
    run = subprocess.run(
        ["eagle3-inspect", "validate", "--engine", engine, "--json", "--no-stats", str(path)],
        capture_output=True,
        text=True,
    )
    if run.returncode == 2 or not run.stdout.strip():
        return [f"exit {run.returncode}: {run.stderr.strip()[:80]}"]
    findings = json.loads(run.stdout)["findings"]
    return sorted({f["code"] for f in findings if f["severity"] == "error"})


def main() -> None:
    """Prints (and optionally writes) the agreement table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", type=Path, required=True)
    ap.add_argument("--drafter-root", action="append", default=[])
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args()
    roots = dict(spec.split("=", 1) for spec in args.drafter_root)
    truth = json.loads(args.truth.read_text())
    rows, agree, total = [], 0, 0
    for name, entry in sorted(truth["drafters"].items()):
        label, _, rel = name.partition("/")
        if label not in roots:
            continue
        for key, result in sorted(entry["results"].items()):
            if result["verdict"] == "NOT-MODELLED":
                continue
            harm, why = engine_says_harm(result)
            errors = validate_errors(Path(roots[label]) / rel, key)
            ok = harm == bool(errors)
            agree += ok
            total += 1
            kind = "agree" if ok else ("FALSE ERROR" if errors else "MISSED")
            rows.append(f"| {name} | {key} | {why} | {', '.join(errors) or '-'} | {kind} |")
            print(rows[-1], flush=True)
    table = [
        "| drafter | engine | engine ground truth | validate errors | agreement |",
        "|---|---|---|---|---|",
        *rows,
    ]
    summary = f"\n{agree}/{total} agree"
    print(summary)
    if args.markdown:
        args.markdown.write_text("\n".join(table) + summary + "\n")


if __name__ == "__main__":
    main()
