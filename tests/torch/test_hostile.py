"""Hostile pickles (own payloads that `touch` a sentinel when loaded without weights_only, and the
test pickles ModelAudit's sdist ships): every one is an error here, as torch.load(weights_only=
True) refuses every one; each global torch names in its refusal is a PT005 here, at a byte offset
inside the file; a file picklescan rates dangerous is a security finding here; and no payload
ever runs: the sentinel is never created, by the CLI or the API, in the zip or the legacy
format. truth.json records that each own payload does run under torch.load(weights_only=False),
so the sentinel check would catch a reader that ran it."""

from __future__ import annotations

import os
import pickletools  # an opcode's name for a message, never to unpickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

import eagle3_inspect
from eagle3_inspect.findings import Severity
from tests.torch.truth import HERE, files, truth

SECURITY = {"PT005", "PT006"}


def torch_global(error: str) -> str | None:
    """The global torch's weights_only refusal names (it spells builtins.x as x)."""
    found = re.search(r"GLOBAL (\S+) (?:was not an allowed global|whose module)", error)
    if found is None:
        return None
    name = found.group(1)
    return name if "." in name else f"builtins.{name}"


def verdicts() -> dict[str, tuple[set[str], list[eagle3_inspect.Finding]]]:
    out = {}
    for rel in files("hostile/"):
        ckpt = eagle3_inspect.open(HERE / rel)
        out[rel] = ({f.code for f in ckpt.findings}, ckpt.findings)
    return out


def test_every_hostile_file_is_an_error_as_weights_only_refuses_it() -> None:
    hostile = files("hostile/")
    assert len(hostile) >= 55
    assert not any(e["weights_only"]["loads"] for e in hostile.values())
    for rel, (_, findings) in verdicts().items():
        errors = [f for f in findings if f.severity is Severity.ERROR]
        assert errors, rel
        size = (HERE / rel).stat().st_size
        for f in errors:
            assert f.file and f.offset is not None and 0 <= f.offset <= size, (rel, f)


def test_where_torch_stops_the_reader_stops_for_the_same_reason() -> None:
    """torch names the global it refuses, or the opcode it does not implement (most scanner
    test pickles are protocol 4: FRAME, STACK_GLOBAL); the reader's first error names the same."""
    named = opcodes = 0
    for rel, (_, findings) in verdicts().items():
        error = files()[rel]["weights_only"]["error"]
        first = next(f for f in findings if f.severity is Severity.ERROR)
        wanted = torch_global(error)
        operand = re.search(r"Unsupported operand (\d+)", error)
        if wanted is not None:
            named += 1
            assert first.code == "PT005" and wanted in first.message, (rel, wanted, first)
        elif operand is not None:
            opcodes += 1
            name = pickletools.code2op[chr(int(operand.group(1)))].name
            assert first.code in ("PT006", "PT007") and f"opcode {name} " in first.message, (
                rel,
                name,
                first,
            )
    assert named >= 15 and opcodes >= 35, (named, opcodes)


def test_picklescans_dangerous_files_are_security_findings_here() -> None:
    both = picklescan_only = ours_only = neither = 0
    for rel, (codes, _) in verdicts().items():
        theirs = bool(files()[rel]["picklescan"]["dangerous"])
        ours = bool(codes & SECURITY)
        both += theirs and ours
        picklescan_only += theirs and not ours
        ours_only += ours and not theirs
        neither += not (theirs or ours)
    assert picklescan_only == 0
    # The counts docs/torch-pickle.md reports (picklescan 1.0.5 on the committed files).
    assert (both, ours_only, neither) == (42, 2, 15), (both, ours_only, neither)


def payload_files() -> list[str]:
    own = files("hostile/own/")
    chosen = [rel for rel, e in own.items() if e.get("payload_runs_without_weights_only")]
    assert chosen and all(
        e["payload_runs_without_weights_only"]
        for e in own.values()
        if "payload_runs_without_weights_only" in e
    )
    return chosen


def test_no_payload_runs_from_the_cli_in_either_format(tmp_path: Path) -> None:
    chosen = payload_files()
    assert any(r.endswith("-zip.bin") for r in chosen)
    assert any(r.endswith("-legacy.bin") for r in chosen)
    sentinel = tmp_path / truth()["sentinel"]
    for rel in chosen:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "eagle3_inspect",
                "scan",
                str(HERE / rel),
                "--stats",
                "--format",
                "concise",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, (rel, done.stdout, done.stderr)
        assert re.search(r"PT00[56] \[error\]", done.stdout), (rel, done.stdout)
        assert not sentinel.exists(), rel


def test_no_payload_runs_through_the_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for rel in payload_files():
        report = eagle3_inspect.validate(str(HERE / rel))
        assert not report.ok
        assert not (tmp_path / truth()["sentinel"]).exists(), rel
    assert os.listdir(tmp_path) == []
