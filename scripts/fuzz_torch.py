"""Runs the torch-file fuzzer by hand, judged by torch.load(weights_only=True) itself, and prints
what it saw. Needs torch (the producers venv, or an overlay of it) and the built extension:

    PYTHONPATH=python:. /work/venvs/pickle-x/bin/python scripts/fuzz_torch.py --seconds 600 --save

--save minimizes each new kind of outcome into tests/torch/fuzz_corpus/ with torch's verdict in
verdicts.json (commit the ones worth keeping; CI replays them without torch). Exit status 1 when
any case disagreed with torch, ran a payload, crashed or hung.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz import cli
from tests.torch import fuzz


def main() -> int:
    parser = cli.parser(__doc__.splitlines()[0], case_timeout=20.0)
    parser.add_argument("--no-torch", action="store_true", help="invariants only, as CI runs")
    args = parser.parse_args()
    os.environ["E3_FUZZ_TORCH"] = "0" if args.no_torch else "1"
    return cli.run(args, fuzz.__name__, fuzz.CORPUS, ("zip", "legacy"), fuzz.CATEGORIES)


if __name__ == "__main__":
    raise SystemExit(main())
