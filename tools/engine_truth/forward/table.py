"""The "computes as trained" matrix and the rules' run data, generated from the committed forward
and capture truth (`forward_truth.json`, `capture_truth.json`); no torch needed.

    python tools/engine_truth/forward/table.py --write   # docs/computes-as-trained.md + rules data

`tests/test_forward_truth.py` regenerates both and fails when the committed files differ.

The rules' data (`python/eagle3_inspect/rules/en/forward_runs.toml`) says, per engine version
whose capture was run and per config format (`speculators`: a `speculators_config`; `hf`: the
SGLang / SpecForge / Model-Optimizer layout with `eagle_config`), whether the aux states that
engine feeds are the ones the format's producers trained on, with ids (`ids`) and without
(`default`): `as-trained` when every corpus drafter of that kind matched, `one-layer-off` when
every one differed, absent otherwise (the rules then keep their guess and say so)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
TRUTH = HERE.parent
DOC = REPO / "docs" / "computes-as-trained.md"
RULES = REPO / "python" / "eagle3_inspect" / "rules" / "en" / "forward_runs.toml"
BEGIN = "<!-- BEGIN GENERATED: tools/engine_truth/forward/table.py -->"
END = "<!-- END GENERATED -->"


def config_format(name: str) -> str:
    """`speculators` or `hf`: how the corpus drafter's config is laid out."""
    config = json.loads((REPO / "tests" / "corpus" / name / "config.json").read_text())
    return "speculators" if "speculators_config" in config else "hf"


def config_ids(name: str) -> list[int] | None:
    """Aux layer ids the drafter's config gives anywhere (top level or eagle_config)."""
    config = json.loads((REPO / "tests" / "corpus" / name / "config.json").read_text())
    nested = (config.get("eagle_config") or {}).get("eagle_aux_hidden_state_layer_ids")
    return config.get("eagle_aux_hidden_state_layer_ids", nested)


def _load(name: str) -> dict[str, Any]:
    return dict(json.loads((TRUTH / name).read_text()))


def _cell(result: dict[str, Any] | None, capture: dict[str, Any] | None, trained: list[int]) -> str:
    if result is None:
        return "not run"
    verdict = result["verdict"]
    if "comparison" not in result:
        return verdict
    c = result["comparison"]
    text = f"{c['top1_agree']}/{c['positions']} (max {c['max_abs_logit_diff']:.1e})"
    if capture is None or "engine_boundaries" not in capture:
        return text + "; aux: capture not run"
    if capture["engine_boundaries"] == trained:
        return text + "; aux as trained"
    return text + f"; **aux off: fed {capture['engine_boundaries']}, trained {trained}**"


def matrix(forward: dict[str, Any], capture: dict[str, Any]) -> str:
    """The markdown table: drafter rows x engine-version columns."""
    keys = sorted(
        {k for d in forward["drafters"].values() for k in d.get("results", {})},
        key=lambda k: (k.split("@")[0], [int(x) for x in k.split("@")[1].split(".")]),
    )
    lines = [
        "| drafter | producer forward | " + " | ".join(keys) + " |",
        "|---|---|" + "---|" * len(keys),
    ]
    for name, record in sorted(forward["drafters"].items()):
        if "producer" not in record:
            lines.append(f"| {name} | not run: {record['error']['exception'][:80]} |")
            continue
        prod = record["producer"]
        head = f"{prod['producer']} {prod['version']}, aux stream {prod['aux_boundaries']}"
        caps = capture["drafters"].get(name, {})
        trained = prod["aux_boundaries"]
        cells = [_cell(record["results"].get(k), caps.get(k), trained) for k in keys]
        lines.append(f"| {name} | {head} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def rules_data(forward: dict[str, Any], capture: dict[str, Any]) -> dict[str, Any]:
    """engine@version -> format -> {"ids" | "default": verdict, evidence}."""
    seen: dict[str, dict[str, dict[str, list[tuple[str, bool]]]]] = {}
    for name, rows in capture["drafters"].items():
        if "producer" not in forward["drafters"].get(name, {}):
            continue
        trained = forward["drafters"][name]["producer"]["aux_boundaries"]
        fmt = config_format(name)
        for key, row in rows.items():
            if "engine_boundaries" not in row:
                continue
            if row["ids"] is None and config_ids(name) is not None:
                continue  # ids the engine does not read (EN003's case), not its default's
            kind = "default" if row["ids"] is None else "ids"
            seen.setdefault(key, {}).setdefault(fmt, {}).setdefault(kind, []).append(
                (name, row["engine_boundaries"] == trained)
            )
    out: dict[str, Any] = {}
    for key, formats in sorted(seen.items()):
        for fmt, kinds in sorted(formats.items()):
            for kind, rows in sorted(kinds.items()):
                matched = {m for _, m in rows}
                if len(matched) != 1:
                    continue
                top1 = [
                    forward["drafters"][n]["results"].get(key, {}).get("comparison", {})
                    for n, _ in rows
                ]
                agree = sum(c.get("top1_agree", 0) for c in top1)
                total = sum(c.get("positions", 0) for c in top1)
                out.setdefault(key, {}).setdefault(fmt, {})[kind] = {
                    "verdict": "as-trained" if matched == {True} else "one-layer-off",
                    "drafters": sorted(n for n, _ in rows),
                    "top1_on_trained_inputs": f"{agree}/{total}",
                    "capture": sorted({capture["drafters"][n][key]["capture"] for n, _ in rows}),
                }
    return out


def rules_toml(data: dict[str, Any]) -> str:
    """forward_runs.toml text (hand-written: tomllib only reads)."""
    lines = [
        "# GENERATED by tools/engine_truth/forward/table.py from tools/engine_truth/",
        "# forward_truth.json and capture_truth.json. Do not edit: re-run the harness, then it.",
        "",
    ]
    for key, formats in data.items():
        for fmt, kinds in formats.items():
            for kind, item in kinds.items():
                lines.append(f'[runs."{key}".{fmt}.{kind}]')
                for field in ("verdict", "top1_on_trained_inputs"):
                    lines.append(f"{field} = {json.dumps(item[field])}")
                for field in ("drafters", "capture"):
                    lines.append(f"{field} = {json.dumps(item[field])}")
                lines.append("")
    return "\n".join(lines)


def document(forward: dict[str, Any], capture: dict[str, Any], current: str) -> str:
    """`current` with its generated section replaced."""
    start, end = current.index(BEGIN), current.index(END)
    return current[: start + len(BEGIN)] + "\n" + matrix(forward, capture) + current[end:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="update the doc and the rules data")
    args = ap.parse_args(argv)
    forward, capture = _load("forward_truth.json"), _load("capture_truth.json")
    doc = document(forward, capture, DOC.read_text())
    toml = rules_toml(rules_data(forward, capture))
    if args.write:
        DOC.write_text(doc)
        RULES.write_text(toml)
    else:
        sys.stdout.write(doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
