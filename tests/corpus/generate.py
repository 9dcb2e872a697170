"""Regenerates the producer corpus by running each producer's own save/export code.

Run by hand in the throwaway producer venv (see tests/corpus/README.md), never in CI:

    python tests/corpus/generate.py --producer speculators [--variant default ...]
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

# producer name -> module under tests/corpus/producers/ that drives its code
PRODUCERS = {
    "speculators": "producers.speculators_trainer",
    "speculators-0.3": "producers.speculators_legacy",
    "specforge": "producers.specforge_export",
    "modelopt": "producers.modelopt_export",
    "verifiers": "producers.verifiers",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--producer", required=True, choices=sorted(PRODUCERS))
    parser.add_argument("--variant", action="append", help="only these variants")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    module = importlib.import_module(PRODUCERS[args.producer])
    entries = module.generate(args.variant)
    for entry in entries:
        print(f"wrote tests/corpus/{entry['dir']}: {', '.join(entry['files'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
