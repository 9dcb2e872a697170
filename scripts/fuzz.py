"""Runs the fuzzer (headers, indexes, config.json, --resume files, Hub model-info answers served
by the local fixture Hub) by hand for longer than CI does and prints what it saw.

    python scripts/fuzz.py --seconds 600 [--seed N] [--save]

--save minimizes each new kind of outcome into tests/fuzz/corpus/ (commit the ones worth
keeping). Exit status 1 when any case disagreed with the reference, crashed or hung.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz import campaign, documents, oracle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=None, help="judge cases 0..N-1, then stop")
    parser.add_argument("--case-timeout", type=float, default=10.0)
    parser.add_argument("--save", action="store_true", help="add new outcomes to the corpus")
    args = parser.parse_args()
    corpus = campaign.CORPUS if args.save else None
    report = campaign.run(args.seconds, args.seed, args.case_timeout, corpus, cases=args.cases)
    rate = report.execs / max(report.seconds, 1e-9)
    print(f"seconds {report.seconds:.0f}  execs {report.execs}  ({rate:.0f}/s)")
    categories = (*oracle.CATEGORIES, documents.ECHO, campaign.CRASH, campaign.HANG)
    for kind in ("file", "index", *documents.KINDS):
        for category in categories:
            print(f"  {kind:5s}  {category:42s} {report.outcomes.get((kind, category), 0)}")
    for kind, category, name in report.failures[:50]:
        print(f"FAIL {kind} {category}: {name or '(not saved: rerun with --save)'}")
    if report.saved:
        print(f"saved {len(report.saved)} new corpus files")
    return 1 if report.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
