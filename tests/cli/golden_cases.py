"""Every command in every format on the demo checkpoints, against outputs recorded before the
code behind them was restructured: a refactor that changes one byte of any output fails
`test_golden_outputs.py`.

The recorded outputs live in `tests/cli/golden/`, one file per case. A deliberate change of an
output is recorded again with `python tests/cli/golden_cases.py --write` (then read the diff):
the demo checkpoints are written afresh into a temporary folder, each case is run in-process with
that folder as the working directory, and the folder's path is replaced by `<DEMO>`. HTML pages
are compared with their plots (matplotlib's SVG, which changes with matplotlib's version) and the
footer's time of writing cut out.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
# Rich's `full` output at a fixed width, whatever terminal runs the tests.
ENV = {"COLUMNS": "110", "LINES": "50", "NO_COLOR": "1", "TERM": "dumb"}
ENGINE = "sglang@0.5.11"
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
WRITTEN = re.compile(r"<time\b[^>]*>[^<]*</time>")

FORMATS = ("full", "concise", "json", "jsonl", "github")
HTML = ("html",)

# name -> (argv, formats): each case runs once per format, as `argv --format FMT`.
CASES: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "scan-correct": (["scan", "drafter-correct"], FORMATS + HTML),
    "scan-broken-stats": (["scan", "drafter-broken", "--stats", "--hash"], FORMATS + HTML),
    "scan-filter": (["scan", "drafter-correct", "--filter", "midlayer.*"], ("concise", "json")),
    "validate-correct": (["validate", "drafter-correct"], FORMATS + HTML),
    "validate-broken": (
        ["validate", "drafter-broken", "--engine", ENGINE, "--target", "target-kimi-k25"],
        FORMATS + HTML,
    ),
    "validate-engines": (
        ["validate", "drafter-mislabelled", "--engine", "all", "--no-stats"],
        ("concise", "json"),
    ),
    "validate-warning": (
        ["validate", "drafter-correct", "--fail-on", "warning", "--engine", "vllm"],
        ("concise", "json"),
    ),
    "diff-correct-broken": (["diff", "drafter-correct", "drafter-broken"], FORMATS + HTML),
    "diff-correct-mislabelled": (
        ["diff", "drafter-correct", "drafter-mislabelled"],
        FORMATS + HTML,
    ),
    "diff-structure": (
        ["diff", "drafter-correct", "drafter-broken", "--structure-only", "--no-renames"],
        ("concise", "json"),
    ),
    "fix-dry-run": (
        ["fix", "drafter-mislabelled", "--engine", ENGINE, "--out", "served", "--dry-run"],
        FORMATS,
    ),
    "fix-refused": (["fix", "drafter-broken", "--engine", ENGINE, "--out", "served"], FORMATS),
    "fix-written": (
        ["fix", "drafter-mislabelled", "--engine", ENGINE, "--out", "served", "--force"],
        FORMATS,
    ),
    # One rule only: the whole catalogue grows with every new code.
    "rules-one": (["rules", "VM006"], ("full", "concise", "json")),
}


def case_names() -> list[str]:
    """`NAME.FMT` of every case."""
    return [f"{name}.{fmt}" for name, (_, formats) in CASES.items() for fmt in formats]


@contextmanager
def demo_dir() -> Iterator[Path]:
    """The demo checkpoints, freshly written, as the working directory."""
    from eagle3_inspect.synthetic.demo import write_demo

    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        root = Path(tmp).resolve()
        write_demo(root)
        before = os.getcwd()
        os.chdir(root)
        try:
            yield root
        finally:
            os.chdir(before)


def run_case(case: str, root: Path) -> str:
    """The output of one `NAME.FMT` case (stdout, then the exit code and stderr), normalised."""
    from click.testing import CliRunner

    from eagle3_inspect.cli import main

    name, fmt = case.rsplit(".", 1)
    argv, _ = CASES[name]
    result = CliRunner(env=ENV).invoke(main, [*argv, "--format", fmt])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    text = f"{result.stdout}\n--- exit {result.exit_code}\n--- stderr\n{result.stderr}"
    text = text.replace(str(root), "<DEMO>")
    if fmt != "html":
        return text
    return WRITTEN.sub("<time/>", SVG.sub("<svg/>", text))


def write_all() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for old in GOLDEN.glob("*.txt"):
        old.unlink()
    with demo_dir() as root:
        for case in case_names():
            (GOLDEN / f"{case}.txt").write_text(run_case(case, root), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/cli/golden_cases.py --write")
    write_all()
