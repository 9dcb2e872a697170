"""What the forward runs say about each norm flag, per engine version and config format: the
rules' data behind EN023 (a flag value the runs show changes what the draft computes) and behind
EN007's silence (a flag value the runs show harmless). Read from the committed
`forward_truth.json` and `forward_attribution.json`; no torch.

- `differs`: a single-change re-run (attribute.py, side `both` or `producer`) that changed only
  this flag (or the tensors its `cause` names) took the drafter from partial to full top-1
  agreement on that engine version, alone or with one more change measured on top of it: the
  drafter's value of the flag is a cause of the difference.
- `as-trained`: a corpus drafter that sets the flag to this value (or leaves it unset) agrees on
  every draft token with its producer on that engine version.
A value both ways (never seen so far) gets no verdict: the rules then keep their guess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "corpus"
NORM_FLAGS = ("norm_before_residual", "norm_before_fc", "fc_norm", "norm_output")
# Norm flags of one producer's export that no engine reads (Model-Optimizer's eagle_config).
PRODUCER_FLAGS = ("use_input_layernorm_in_first_layer",)
FLAGS = NORM_FLAGS + PRODUCER_FLAGS
UNSET = "unset"


def corpus_config(name: str) -> dict[str, Any]:
    return dict(json.loads((CORPUS / name / "config.json").read_text()))


# Fields only speculators writes: an hf-layout config carrying one was converted from a
# speculators drafter (fix does that), whose norm flags mean what speculators means by them.
SPECULATORS_FIELDS = ("embed_requires_grad", "speculators_version", "speculators_model_type")


def config_format(config: dict[str, Any]) -> str:
    """`speculators` (a speculators_config), `hf-from-speculators` (the hf layout with
    speculators' own fields) or `hf` (the SGLang / SpecForge / Model-Optimizer layout): a norm
    flag's meaning is its writer's (SpecForge's norm_output is not speculators')."""
    if "speculators_config" in config:
        return "speculators"
    return "hf-from-speculators" if any(f in config for f in SPECULATORS_FIELDS) else "hf"


def flag_value(config: dict[str, Any], flag: str) -> str:
    """The flag as the config states it (top level, else eagle_config): `true`, `false`, unset."""
    for where in (config, config.get("eagle_config") or {}):
        if flag in where:
            return json.dumps(bool(where[flag]))
    return UNSET


def full(c: dict[str, Any] | None) -> bool:
    return c is not None and c["positions"] > 0 and c["top1_agree"] == c["positions"]


def _harmless(forward: dict[str, Any]) -> dict[tuple[str, str, str, str], list[dict[str, Any]]]:
    seen: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for name, record in sorted(forward["drafters"].items()):
        if "producer" not in record or record["producer"]["producer"] == "modelopt":
            continue  # Model-Optimizer: flags live in its own config, not the exported one
        config = corpus_config(name)
        for key, result in sorted(record["results"].items()):
            c = result.get("comparison")
            if not full(c):
                continue
            for flag in FLAGS:
                item = {
                    "drafter": name,
                    "top1": f"{c['top1_agree']}/{c['positions']}",
                    "how": "forward_truth.json",
                }
                seen.setdefault((key, config_format(config), flag, flag_value(config, flag)), [])
                seen[(key, config_format(config), flag, flag_value(config, flag))].append(item)
    return seen


def _completed(attribution: dict[str, Any], change: dict[str, Any], key: str) -> bool:
    """Whether a change measured on top of this one (`on`) reaches full agreement on `key`:
    then this change is one of the causes even though it alone does not."""
    return any(
        c["drafter"] == change["drafter"]
        and c.get("on") == change["label"]
        and full(c["results"].get(key, {}).get("after"))
        for c in attribution["changes"]
    )


def _differs(attribution: dict[str, Any]) -> dict[tuple[str, str, str, str], list[dict[str, Any]]]:
    seen: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for change in attribution["changes"]:
        field = change.get("cause") or (
            next(iter(change["set"])) if "set" in change else change.get("unset")
        )
        if field not in FLAGS or change["side"] == "engine" or "on" in change:
            continue
        config = corpus_config(change["drafter"])
        for key, r in sorted(change["results"].items()):
            before, after = r.get("before"), r.get("after")
            if before is None or full(before) or after is None:
                continue
            if not full(after) and not _completed(attribution, change, key):
                continue
            engine = key.split("@")[0]
            item = {
                "drafter": change["drafter"],
                "top1": f"{before['top1_agree']}/{before['positions']}",
                "how": f"forward_attribution.json '{change['label']}' -> "
                f"{after['top1_agree']}/{after['positions']}",
                "engine_code": change["engine_code"][engine],
            }
            k = (key, config_format(config), str(field), flag_value(config, str(field)))
            seen.setdefault(k, []).append(item)
    return seen


def flag_runs(forward: dict[str, Any], attribution: dict[str, Any]) -> dict[str, Any]:
    """engine@version -> format -> flag -> value -> {verdict, evidence}."""
    harmless, differs = _harmless(forward), _differs(attribution)
    out: dict[str, Any] = {}
    for k in sorted(set(harmless) | set(differs)):
        if k in harmless and k in differs:
            continue
        key, fmt, flag, value = k
        verdict = "differs" if k in differs else "as-trained"
        items = differs.get(k) or harmless[k]
        entry: dict[str, Any] = {
            "verdict": verdict,
            "drafters": sorted({i["drafter"] for i in items}),
            "top1": [f"{i['drafter']} {i['top1']} ({i['how']})" for i in items],
        }
        if verdict == "differs":
            entry["engine_code"] = sorted({i["engine_code"] for i in items})
        out.setdefault(key, {}).setdefault(fmt, {}).setdefault(flag, {})[value] = entry
    return out
