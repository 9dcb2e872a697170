"""Engine truth for `fix` outputs: every output `fix_outputs.py` wrote (and the source of every
NOTHING TO DO) loaded with the engine version it was fixed for, by the same drivers as `run.py`
(the engines' own code, run unchanged), into `fix_truth.json` beside `engine_truth.json`.

Usage (the truth venv: CPU torch, transformers, safetensors, speculators):
    python tools/engine_truth/fix_truth.py --outputs /tmp/fix_outputs [--out fix_truth.json] \
        [--merge]

`--merge` keeps the runs and judgements already in `--out` for every drafter the outputs do not
cover (`fix_outputs.py --drafter ...`), so new corpus drafters are judged without re-judging the
rest.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parents[1] / "python"))  # eagle3_inspect.installed.harness

from run import DRIVERS, hoist_shared, scrub  # noqa: E402

from eagle3_inspect.installed.harness import stub_imports  # noqa: E402
from eagle3_inspect.installed.harness.drafter import read_drafter  # noqa: E402
from eagle3_inspect.installed.harness.sources import DEFAULT_CACHE, open_wheel  # noqa: E402

SCHEMA_VERSION = 1
KEPT = ("status", "exit_code", "refusal", "fingerprint")


def judge(path: Path, name: str, engine: str, version: str, wheels: dict) -> dict:
    """The engine's record for the drafter at `path` (scrubbed of machine paths)."""
    drafter = read_drafter(path, name)
    if engine == "speculators":
        import speculators_truth

        if speculators_truth.version() != version:
            raise SystemExit(
                f"speculators {speculators_truth.version()} installed, {version} asked"
            )
        result = speculators_truth.run(drafter)
    else:
        if (engine, version) not in wheels:
            wheels[engine, version] = open_wheel(engine, version, DEFAULT_CACHE)
        result = DRIVERS[engine](drafter, wheels[engine, version], version)
    return scrub(result, path) | {"tensors": drafter.summary(), "config": drafter.config}


def judged_key(run_key: str, fingerprint: str) -> str:
    """Runs that planned the same output for the same drafter and engine version share one
    judgement (with and without --target often do)."""
    drafter, spec, _mode = run_key.split(" ")
    return f"{drafter} {spec} {fingerprint}"


def kept_rows(doc: dict, drafters: set[str]) -> dict:
    """The part of a committed fix_truth.json about drafters other than `drafters`."""
    return {
        "runs": {k: v for k, v in doc["runs"].items() if k.split(" ")[0] not in drafters},
        "judged": {k: v for k, v in doc["judged"].items() if k.split(" ")[0] not in drafters},
        "engine_evidence": doc["engine_evidence"],
        "opaque_names": doc["opaque_names"],
    }


def merged(kept: dict, judged: dict) -> dict:
    """`judged` added to the kept judgements without changing what those read: the unmodelled
    names join each engine version's union, and a new record drops only the evidence fields
    whose text is the kept shared text (the rest stays in the record, not hoisted, so no kept
    record gains a field it never had)."""
    evidence = kept["engine_evidence"]
    opaque = {key: set(names) for key, names in kept["opaque_names"].items()}
    for entry in judged.values():
        for key, result in entry["results"].items():
            opaque.setdefault(key, set()).update(result.pop("opaque_names", []))
            shared = evidence.get(key, {})
            ev = result.get("evidence", {})
            for field in [f for f in ev if f in shared and ev[f] == shared[f]]:
                del ev[field]
    return {
        "drafters": kept["judged"] | judged,
        "engine_evidence": evidence,
        "opaque_names": {key: sorted(names) for key, names in opaque.items()},
    }


def main(argv: list[str] | None = None) -> int:
    """Judges every distinct output of the manifest and writes the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--outputs", type=Path, required=True, help="fix_outputs.py --out DIR")
    ap.add_argument("--out", type=Path, default=HERE / "fix_truth.json")
    ap.add_argument("--merge", action="store_true", help="keep --out's rows for other drafters")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    stub_imports.install()
    manifest = json.loads((args.outputs / "manifest.json").read_text())
    runs: dict[str, dict] = {}
    judged: dict[str, dict] = {}
    wheels: dict = {}
    for key, row in sorted(manifest.items()):
        drafter, spec, _mode = key.split(" ")
        engine, version = spec.split("@")
        runs[key] = {k: row[k] for k in KEPT if k in row}
        if "path" not in row:
            print(f"{key:72s} {row['status']}", flush=True)
            continue
        shared = judged_key(key, row["fingerprint"])
        runs[key]["judged"] = shared
        if shared not in judged:
            path = Path(row["path"])
            record = judge(path, drafter, engine, version, wheels)
            judged[shared] = {
                "source_judged": row["status"] != "fixed",
                "tensors": record.pop("tensors"),
                "config": scrub(record.pop("config"), path),
                "results": {spec: record},
            }
        verdict = judged[shared]["results"][spec]["verdict"]
        print(f"{key:72s} {row['status']:14s} {verdict}", flush=True)
    out = {"drafters": judged, "engine_evidence": {}, "opaque_names": {}}
    if args.merge:
        kept = kept_rows(json.loads(args.out.read_text()), {k.split(" ")[0] for k in manifest})
        runs = kept["runs"] | runs
        out = merged(kept, judged)
    else:
        hoist_shared(out)
    doc = {
        "schema_version": SCHEMA_VERSION,
        "generated_by": "tools/engine_truth/fix_truth.py",
        "runs": runs,
        "judged": out["drafters"],
        "engine_evidence": out["engine_evidence"],
        "opaque_names": out["opaque_names"],
    }
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True, default=str) + "\n")
    print(f"wrote {args.out}: {len(runs)} runs, {len(judged)} distinct outputs judged")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
