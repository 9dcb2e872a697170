"""The "computes as trained" matrix, the single-change table, the README's summary and the rules'
run data, generated from the committed forward, capture and attribution truth
(`forward_truth.json`, `capture_truth.json`, `forward_attribution.json`); no torch needed.

    python tools/engine_truth/forward/table.py --write   # docs, README summary, rules data

`tests/test_forward_truth.py` regenerates them and fails when the committed files differ.

The rules' data (`python/eagle3_inspect/rules/en/forward_runs.toml`) says, per engine version
whose capture was run and per config format (`speculators`: a `speculators_config`; `hf`: the
SGLang / SpecForge / Model-Optimizer layout with `eagle_config`), whether the aux states that
engine feeds are the ones the format's producers trained on, with ids (`ids`), without (`default`)
and with ids stated null (`null`, as speculators 0.3 writes them: what it trained on is its
release's own default, so that case also names the `writers`, the configs' `speculators_version`
values, and covers only those): `as-trained` when every corpus drafter of that kind matched,
`one-layer-off` when every one differed, absent otherwise (the rules then keep their guess and
say so). Its `[flags]`
tables (flag_runs.py) say per engine version, format and norm flag value whether the draft
forward computes as trained (`as-trained`) or a single-change re-run showed the value is what
makes it differ (`differs`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from flag_runs import flag_runs  # noqa: E402

REPO = HERE.parents[2]
TRUTH = HERE.parent
DOC = REPO / "docs" / "computes-as-trained.md"
RULES = REPO / "python" / "eagle3_inspect" / "rules" / "en" / "forward_runs.toml"
BEGIN = "<!-- BEGIN GENERATED: tools/engine_truth/forward/table.py -->"
END = "<!-- END GENERATED -->"
ATTR_BEGIN = "<!-- BEGIN GENERATED: tools/engine_truth/forward/table.py attribution -->"
ATTR_END = "<!-- END GENERATED attribution -->"
README = REPO / "README.md"
SUMMARY_BEGIN = "<!-- computes-as-trained:begin (tools/engine_truth/forward/table.py) -->"
SUMMARY_END = "<!-- computes-as-trained:end -->"


def config_format(name: str) -> str:
    """`speculators` or `hf`: how the corpus drafter's config is laid out."""
    config = json.loads((REPO / "tests" / "corpus" / name / "config.json").read_text())
    return "speculators" if "speculators_config" in config else "hf"


def config_ids(name: str) -> list[int] | None:
    """Aux layer ids the drafter's config gives anywhere (top level or eagle_config)."""
    config = json.loads((REPO / "tests" / "corpus" / name / "config.json").read_text())
    nested = (config.get("eagle_config") or {}).get("eagle_aux_hidden_state_layer_ids")
    return config.get("eagle_aux_hidden_state_layer_ids", nested)


def states_null_ids(name: str) -> bool:
    """Whether the drafter's config writes `eagle_aux_hidden_state_layer_ids` as an explicit null
    (top level or eagle_config) and gives ids nowhere."""
    config = json.loads((REPO / "tests" / "corpus" / name / "config.json").read_text())
    nested = config.get("eagle_config") or {}
    stated = "eagle_aux_hidden_state_layer_ids" in config or (
        "eagle_aux_hidden_state_layer_ids" in nested
    )
    return stated and config_ids(name) is None


def writer_version(name: str) -> str | None:
    """The `speculators_version` the drafter's config records (None for other writers)."""
    config = json.loads((REPO / "tests" / "corpus" / name / "config.json").read_text())
    version = config.get("speculators_version")
    return None if version is None else str(version)


def target_class(forward: dict[str, Any], name: str) -> str:
    """The class of the verifier the drafter's runs used (the capture's target model)."""
    verifier = REPO / forward["drafters"][name]["inputs"]["verifier"] / "config.json"
    return str(json.loads(verifier.read_text())["architectures"][0])


def measured(row: dict[str, Any]) -> dict[str, Any]:
    """The capture row that measured the engine's boundaries: the row itself, or, where the
    verifier config as written stopped the engine's target before any capture (vLLM's
    DeepseekV3ForCausalLM over `kimi-k2-8l`: no routing fields, KeyError in load_weights), its
    `with_config` run (the published config's routing fields set; routing does not move which
    layer boundary a layer id captures). Its `capture` label names the fields set."""
    if "engine_boundaries" not in row and "engine_boundaries" in row.get("with_config", {}):
        return dict(row["with_config"])
    return row


def _load(name: str) -> dict[str, Any]:
    return dict(json.loads((TRUTH / name).read_text()))


