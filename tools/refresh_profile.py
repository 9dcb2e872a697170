"""Profile refresh (issue 25, item 5): what a new engine wheel changes against the newest
committed profile of that engine, measured by the existing truth pieces, written nowhere in
the repository.

For one wheel it runs, in this process:
- `gen_capture_lists.generate` (the target classes that capture aux states, per architecture
  convention), compared with the committed `<engine>.capture.toml` entry of the baseline version;
- `gen_config_contract.generate` (every config field the draft classes and adapters read, how,
  and what for), compared with the committed `contracts/<engine>-<baseline>.toml` (line numbers
  ignored);
- run.py's drivers over the drafters under `--drafter-root` (default: the corpus), compared
  field by field with the committed `engine_truth.json` results of the baseline version: the
  verdict and why, the tensors dropped / left at init (the names the loader maps), fc width,
  aux ids and their readers, and the other fields the harness records.

The baseline is the newest checked version of the engine's newest profile that the committed
truth holds. Needs torch (the truth venv) for the load part; `--no-load` skips it.

Usage: python tools/refresh_profile.py vllm==0.34.0 | path/to/vllm-0.34.0-...whl [--json]
Exit: 0 nothing changed (add the version to the profile's checked_versions), 1 something
changed (review the sections printed), 2 could not run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(ROOT / "python"))  # eagle3_inspect.installed.harness (sources: no torch)

import gen_capture_lists  # noqa: E402
import gen_config_contract  # noqa: E402
from config_contract.sources import WheelSource as ContractSource  # noqa: E402

from eagle3_inspect.installed.harness.sources import DEFAULT_CACHE, wheel_path  # noqa: E402

PROFILES = ROOT / "python/eagle3_inspect/rules/en/profiles"
TRUTH = HERE / "engine_truth" / "engine_truth.json"
ENGINES = ("sglang", "vllm")
# The fields of a load record the harness measures (outcome.py, the family drivers); evidence
# texts and opaque names describe the harness itself and are not compared.
LOAD_FIELDS = (
    "verdict", "resolved_architectures", "class", "method", "parallel_drafting",
    "num_speculative_tokens", "dropped", "never_loaded", "loaded_into_buffers",
    "loaded_by_value", "fc_in_features", "aux_layer_ids", "aux_layer_ids_from",
    "aux_layer_ids_by_runner", "d2t_consumed_as", "quant_method", "quantized_params",
    "dflash_target_layer_ids", "num_context_features", "block_size",
    "load_lm_head_from_target",
)  # fmt: skip
WHY_FIELDS = ("stage", "decided_by", "exception")
# Where a changed load field is decided in a profile (rules/en/profiles/README.md).
SECTIONS = {
    "dropped": "[families.<family>.names] (params, renames, required, dropped_when)",
    "never_loaded": "[families.<family>.names] (params, renames, required, dropped_when)",
    "loaded_into_buffers": "[families.<family>.names]",
    "loaded_by_value": "[families.<family>.names]",
    "fc_in_features": "[families.<family>.config] fc_aux_count",
    "aux_layer_ids": "[families.<family>.config] aux_layer_ids, aux_layer_runners",
    "aux_layer_ids_from": "[families.<family>.config] aux_layer_ids, aux_layer_runners",
    "aux_layer_ids_by_runner": "[[families.<family>.config.aux_layer_runners]]",
}
DEFAULT_SECTION = "[families.<family>] (draft_architectures, refusals) and its config"


class RefreshError(Exception):
    """The refresh could not run (bad spec, missing wheel, missing baseline)."""


@dataclass(frozen=True)
class Change:
    """One measured difference between the baseline version and the new one."""

    part: str  # "capture", "contract" or "load"
    subject: str  # architecture, contract entry, or drafter
    what: str  # the field or list that differs
    old: Any
    new: Any
    review: str  # the file / TOML section a maintainer reviews


def resolve_wheel(spec: str, cache: Path) -> tuple[str, str, Path]:
    """(engine, version, wheel) for `ENGINE==VERSION` (from `cache`, never downloaded) or a
    wheel path."""
    if spec.endswith(".whl"):
        wheel = Path(spec)
        engine, version = wheel.name.split("-")[:2]
    else:
        engine, sep, version = spec.partition("==")
        found = wheel_path(engine, version, cache) if sep else None
        if not sep:
            raise RefreshError(f"{spec!r}: expected ENGINE==VERSION or a .whl path")
        wheel = found or cache / f"{engine}-{version}-*.whl"
    if engine not in ENGINES:
        raise RefreshError(f"{spec!r}: engine must be one of {', '.join(ENGINES)}")
    if not wheel.is_file():
        raise RefreshError(
            f"no wheel {wheel}: pip download --no-deps -d {cache} {engine}=={version}"
        )
    return engine, version, wheel


def newest_profile(
    engine: str, truth_versions: Iterable[str], profiles: Path = PROFILES
) -> tuple[Path, str]:
    """The engine's profile with the highest min_version, and its newest checked version
    that the committed truth holds (the baseline)."""
    docs = [(p, tomllib.loads(p.read_text())) for p in sorted(profiles.glob(f"{engine}-*.toml"))]
    if not docs:
        raise RefreshError(f"no {engine} profile under {profiles}")
    key = gen_config_contract._version_key
    path, doc = max(docs, key=lambda d: key(str(d[1]["min_version"])))
    known = [v for v in doc.get("checked_versions", []) if v in set(truth_versions)]
    if not known:
        raise RefreshError(f"{path.name}: no checked version has committed engine truth")
    return path, max(known, key=key)


def capture_changes(engine: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Target classes that start or stop capturing, and changed SGLang capture conventions;
    `old` / `new` are one `[versions."V"]` table of `<engine>.capture.toml`."""
    review = f"profiles/{engine}.capture.toml (generated)"
    out: list[Change] = []
    before, after = (
        set(old.get("target_architectures", [])),
        set(new.get("target_architectures", [])),
    )
    for arch in sorted(before ^ after):
        out.append(Change("capture", arch, "captures", arch in before, arch in after, review))
    conv_old, conv_new = old.get("aux_layer_conventions", {}), new.get("aux_layer_conventions", {})
    for arch in sorted(set(conv_old) | set(conv_new)):
        a, b = conv_old.get(arch, "output-of"), conv_new.get(arch, "output-of")
        if a != b and arch in before & after:
            out.append(Change("capture", arch, "aux_layer_convention", a, b, review))
    return out


