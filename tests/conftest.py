"""Shared test helpers: writing raw safetensors files and running the CLI in-process."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from eagle3_inspect.cli import main
from eagle3_inspect.findings import Finding, build_finding
from eagle3_inspect.registry import all_rules
from eagle3_inspect.synthetic.writer import header_bytes, raw_header
from tests.signals import python_sigint_handler


def raw_file(path: Path, header: dict | str, data: bytes = b"", pad: bool = True) -> Path:
    """Writes a safetensors file from a header (dict or exact JSON text) and data bytes."""
    path.write_bytes(raw_header(header, pad) + data)
    return path


def raw_tensors(path: Path, tensors: dict[str, tuple[str, tuple[int, ...], bytes]]) -> Path:
    """Writes a valid safetensors file from `{name: (dtype, shape, raw bytes)}`, in name order."""
    names = sorted(tensors)
    entries = [(n, tensors[n][0], tensors[n][1], len(tensors[n][2])) for n in names]
    path.write_bytes(header_bytes(entries) + b"".join(tensors[n][2] for n in names))
    return path


@pytest.fixture
def sigint_handler():
    """Python's own SIGINT handler for the test, even in a suite started with SIGINT ignored
    (see tests/signals.py)."""
    with python_sigint_handler():
        yield


@pytest.fixture
def run_cli():
    """Runs the CLI in-process: returns (exit_code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(main, list(args))
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    return run


# --- every documented code fires somewhere in the suite ------------------------------------------
# Each finding the suite produces (Python checks and Rust findings alike end up as a `Finding`) is
# recorded; at the end of a run of the whole suite, a documented code that never fired fails it.
# Codes that cannot be produced from a file would be listed here with the reason; none are today.
CANNOT_FIRE: dict[str, str] = {}
FIRED: set[str] = set()
# The first real finding of each code: at the end, its concise and github lines are checked.
EXAMPLES: dict[str, Finding] = {}
_finding_init = Finding.__init__


def _record(self, *args, **kwargs):
    _finding_init(self, *args, **kwargs)
    FIRED.add(self.code)
    EXAMPLES.setdefault(self.code, self)


Finding.__init__ = _record
# Findings made per tensor skip Finding.__init__ (records.fast_builder): record those too.
_built_init = build_finding.__init__


def _record_built(self, *args, **kwargs):
    _built_init(self, *args, **kwargs)
    FIRED.add(self.code)
    EXAMPLES.setdefault(self.code, self)


build_finding.__init__ = _record_built  # type: ignore[method-assign]


def _whole_suite(session) -> bool:
    option = session.config.option
    tests = Path(__file__).resolve().parent
    args = [Path(a.split("::")[0]).resolve() for a in session.config.args]
    narrowed = option.keyword or option.markexpr or getattr(option, "lf", False)
    return not narrowed and all(a == tests or a == tests.parent for a in args)


def pytest_sessionfinish(session, exitstatus):
    if exitstatus != 0 or not _whole_suite(session):
        return
    missing = sorted(set(all_rules()) - FIRED - set(CANNOT_FIRE))
    if missing:
        session.config.get_terminal_writer().line(
            f"\nDocumented finding codes that no test made fire: {missing}", red=True
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    malformed = malformed_lines(EXAMPLES)
    if malformed:
        session.config.get_terminal_writer().line(
            f"\nconcise/github lines that do not match their pattern: {malformed}", red=True
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def malformed_lines(examples: dict[str, Finding]) -> list[str]:
    """The concise and github line of each fired code's first finding, where one does not match
    its regex (or names another code)."""
    from eagle3_inspect.cli.render.concise import concise_line
    from eagle3_inspect.cli.render.github import github_line
    from eagle3_inspect.cli.render.records import finding_record
    from tests.cli.line_patterns import CONCISE, GITHUB

    bad = []
    documented = all_rules()
    # Only documented codes: record-encoding tests build findings of made-up codes and values.
    for code, f in sorted(examples.items()):
        if code not in documented:
            continue
        record = finding_record(f, "/data/drafter")
        concise, github = concise_line(record), github_line(record)
        m = CONCISE.fullmatch(concise)
        if m is None or m["code"] != code:
            bad.append(concise)
        g = GITHUB.fullmatch(github)
        if g is None or g["title"] != code:
            bad.append(github)
    return bad
