"""Renders the engine-profile schema tables into rules/en/profiles/README.md from the field
specs in rules/en/profile.py (the one place the schema is written).

    python tools/gen_profile_schema.py          # print the tables
    python tools/gen_profile_schema.py --write  # replace them in the README
"""

from __future__ import annotations

import sys
from pathlib import Path

from eagle3_inspect.rules.en.schema_doc import render_schema, replace_schema

README = Path(__file__).resolve().parents[1] / "python/eagle3_inspect/rules/en/profiles/README.md"


def main(argv: list[str]) -> int:
    if "--write" in argv:
        README.write_text(replace_schema(README.read_text()))
    else:
        print(render_schema())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
