"""How often `fix` is right by the engines' own code: for each engine version, of the runs `fix`
calls FIXED or NOTHING TO DO, how many outputs (or sources) the engine LOADED as trained
(harm.py), how many it did not, and how many the harness cannot judge; refusals are counted
apart. Reads one or more fix_truth.json files (e.g. before / after a change).

Usage (any venv; plain Python):
    python tools/engine_truth/fix_agreement.py --truth before=OLD.json --truth after=NEW.json \
        [--markdown tools/engine_truth/fix_agreement.md]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from eagle3_inspect.installed.harm import compared, engine_says_harm

COLUMNS = ("loaded as trained", "harmful", "not judged", "refused")


def tally(truth: dict[str, Any]) -> tuple[dict[str, Counter[str]], list[str]]:
    """Engine version -> counts per column, and the harmful runs (key: why)."""
    per: dict[str, Counter[str]] = {}
    harmful: list[str] = []
    for key, row in sorted(truth["runs"].items()):
        spec = key.split(" ")[1]
        counts = per.setdefault(spec, Counter())
        if row["status"] not in ("fixed", "nothing-to-do"):
            counts["refused" if row["status"] == "refused" else row["status"]] += 1
            continue
        judged = truth["judged"][row["judged"]]
        result = judged["results"][spec]
        if not compared(result):
            counts["not judged"] += 1
            continue
        harm, why = engine_says_harm(result, judged["config"], judged["tensors"])
        counts["harmful" if harm else "loaded as trained"] += 1
        if harm:
            harmful.append(f"{key} ({row['status']}): {why}")
    return per, harmful


def _order(spec: str) -> tuple[str, tuple[int, ...]]:
    engine, version = spec.split("@")
    return engine, tuple(int(p) for p in re.findall(r"\d+", version))


def main() -> None:
    """Prints (and optionally writes) the table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", action="append", required=True, help="LABEL=fix_truth.json")
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--note", default="", help="a paragraph written above the table")
    args = ap.parse_args()
    tallies = {}
    for spec in args.truth:
        label, _, path = spec.partition("=")
        tallies[label] = tally(json.loads(Path(path).read_text()))
    specs = sorted({s for per, _ in tallies.values() for s in per}, key=_order)
    head = "| engine | " + " | ".join(f"{label}: {c}" for label in tallies for c in COLUMNS) + " |"
    lines = [args.note, ""] if args.note else []
    lines += [head, "|" + "---|" * (1 + len(COLUMNS) * len(tallies))]
    totals: dict[str, Counter[str]] = {label: Counter() for label in tallies}
    for spec in specs:
        cells = []
        for label, (per, _) in tallies.items():
            counts = per.get(spec, Counter())
            totals[label].update(counts)
            cells += [str(counts.get(c, 0)) for c in COLUMNS]
        lines.append(f"| {spec} | " + " | ".join(cells) + " |")
    cells = [str(totals[label].get(c, 0)) for label in tallies for c in COLUMNS]
    lines.append("| **all** | " + " | ".join(cells) + " |")
    for label, (_, harmful) in tallies.items():
        lines += ["", f"{label}: {len(harmful)} run(s) fix called done that the engine harmed:"]
        lines += [f"- {h}" for h in harmful]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text)


if __name__ == "__main__":
    main()
