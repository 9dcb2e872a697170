"""Runs the torch-file fuzzer by hand, judged by torch.load(weights_only=True) itself, and prints
what it saw. Needs torch (the producers venv, or an overlay of it) and the built extension:

    PYTHONPATH=python:. /work/venvs/pickle-x/bin/python scripts/fuzz_torch.py --seconds 600 --save

--save minimizes each new kind of outcome into tests/torch/fuzz_corpus/ with torch's verdict in
verdicts.json (commit the ones worth keeping; CI replays them without torch). Exit status 1 when
any case disagreed with torch, ran a payload, crashed or hung.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz import campaign
from tests.torch import fuzz


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, help="run cases 0..N-1 of the seed (no time limit)")
    parser.add_argument("--case-timeout", type=float, default=20.0)
    parser.add_argument("--save", action="store_true", help="add new outcomes to the corpus")
    parser.add_argument("--no-torch", action="store_true", help="invariants only, as CI runs")
    args = parser.parse_args()
    os.environ["E3_FUZZ_TORCH"] = "0" if args.no_torch else "1"
    corpus = fuzz.CORPUS if args.save else None
    seconds = math.inf if args.cases is not None else args.seconds
    report = campaign.run(
        seconds, args.seed, args.case_timeout, corpus, "tests.torch.fuzz", args.cases
    )
    rate = report.execs / max(report.seconds, 1e-9)
    print(f"seconds {report.seconds:.0f}  execs {report.execs}  ({rate:.0f}/s)")
    for kind in ("zip", "legacy"):
        for category in (*fuzz.CATEGORIES, campaign.CRASH, campaign.HANG):
            print(f"  {kind:6s}  {category:40s} {report.outcomes.get((kind, category), 0)}")
    for kind, category, name in report.failures[:50]:
        print(f"FAIL {kind} {category}: {name or '(not saved: rerun with --save)'}")
    if report.saved:
        print(f"saved {len(report.saved)} new corpus files")
    return 1 if report.disagreements else 0


if __name__ == "__main__":
    raise SystemExit(main())
