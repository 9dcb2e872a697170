"""Writes tests/rules/en/pending_families.py: every engine-truth cell whose checks
(cell_checks.py: errors, fc_width, aux_ids) the rules as they stand do not pass. Run in the
project's venv after regenerating engine_truth.json, before the rules for a new family exist;
the differential test then prints those cells instead of failing, and fails once one agrees.

    python tools/engine_truth/pending.py --drafter-root corpus=tests/corpus \\
        --drafter-root demo=DIR/demo --drafter-root synthetic=DIR/synthetic [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# Run as a script: its directory is on sys.path, so the shared modules import by name.
from cell_checks import (
    NO_ENGINE,
    aux_ids_check,
    errors_check,
    family_section,
    fc_width_check,
    no_engine_check,
)

from eagle3_inspect.installed.harm import compared

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/rules/en/pending_families.py"
HEADER_END = "PENDING: dict[str, frozenset[str]] = {"


def pending_cells(truth: dict, roots: dict[str, str]) -> dict[str, set[str]]:
    """cell -> the checks it does not pass."""
    from eagle3_inspect.commands.validate import validate

    def error_codes(path: Path, engine: str | None) -> list[str]:
        report = validate(path, engine=engine, stats=False)
        return sorted({f.code for f in report.findings if f.severity.value == "error"})

    found: dict[str, set[str]] = {}
    for name, entry in sorted(truth["drafters"].items()):
        label, _, rel = name.partition("/")
        path = Path(roots[label]) / rel
        config = json.loads((path / "config.json").read_text())
        if label == "corpus" and no_engine_check(entry, config, error_codes(path, None)):
            found[f"{name} {NO_ENGINE}"] = {"errors"}
        for key, result in sorted(entry["results"].items()):
            if not compared(result):
                continue
            profile = family_section(key, path)
            errors = error_codes(path, key)
            failing = {
                check
                for check, detail in (
                    ("errors", errors_check(result, config, entry["tensors"], errors)),
                    ("fc_width", fc_width_check(result, config, profile)),
                    ("aux_ids", aux_ids_check(result, config, profile)),
                )
                if detail is not None
            }
            if failing:
                found[f"{name} {key}"] = failing
    return found


def _entry(cell: str, checks: set[str]) -> str:
    """One dict entry as ruff format writes it (wrapped past 100 columns)."""
    line = f"    {json.dumps(cell)}: frozenset({json.dumps(sorted(checks))}),"
    if len(line) <= 100:
        return line
    return f"    {json.dumps(cell)}: frozenset(\n        {json.dumps(sorted(checks))}\n    ),"


def render(found: dict[str, set[str]]) -> str:
    """The module text: the committed header, one sorted entry per cell, then whatever the
    committed file holds after the PENDING dict (kept as written)."""
    header, _, rest = OUT.read_text().partition(HEADER_END)
    tail = rest.split("\n}\n", 1)[1] if "\n}\n" in rest else ""
    lines = [_entry(cell, checks) for cell, checks in sorted(found.items())]
    return header + HEADER_END + ("\n" + "\n".join(lines) + "\n" if lines else "") + "}\n" + tail


def main() -> int:
    """Writes (or with --check, compares) the pending list."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--truth", type=Path, default=Path(__file__).parent / "engine_truth.json")
    ap.add_argument("--drafter-root", action="append", default=[])
    ap.add_argument("--check", action="store_true", help="exit 1 if the file would change")
    args = ap.parse_args()
    roots = dict(spec.split("=", 1) for spec in args.drafter_root)
    found = pending_cells(json.loads(args.truth.read_text()), roots)
    text = render(found)
    counts = {c: sum(c in v for v in found.values()) for c in ("errors", "fc_width", "aux_ids")}
    print(f"{len(found)} pending cells {counts}")
    if args.check:
        return int(OUT.read_text() != text)
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
