"""Every command and the API give the same tensors, statistics and findings for a torch-format
drafter (tests/torch/corpus: written by torch.save) as for its safetensors twin (the producer's
own file, or one written by the safetensors package): the API's tensors and statistics with
hashes, scan's JSON records, validate against every engine profile and the target, diff (the
two are identical), and fix (the same plan and the same safetensors written, whichever side it
starts from). The only extra findings on the torch side are PT infos (alignment, strides, ...)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import eagle3_inspect
from eagle3_inspect.findings import Finding, Severity
from tests.torch.truth import HERE, twins

TARGET = HERE.parent / "corpus" / "verifiers" / "llama-8l"
CASES = sorted(twins().items())
DRAFTERS = [(c, t) for c, t in CASES if (c / "config.json").exists()]


def ids(cases: list[tuple[Path, Path]]) -> list[str]:
    return [c.name for c, _ in cases]


def shown(findings: list[Finding]) -> list[tuple[Any, ...]]:
    """What a finding says, less where it is (file names differ) and the torch side's PT infos."""
    out = []
    for f in findings:
        if f.code.startswith("PT"):
            assert f.severity is Severity.INFO, f
            continue
        out.append((f.code, f.severity.value, f.tensor, getattr(f, "engine", None)))
    return sorted(out, key=repr)


@pytest.mark.parametrize(("case", "twin"), CASES, ids=ids(CASES))
def test_the_api_gives_the_same_tensors_statistics_and_findings(case: Path, twin: Path) -> None:
    a, b = eagle3_inspect.open(case), eagle3_inspect.open(twin)
    assert {f.format for f in a.files} <= {"torch-zip", "torch-legacy"}
    facts = {n: (i.dtype, i.shape, i.nbytes) for n, i in a.tensors.items()}
    assert facts == {n: (i.dtype, i.shape, i.nbytes) for n, i in b.tensors.items()}
    assert not a.unreadable
    assert dict(a.stats(hashes=True)) == dict(b.stats(hashes=True))
    assert shown(a.findings) == shown(b.findings)
    for name in a.tensors:
        assert bytes(a.raw_bytes(name)) == bytes(b.raw_bytes(name)), name


@pytest.mark.parametrize(("case", "twin"), DRAFTERS, ids=ids(DRAFTERS))
def test_validate_against_every_engine_and_the_target_says_the_same(case: Path, twin: Path) -> None:
    a = eagle3_inspect.validate(case, engine="all", target=TARGET)
    b = eagle3_inspect.validate(twin, engine="all", target=TARGET)
    assert a.ok == b.ok
    assert shown(a.findings) == shown(b.findings)
    assert a.layout == b.layout


@pytest.mark.parametrize(("case", "twin"), CASES, ids=ids(CASES))
def test_diff_against_the_twin_is_identical(case: Path, twin: Path) -> None:
    report = eagle3_inspect.diff(case, twin)
    assert report.identical, report.to_dict()


def scan_json(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "eagle3_inspect", "scan", str(path), "--stats", "--hash", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "name", ["legacy-specforge", "strided-zip-specforge", "sharded-zip-speculators"]
)
def test_scan_json_records_match_but_for_where_the_bytes_are(name: str) -> None:
    case = HERE / "corpus" / name
    a, b = scan_json(case), scan_json(twins()[case])
    strip = {"file", "offset"}
    rows = lambda doc: [{k: v for k, v in t.items() if k not in strip} for t in doc["tensors"]]  # noqa: E731
    assert rows(a) == rows(b)
    assert {f["format"] for f in a["files"]} <= {"torch-zip", "torch-legacy"}
    assert {f["format"] for f in b["files"]} == {"safetensors"}


FIXES = [
    (c, t)
    for c, t in DRAFTERS
    if c.name
    in (
        "zip-modelopt",
        "legacy-specforge",
        "strided-legacy-specforge",
        "bigendian-zip-specforge",
        "deflated-zip-specforge",
        "sharded-zip-speculators",
    )
]


@pytest.mark.parametrize(("case", "twin"), FIXES, ids=ids(FIXES))
def test_fix_writes_the_same_safetensors_from_either_side(
    case: Path, twin: Path, tmp_path: Path
) -> None:
    engine = "sglang@0.5.11" if "speculators" not in case.name else "vllm@0.25.0"
    a = eagle3_inspect.fix(case, engine=engine, out=tmp_path / "a")
    b = eagle3_inspect.fix(twin, engine=engine, out=tmp_path / "b")
    assert (a.status, a.changes) == (b.status, b.changes)
    if a.status != "fixed":
        return
    wa, wb = eagle3_inspect.open(tmp_path / "a"), eagle3_inspect.open(tmp_path / "b")
    assert {f.format for f in wa.files} == {"safetensors"}
    assert dict(wa.stats(hashes=True)) == dict(wb.stats(hashes=True))
    if len(wa.files) == len(wb.files) == 1:
        pa, pb = Path(wa.files[0].path), Path(wb.files[0].path)
        assert pa.name == pb.name == "model.safetensors"
        assert pa.read_bytes() == pb.read_bytes()
