"""The compatibility matrix of `docs/engines.md` (per engine: drafter x version, loads / fails,
and why; rows grouped by drafter family), generated from engine_truth.json and the corpus
manifest. `tests/rules/en/test_matrix.py` checks that the page holds exactly this output.

    python tools/engine_truth/matrix.py            # print the table
    python tools/engine_truth/matrix.py --write    # replace it in docs/engines.md (between markers)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eagle3_inspect.installed.harm import aux_fc_mismatch, harmful_names

ROOT = Path(__file__).resolve().parents[2]
# The page that holds the matrix, between the markers.
PAGE = ROOT / "docs" / "engines.md"
BEGIN, END = "<!-- compatibility-matrix:begin -->", "<!-- compatibility-matrix:end -->"


def _short(text: str) -> str:
    text = text.replace(" '<drafter>'", "")
    return text.split(". ")[0][:120].rstrip()


def reason(result: dict, config: dict, tensors: dict) -> str | None:
    """None when the engine loads the drafter as trained, else why it does not (short)."""
    verdict = result["verdict"]
    if verdict == "NOT-MODELLED":
        return "not modelled by the harness"
    if verdict in ("REFUSED", "LOAD-ERROR"):
        kind = "refused" if verdict == "REFUSED" else "load error"
        return f"{kind}: {_short(result['why']['exception'])}"
    dropped, unloaded = harmful_names(result, config, tensors)
    parts = []
    if dropped:
        parts.append(f"drops {', '.join(sorted(dropped)[:2])}{' ...' if len(dropped) > 2 else ''}")
    if unloaded:
        first = ", ".join(sorted(unloaded)[:2]) + (" ..." if len(unloaded) > 2 else "")
        parts.append(f"leaves {first} at init")
    mismatch = None if parts else aux_fc_mismatch(result, config)
    if mismatch:
        parts.append(mismatch)
    return "loads but " + "; ".join(parts) if parts else None


FAMILY_ORDER = ("eagle3", "peagle", "dflash", "dflash2")


def _family(entry: dict) -> str:
    """The row's family label: family / draft layer, plus the quantization if any."""
    label = f"{entry['family']} {entry['family_variant']}"
    return label + (f" {entry['quantization']}" if entry.get("quantization") else "")


def render(truth: dict, manifest: dict, corpus: Path) -> str:
    """One markdown table per engine (rows grouped by drafter family), then the numbered
    reasons they share."""
    reasons: dict[str, int] = {}
    entries = sorted(
        manifest["drafters"],
        key=lambda e: (FAMILY_ORDER.index(e["family"]), _family(e), e["producer"], e["dir"]),
    )
    tables = []
    for engine, versions in sorted(truth["engine_versions"].items()):
        keys = [f"{engine}@{v}" for v in versions]
        rows = []
        for entry in entries:
            name = f"corpus/{entry['dir']}"
            record = truth["drafters"][name]
            config = json.loads((corpus / entry["dir"] / "config.json").read_text())
            cells = []
            for key in keys:
                why = reason(record["results"][key], config, record["tensors"])
                if why is None:
                    cells.append("loads")
                else:
                    number = reasons.setdefault(why, len(reasons) + 1)
                    cells.append(f"fails [{number}]")
            label = f"{entry['producer']} {entry['producer_version']} `{entry['variant']}`"
            rows.append(f"| {_family(entry)} | {label} | " + " | ".join(cells) + " |")
        header = "| family | producer, variant | " + " | ".join(v for v in versions) + " |"
        rule = "|---|---|" + "---|" * len(keys)
        tables.append("\n".join([f"**{engine}**", "", header, rule, *rows]))
    notes = [f"{n}. {why}" for why, n in reasons.items()]
    return "\n\n".join(tables) + "\n\n" + "\n".join(notes) + "\n"


def current() -> str:
    """The matrix for the committed truth, manifest and corpus."""
    truth = json.loads((ROOT / "tools/engine_truth/engine_truth.json").read_text())
    manifest = json.loads((ROOT / "tests/corpus/manifest.json").read_text())
    return render(truth, manifest, ROOT / "tests/corpus")


def in_page(text: str) -> str:
    """The part of the page's text between the matrix markers."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end].strip("\n") + "\n"


def main() -> None:
    """Prints the matrix, or writes it into docs/engines.md."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="replace the table in docs/engines.md")
    args = ap.parse_args()
    table = current()
    if not args.write:
        print(table, end="")
        return
    text = PAGE.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    PAGE.write_text(text[:start] + "\n" + table + text[end:])


if __name__ == "__main__":
    main()
