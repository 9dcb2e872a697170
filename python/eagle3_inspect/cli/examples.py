"""The example every `--help` ends with (the top level's and each command's): one command line
that works as printed on the demo's checkpoints, written by `eagle3-inspect demo --out demo`
(`tests/cli/test_help.py` runs each one there)."""

from __future__ import annotations

DEMO = "eagle3-inspect demo --out demo"
# Command name ("" for the top level) -> its example.
EXAMPLES = {
    "": "eagle3-inspect validate demo/drafter-broken --engine sglang@0.5.11 "
    "--target demo/target-kimi-k25",
    "scan": "eagle3-inspect scan demo/drafter-broken --stats --format concise",
    "validate": "eagle3-inspect validate demo/drafter-mislabelled --engine sglang@0.5.11 "
    "--headers-only",
    "diff": "eagle3-inspect diff demo/drafter-correct demo/drafter-mislabelled",
    "fix": "eagle3-inspect fix demo/drafter-mislabelled --engine sglang@0.5.11 --out demo/served",
    "rules": "eagle3-inspect rules VM006",
    "demo": DEMO,
}


def epilog(command: str) -> str:
    """The help text's last lines: the example for `command` ("" for the top level), kept as
    written (click's `\\b` stops it rewrapping the line)."""
    where = "" if command == "demo" else f" (on the checkpoints `{DEMO}` writes)"
    return f"\b\nExample{where}:\n  {EXAMPLES[command]}"