def _cell(result: dict[str, Any] | None, capture: dict[str, Any] | None, trained: list[int]) -> str:
    if result is None:  # no draft forward; the capture alone still says what the engine feeds
        text = "not run"
        if capture is None or "engine_boundaries" not in capture:
            return text
    elif "comparison" not in result:
        return str(result["verdict"])
    else:
        c = result["comparison"]
        text = f"{c['top1_agree']}/{c['positions']} (max {c['max_abs_logit_diff']:.1e})"
    if capture is None or "engine_boundaries" not in capture:
        return text + "; aux: capture not run"
    if capture["engine_boundaries"] == trained:
        return text + "; aux as trained"
    return text + f"; **aux off: fed {capture['engine_boundaries']}, trained {trained}**"


def matrix(forward: dict[str, Any], capture: dict[str, Any]) -> str:
    """The markdown table: drafter rows x engine-version columns."""
    keys = _keys(forward)
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
        if "draft_error" in prod:  # aux measured, no logits to compare
            head += f"; draft module raised ({prod['draft_error']['exception'].split(':')[0]})"
        caps = {k: measured(row) for k, row in capture["drafters"].get(name, {}).items()}
        trained = prod["aux_boundaries"]
        cells = [_cell(record["results"].get(k), caps.get(k), trained) for k in keys]
        lines.append(f"| {name} | {head} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _engine_order(key: str) -> tuple[str, list[int]]:
    return key.split("@")[0], [int(x) for x in key.split("@")[1].split(".")]


def _keys(forward: dict[str, Any]) -> list[str]:
    return sorted(
        {k for d in forward["drafters"].values() for k in d.get("results", {})}, key=_engine_order
    )


def summary(forward: dict[str, Any], capture: dict[str, Any]) -> str:
    """The README's short form of the matrix: per producer x engine version, how many corpus
    drafters whose draft forward ran compute as trained (every draft token agrees and the
    engine's own capture feeds the trained aux states)."""
    keys = _keys(forward)
    rows: dict[str, dict[str, list[int]]] = {}
    unknown: set[tuple[str, str]] = set()
    for name, record in sorted(forward["drafters"].items()):
        if "producer" not in record:
            continue
        prod = record["producer"]
        row = rows.setdefault(f"{prod['producer']} {prod['version']}", {})
        for key in keys:
            counts = row.setdefault(key, [0, 0, 0])  # as trained, ran, not loaded
            if key not in record["results"]:
                continue  # no engine run (the MLA drafter's draft class: producer side only)
            result = record["results"][key]
            c = result.get("comparison")
            if c is None:
                counts[2] += 1
                continue
            counts[1] += 1
            cap = measured(capture["drafters"].get(name, {}).get(key, {}))
            if "engine_boundaries" not in cap:
                unknown.add((prod["producer"], key))
            aux_ok = cap.get("engine_boundaries", prod["aux_boundaries"]) == prod["aux_boundaries"]
            counts[0] += int(c["top1_agree"] == c["positions"] and aux_ok)
    lines = [
        "| producer | " + " | ".join(keys) + " |",
        "|---|" + "---|" * len(keys),
    ]
    for producer, row in rows.items():
        cells = []
        for key in keys:
            ok, ran, failed = row[key]
            text = f"{ok}/{ran}" if ran else "-"
            if failed:
                text += f" ({failed} not loaded)"
            if (producer.split()[0], key) in unknown:
                text += " *"
            cells.append(text)
        lines.append(f"| {producer} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "k/n: of n corpus drafters whose draft forward ran, k compute as trained (all draft tokens",
        "agree, the engine's capture feeds the trained aux states; *: capture not run for some).",
        "Per drafter, and what drives each difference: "
        "[docs/computes-as-trained.md](docs/computes-as-trained.md).",
    ]
    return "\n".join(lines) + "\n"


def rules_data(forward: dict[str, Any], capture: dict[str, Any]) -> dict[str, Any]:
    """engine@version -> format -> {"ids" | "default": verdict, evidence}."""
    seen: dict[str, dict[str, dict[str, list[tuple[str, bool]]]]] = {}
    for name, rows in capture["drafters"].items():
        if "producer" not in forward["drafters"].get(name, {}):
            continue
        trained = forward["drafters"][name]["producer"]["aux_boundaries"]
        fmt = config_format(name)
        for key, row in ((k, measured(r)) for k, r in rows.items()):
            if "engine_boundaries" not in row:
                continue
            if row["ids"] is None and config_ids(name) is not None:
                continue  # ids the engine does not read (EN003's case), not its default's
            kind = "null" if states_null_ids(name) else "default"
            kind = kind if row["ids"] is None else "ids"
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
                item = {
                    "verdict": "as-trained" if matched == {True} else "one-layer-off",
                    "targets": sorted({target_class(forward, n) for n, _ in rows}),
                    "drafters": sorted(n for n, _ in rows),
                    "top1_on_trained_inputs": f"{agree}/{total}",
                    "capture": sorted(
                        {measured(capture["drafters"][n][key])["capture"] for n, _ in rows}
                    ),
                }
                if kind == "null":  # the writer's own default: only those writers are covered
                    item["writers"] = sorted({str(writer_version(n)) for n, _ in rows})
                out.setdefault(key, {}).setdefault(fmt, {})[kind] = item
    return out


def rules_toml(data: dict[str, Any], flags: dict[str, Any]) -> str:
    """forward_runs.toml text (hand-written: tomllib only reads)."""
    lines = [
        "# GENERATED by tools/engine_truth/forward/table.py from tools/engine_truth/",
        "# forward_truth.json, capture_truth.json and forward_attribution.json. Do not edit:",
        "# re-run the harness, then it.",
        "",
    ]
    for key, formats in data.items():
        for fmt, kinds in formats.items():
            for kind, item in kinds.items():
                lines.append(f'[runs."{key}".{fmt}.{kind}]')
                for field in ("verdict", "top1_on_trained_inputs"):
                    lines.append(f"{field} = {json.dumps(item[field])}")
                for field in ("targets", "drafters", "capture", "writers"):
                    if field in item:
                        lines.append(f"{field} = {json.dumps(item[field])}")
                lines.append("")
    for key, formats in flags.items():
        for fmt, names in formats.items():
            for flag, values in names.items():
                for value, item in values.items():
                    lines.append(f'[flags."{key}".{fmt}.{flag}."{value}"]')
                    lines.append(f"verdict = {json.dumps(item['verdict'])}")
                    for field in ("drafters", "top1", "engine_code"):
                        if field in item:
                            lines.append(f"{field} = {json.dumps(item[field])}")
                    lines.append("")
    return "\n".join(lines)


def attribution_table(attribution: dict[str, Any]) -> str:
    """One row per single-change re-run and engine version: top-1 before -> after, and whether
    each side's own logits moved (0: that side ignores the change)."""
    lines = [
        "| drafter | change | engine | top-1 before | top-1 after (by step) | producer moved "
        "| engine moved |",
        "|---|---|---|---|---|---|---|",
    ]

    def moved(x: float | None) -> str:
        return "n/a" if x is None else ("0" if x == 0 else f"{x:.1e}")

    for change in attribution["changes"]:
        for key, r in sorted(change["results"].items(), key=lambda kv: _engine_order(kv[0])):
            b, a = r.get("before"), r.get("after")
            before = f"{b['top1_agree']}/{b['positions']}" if b else r["verdict"]
            after = (
                f"{a['top1_agree']}/{a['positions']} ({', '.join(map(str, a['top1_by_step']))})"
                if a
                else r["verdict"]
            )
            lines.append(
                f"| {change['drafter']} | {change['label']}"
                + (f" (on {change['on']})" if "on" in change else "")
                + f" | {key} | {before} | {after} | "
                f"{moved(change['producer_logits_moved'])} | "
                f"{moved(r.get('engine_logits_moved'))} |"
            )
    return "\n".join(lines) + "\n"


def _replace(current: str, begin: str, end: str, body: str) -> str:
    start, stop = current.index(begin), current.index(end)
    return current[: start + len(begin)] + "\n" + body + current[stop:]


def document(
    forward: dict[str, Any], capture: dict[str, Any], attribution: dict[str, Any], current: str
) -> str:
    """`current` with its generated sections (the matrix, the attribution runs) replaced."""
    text = _replace(current, BEGIN, END, matrix(forward, capture))
    return _replace(text, ATTR_BEGIN, ATTR_END, attribution_table(attribution))


def readme(forward: dict[str, Any], capture: dict[str, Any], current: str) -> str:
    """README.md with its generated computes-as-trained summary replaced."""
    return _replace(current, SUMMARY_BEGIN, SUMMARY_END, summary(forward, capture))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="update the docs and the rules data")
    args = ap.parse_args(argv)
    forward, capture = _load("forward_truth.json"), _load("capture_truth.json")
    attribution = _load("forward_attribution.json")
    doc = document(forward, capture, attribution, DOC.read_text())
    toml = rules_toml(rules_data(forward, capture), flag_runs(forward, attribution))
    page = readme(forward, capture, README.read_text())
    if args.write:
        DOC.write_text(doc)
        RULES.write_text(toml)
        README.write_text(page)
    else:
        sys.stdout.write(doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
