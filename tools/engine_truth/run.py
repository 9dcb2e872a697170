"""Engine ground truth: run the engines' own EAGLE-3 config and load code over drafter
checkpoints and write `engine_truth.json` (see README.md beside this file).

Usage (in a venv with CPU torch, transformers and safetensors; never the project's venv):
    python tools/engine_truth/run.py --drafter-root /path/to/corpus --drafter DIR ... \
        --sglang 0.5.8 0.5.9 --vllm 0.11.0 0.33.0 [--cache DIR] [--out engine_truth.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# The load harness ships in the package (eagle3_inspect.installed.harness); this venv does not
# have the package installed, so the checkout's python/ goes on the path (no _native needed).
sys.path.insert(1, str(HERE.parents[1] / "python"))

from eagle3_inspect.installed.harness import stub_imports  # noqa: E402
from eagle3_inspect.installed.harness.drafter import read_drafter  # noqa: E402

# DRIVERS: each engine's family dispatcher; scrub: machine paths out of a record.
from eagle3_inspect.installed.harness.load import DRIVERS, run_load, scrub  # noqa: E402
from eagle3_inspect.installed.harness.sources import DEFAULT_CACHE, open_wheel  # noqa: E402

SCHEMA_VERSION = 1
DRAFT_MARKERS = (
    "draft_vocab_size",
    "speculators_config",
    "eagle_config",
    "eagle_aux_hidden_state_layer_ids",
    "dflash_config",
)
# Drafters under the roots that are not recorded: their fault is in values the loaders copy
# without reading (the demo's mislabelled drafter stores absolute d2t ids, VM006), which a
# load-level harness cannot judge; harm.py would call its clean load "no harm".
NOT_RECORDED = {"demo/drafter-mislabelled"}


def find_drafters(root: Path) -> list[Path]:
    """Every directory under `root` holding a draft config.json and at least one .safetensors file
    (a config with no draft marker, such as the demo's target, is not a drafter)."""
    found = []
    for path in sorted(root.rglob("config.json")):
        config = json.loads(path.read_text())
        arch = " ".join(config.get("architectures") or [])
        marked = any(k in config for k in DRAFT_MARKERS) or any(
            word in arch for word in ("agle", "Speculator", "DFlash")
        )
        if marked and any(path.parent.glob("*.safetensors")):
            found.append(path.parent)
    return found


def main(argv: list[str] | None = None) -> int:
    """Runs every drafter x engine version and writes the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--drafter-root",
        action="append",
        default=[],
        help="LABEL=DIR: every drafter under DIR, named LABEL/<relative path>",
    )
    ap.add_argument("--sglang", nargs="*", default=[])
    ap.add_argument("--vllm", nargs="*", default=[])
    ap.add_argument(
        "--speculators",
        action="store_true",
        help="also load each drafter with the installed speculators",
    )
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--out", type=Path, default=HERE / "engine_truth.json")
    ap.add_argument(
        "--merge",
        action="store_true",
        help="keep results already in --out for other drafters/engines",
    )
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    stub_imports.install()
    drafters = []
    for spec in args.drafter_root:
        label, _, root = spec.partition("=")
        for path in find_drafters(Path(root)):
            name = f"{label}/{path.relative_to(root)}".rstrip("/.")
            if name not in NOT_RECORDED:
                drafters.append((name, path))
    wheels = {(e, v): open_wheel(e, v, args.cache) for e in DRIVERS for v in getattr(args, e)}
    doc = json.loads(args.out.read_text()) if args.merge and args.out.exists() else {}
    out = {
        "schema_version": SCHEMA_VERSION,
        "generated_by": "tools/engine_truth/run.py",
        "engine_versions": doc.get("engine_versions", {}),
        "drafters": doc.get("drafters", {}),
        "engine_evidence": doc.get("engine_evidence", {}),
        "opaque_names": doc.get("opaque_names", {}),
    }
    if args.speculators:
        import speculators_truth

        wheels_versions = out["engine_versions"].setdefault("speculators", [])
        if speculators_truth.version() not in wheels_versions:
            wheels_versions.append(speculators_truth.version())
    for engine, version in wheels:
        known = out["engine_versions"].setdefault(engine, [])
        if version not in known:
            known.append(version)
    for name, path in drafters:
        drafter = read_drafter(path, name)
        entry = out["drafters"].setdefault(name, {"results": {}})
        entry["tensors"] = drafter.summary()
        entry["config_keys"] = sorted(drafter.config)
        for (engine, version), wheel in wheels.items():
            result = run_load(path, wheel)  # the installed-engine worker's path too
            entry["results"][f"{engine}@{version}"] = result
            print(
                f"{name:50s} {engine}@{version:8s} {result['verdict']:12s} {_why(result)}",
                flush=True,
            )
        if args.speculators:
            import speculators_truth

            result = scrub(speculators_truth.run(drafter), path)
            entry["results"][f"speculators@{result['version']}"] = result
            print(
                f"{name:50s} speculators@{result['version']:8s} "
                f"{result['verdict']:12s} {_why(result)}",
                flush=True,
            )
    hoist_shared(out)
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True, default=str) + "\n")
    print(f"wrote {args.out}")
    return 0


def hoist_shared(out: dict) -> None:
    """Moves what every result of one engine version shares out of the per-drafter records:
    evidence entries with the same text in all of them (to `engine_evidence`) and the
    unmodelled names (to `opaque_names`, the union)."""
    by_key: dict[str, list[dict]] = {}
    for entry in out["drafters"].values():
        for key, result in entry["results"].items():
            by_key.setdefault(key, []).append(result)
    out.setdefault("engine_evidence", {})
    out.setdefault("opaque_names", {})
    for key, results in by_key.items():
        names = set(out["opaque_names"].get(key, []))
        for result in results:
            names.update(result.pop("opaque_names", []))
        out["opaque_names"][key] = sorted(names)
        shared = dict(out["engine_evidence"].get(key, {}))
        fields = {f for r in results for f in r.get("evidence", {})}
        for field in fields:
            texts = {r["evidence"].get(field) for r in results if "evidence" in r}
            texts.discard(None)
            if len(texts) == 1:  # the same text wherever the field was recorded
                shared[field] = texts.pop()
        for result in results:
            ev = result.get("evidence", {})
            for field, text in shared.items():
                if ev.get(field) == text:
                    del ev[field]
        out["engine_evidence"][key] = shared


def _why(result: dict) -> str:
    if result["verdict"] == "LOADED":
        counts = f"dropped={len(result['dropped'])} never_loaded={len(result['never_loaded'])}"
        return f"{counts} fc_in={result.get('fc_in_features')} aux={result.get('aux_layer_ids')}"
    return result["why"]["exception"][:120]


if __name__ == "__main__":
    raise SystemExit(main())
