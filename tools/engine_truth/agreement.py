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
from pathlib import Path

from eagle3_inspect.installed.harm import compared, engine_says_harm


def validate_errors(path: Path, engine: str) -> list[str]:
    """Error codes `eagle3-inspect validate --engine engine --no-stats` reports on `path`
    (the same API the CLI calls, in-process)."""
    from eagle3_inspect.commands.validate import validate

    try:
        findings = validate(path, engine=engine, stats=False).to_dict()["findings"]
    except Exception as exc:  # "could not run" is a result here too
        return [f"could not run: {type(exc).__name__}: {exc}"[:100]]
    return sorted({f["code"] for f in findings if f["severity"] == "error"})


def main() -> None:
    """Prints (and optionally writes) the agreement table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", type=Path, required=True)
    ap.add_argument("--drafter-root", action="append", default=[])
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--validate-cache", type=Path, help="JSON of validate error codes per row")
    args = ap.parse_args()
    roots = dict(spec.split("=", 1) for spec in args.drafter_root)
    truth = json.loads(args.truth.read_text())
    rows, agree, total = [], 0, 0
    cache_path = args.validate_cache
    cache = json.loads(cache_path.read_text()) if cache_path and cache_path.exists() else {}
    for name, entry in sorted(truth["drafters"].items()):
        label, _, rel = name.partition("/")
        if label not in roots:
            continue
        for key, result in sorted(entry["results"].items()):
            if not compared(result):
                continue
            path = Path(roots[label]) / rel
            config = json.loads((path / "config.json").read_text())
            harm, why = engine_says_harm(result, config, entry["tensors"])
            if f"{name} {key}" not in cache:
                cache[f"{name} {key}"] = validate_errors(path, key)
            errors = cache[f"{name} {key}"]
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
    if cache_path:
        cache_path.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
    summary = f"\n{agree}/{total} agree"
    print(summary)
    if args.markdown:
        args.markdown.write_text("\n".join(table) + summary + "\n")


if __name__ == "__main__":
    main()