def contract_reads(version_table: Mapping[str, Any]) -> dict[str, set[str]]:
    """Per contract entry (`models.X` / `adapters.Y`), its reads as comparable strings: every
    read's keys but its line numbers (which move between releases)."""
    out: dict[str, set[str]] = {}
    for kind, entries in version_table.items():
        for name, entry in entries.items():
            reads = out.setdefault(f"{kind}.{name}", set())
            for function in entry.get("functions", []):
                where = function["at"].split(":", 1)[-1]
                for read in function.get("reads", []):
                    kept = {k: v for k, v in read.items() if k not in ("line", "use_line")}
                    reads.add(f"{where}: {json.dumps(kept, sort_keys=True)}")
    return out


def contract_changes(engine: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Entries added or removed, and per entry the fields read and reads that differ; `old` /
    `new` are one `[versions."V"]` table of a contract file."""
    review = (
        f"profiles/contracts/{engine}-<version>.toml (generated)"
        " and [families.<family>.config] reads"
    )
    a, b = contract_reads(old), contract_reads(new)
    out: list[Change] = []
    for entry in sorted(set(a) | set(b)):
        if entry not in a or entry not in b:
            out.append(Change("contract", entry, "entry", entry in a, entry in b, review))
            continue
        if a[entry] == b[entry]:
            continue
        fields_a, fields_b = _fields(a[entry]), _fields(b[entry])
        if fields_a != fields_b:
            out.append(
                Change(
                    "contract",
                    entry,
                    "fields",
                    sorted(fields_a - fields_b),
                    sorted(fields_b - fields_a),
                    review,
                )
            )
        out.append(
            Change(
                "contract",
                entry,
                "reads",
                sorted(a[entry] - b[entry]),
                sorted(b[entry] - a[entry]),
                review,
            )
        )
    return out


def _fields(reads: set[str]) -> set[str]:
    return {str(json.loads(r.split(": ", 1)[1])["field"]) for r in reads}


def _normalised(value: Any) -> Any:
    """Lists compared as sets of names; Python set reprs in messages sorted (their order is
    per process)."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return sorted(value)
    if isinstance(value, str):
        return re.sub(
            r"\{[^{}]*\}",
            lambda m: "{" + ", ".join(sorted(m.group(0)[1:-1].split(", "))) + "}",
            value,
        )
    return value


def load_changes(
    old: Mapping[str, Mapping[str, Any]], new: Mapping[str, Mapping[str, Any]]
) -> list[Change]:
    """Per drafter in both, every measured load field that differs (`old` / `new`: drafter
    name -> one engine version's record)."""
    out: list[Change] = []
    for name in sorted(set(old) & set(new)):
        a, b = old[name], new[name]
        for field in LOAD_FIELDS:
            x, y = _normalised(a.get(field)), _normalised(b.get(field))
            if x != y:
                out.append(Change("load", name, field, x, y, SECTIONS.get(field, DEFAULT_SECTION)))
        why_a, why_b = a.get("why") or {}, b.get("why") or {}
        for field in WHY_FIELDS:
            x, y = _normalised(why_a.get(field)), _normalised(why_b.get(field))
            if x != y:
                out.append(Change("load", name, f"why.{field}", x, y, DEFAULT_SECTION))
    return out


def measure_capture(engine: str, version: str, wheel: Path) -> dict[str, Any]:
    """The new wheel's `[versions."V"]` capture table, from gen_capture_lists."""
    return dict(tomllib.loads(gen_capture_lists.generate(engine, [wheel]))["versions"][version])


def measure_contract(engine: str, version: str, wheel: Path) -> dict[str, Any]:
    """The new wheel's `[versions."V"]` contract table, from gen_config_contract."""
    text = gen_config_contract.generate(engine, version, ContractSource(wheel), set())
    return dict(tomllib.loads(text)["versions"][version])


def measure_load(
    engine: str, version: str, wheel: Path, roots: list[str]
) -> dict[str, dict[str, Any]]:
    """run.py's driver for the new version over every drafter under `roots` (LABEL=DIR), each
    record scrubbed as run.py scrubs it."""
    try:
        sys.path.insert(0, str(HERE / "engine_truth"))
        import run  # needs torch: only this part

        from eagle3_inspect.installed.harness.sources import WheelSource
    except ImportError as exc:
        raise RefreshError(
            f"the load part needs the truth venv (torch): {exc}; or pass --no-load"
        ) from exc
    run.stub_imports.install()
    source = WheelSource(engine, version, wheel)
    out: dict[str, dict[str, Any]] = {}
    for spec in roots:
        label, _, root = spec.partition("=")
        for path in run.find_drafters(Path(root)):
            name = f"{label}/{path.relative_to(root)}".rstrip("/.")
            if name not in run.NOT_RECORDED:
                out[name] = run.run_load(path, source)
    return out


def refresh(
    spec: str, cache: Path, roots: list[str], load: bool, keep: Path | None
) -> dict[str, Any]:
    """Every change of the wheel `spec` against the newest profile's baseline version."""
    engine, version, wheel = resolve_wheel(spec, cache)
    truth = json.loads(TRUTH.read_text())
    profile, base = newest_profile(engine, truth["engine_versions"].get(engine, []))
    capture_old = tomllib.loads((PROFILES / f"{engine}.capture.toml").read_text())["versions"][base]
    contract_old = tomllib.loads((PROFILES / "contracts" / f"{engine}-{base}.toml").read_text())[
        "versions"
    ][base]
    capture_new = measure_capture(engine, version, wheel)
    contract_new = measure_contract(engine, version, wheel)
    changes = capture_changes(engine, capture_old, capture_new)
    changes += contract_changes(engine, contract_old, contract_new)
    measured: dict[str, Any] = {"capture": capture_new, "contract": contract_new}
    drafters = 0
    if load:
        key = f"{engine}@{base}"
        old = {n: e["results"][key] for n, e in truth["drafters"].items() if key in e["results"]}
        new = measure_load(engine, version, wheel, roots)
        drafters = len(set(old) & set(new))
        changes += load_changes(old, new)
        measured["load"] = new
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        for part, data in measured.items():
            (keep / f"{engine}-{version}.{part}.json").write_text(
                json.dumps(data, indent=1, sort_keys=True, default=str)
            )
    return {
        "schema_version": 1,
        "engine": engine,
        "version": version,
        "wheel": wheel.name,
        "profile": profile.name,
        "baseline": base,
        "compared": {
            "capture": True,
            "contract": True,
            "load_drafters": drafters if load else None,
        },
        "changes": [asdict(c) for c in changes],
        "review": sorted({c.review for c in changes}),
        "next_commands": next_commands(engine, version, profile.name, bool(changes), base),
    }


def next_commands(
    engine: str, version: str, profile: str, changed: bool, baseline: str | None = None
) -> list[str]:
    """The README's "How to add an engine version" steps for this version (`baseline`: the
    version compared against; an older version belongs in an older profile, not a new one)."""
    steps = [
        "python tools/gen_capture_lists.py --wheels ~/.cache/eagle3-inspect/engine_wheels",
        "python tools/gen_config_contract.py --wheels ~/.cache/eagle3-inspect/engine_wheels"
        " --speculators SITE_PACKAGES   # truth venv",
        f"python tools/engine_truth/run.py --merge --{engine} {version}"
        " --drafter-root corpus=tests/corpus --drafter-root demo=/tmp/truth_inputs/demo"
        " --drafter-root synthetic=/tmp/truth_inputs/synthetic   # truth venv",
        "python tools/engine_truth/matrix.py --write",
    ]
    key = gen_config_contract._version_key
    if baseline is not None and key(version) < key(baseline):
        last = (
            f"{version} is older than the baseline {baseline}: no new profile; the changes above"
            f" say how it differs from {profile}, so review the {engine} profile whose"
            " min_version / max_version range holds it (or add one) at those sections"
        )
    elif changed:
        last = (
            f"new python/eagle3_inspect/rules/en/profiles/{engine}-{version}.toml from"
            f' {profile}, reviewed at the sections above; max_version = "{version}" on {profile}'
        )
    else:
        last = f'add "{version}" to checked_versions in {PROFILES.relative_to(ROOT)}/{profile}'
    return [*steps, last, "python -m pytest tests/rules/en/test_differential.py -q"]


def render(report: Mapping[str, Any]) -> str:
    """The human report."""
    head = (
        f"{report['engine']} {report['version']} ({report['wheel']}) against {report['profile']}"
        f" (baseline {report['baseline']})"
    )
    load = report["compared"]["load_drafters"]
    lines = [
        head,
        f"compared: capture list, config contract, load over {load} drafters"
        if load is not None
        else "compared: capture list, config contract (load not run: --no-load)",
    ]
    changes = report["changes"]
    lines.append(f"{len(changes)} change(s)" if changes else "no change: the baseline's behaviour")
    for c in changes:
        lines.append(f"  [{c['part']}] {c['subject']}: {c['what']}")
        lines.append(f"      {report['baseline']}: {_short(c['old'])}")
        lines.append(f"      {report['version']}: {_short(c['new'])}")
    if changes:
        lines.append("review:")
        lines += [f"  {r}" for r in report["review"]]
    lines.append("next:")
    lines += [f"  {s}" for s in report["next_commands"]]
    return "\n".join(lines)


def _short(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + " ..."


def main(argv: list[str] | None = None) -> int:
    """Parses, runs, renders; exit 0 unchanged, 1 changed, 2 could not run."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheel", help="ENGINE==VERSION (a wheel in --cache) or a .whl path")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument(
        "--drafter-root",
        action="append",
        default=None,
        help="LABEL=DIR (default corpus=tests/corpus)",
    )
    ap.add_argument("--no-load", action="store_true", help="skip the load run (no torch needed)")
    ap.add_argument(
        "--keep", type=Path, help="write the new version's measurements here (outside the repo)"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    roots = args.drafter_root or [f"corpus={ROOT / 'tests/corpus'}"]
    try:
        report = refresh(args.wheel, args.cache, roots, not args.no_load, args.keep)
    except RefreshError as exc:
        print(f"refresh_profile: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1, default=str) if args.json else render(report))
    return 1 if report["changes"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
