"""Runs the fuzzer (headers, indexes, config.json, --resume files, Hub model-info answers served
by the local fixture Hub) by hand for longer than CI does and prints what it saw.

    python scripts/fuzz.py --seconds 600 [--seed N] [--save]

--save minimizes each new kind of outcome into tests/fuzz/corpus/ (commit the ones worth
keeping). Exit status 1 when any case disagreed with the reference, crashed or hung.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz import campaign, cli, documents, oracle


def main() -> int:
    args = cli.parser(__doc__.splitlines()[0], case_timeout=10.0).parse_args()
    kinds = ("file", "index", *documents.KINDS)
    categories = (*oracle.CATEGORIES, documents.ECHO)
    return cli.run(args, campaign.__name__, campaign.CORPUS, kinds, categories)


if __name__ == "__main__":
    sys.exit(main())
