"""The command line the two hand-run fuzzers share (scripts/fuzz.py, scripts/fuzz_torch.py): their
options, the run, and the outcome table per case kind."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path

from tests.fuzz import campaign


def parser(description: str, case_timeout: float) -> argparse.ArgumentParser:
    """--seconds, --seed, --cases, --case-timeout and --save; a fuzzer adds its own."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cases", type=int, help="judge cases 0..N-1 of the seed (no time limit)")
    p.add_argument("--case-timeout", type=float, default=case_timeout)
    p.add_argument("--save", action="store_true", help="add new outcomes to the corpus")
    return p


def run(
    args: argparse.Namespace,
    target: str,
    corpus: Path,
    kinds: Sequence[str],
    categories: Sequence[str],
) -> int:
    """Runs the campaign the options ask for and prints what it saw; 1 when any case disagreed
    with its judge, crashed or hung. With --cases the run is those cases, however long."""
    seconds = math.inf if args.cases is not None else args.seconds
    report = campaign.run(
        seconds, args.seed, args.case_timeout, corpus if args.save else None, target, args.cases
    )
    rate = report.execs / max(report.seconds, 1e-9)
    print(f"seconds {report.seconds:.0f}  execs {report.execs}  ({rate:.0f}/s)")
    width = max(map(len, (*categories, campaign.CRASH, campaign.HANG))) + 2
    for kind in kinds:
        for category in (*categories, campaign.CRASH, campaign.HANG):
            print(f"  {kind:6s}  {category:{width}s} {report.outcomes.get((kind, category), 0)}")
    for kind, category, name in report.failures[:50]:
        print(f"FAIL {kind} {category}: {name or '(not saved: rerun with --save)'}")
    if report.saved:
        print(f"saved {len(report.saved)} new corpus files")
    return 1 if report.disagreements else 0
