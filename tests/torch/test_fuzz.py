"""The torch-file fuzzer in the normal test run: the committed cases (minimized by hand-run
campaigns judged by torch.load(weights_only=True); verdicts in fuzz_corpus/verdicts.json)
replay with the verdicts torch gave them, then a bounded, deterministic campaign (cases
0 .. E3_TORCH_FUZZ_CASES-1, default 400, of seed E3_TORCH_FUZZ_SEED, default 0: the same cases
on every machine, however loaded) mutates the corpus under the invariants: no crash, no hang,
no payload run, no unlocated finding, every tensor of a file without errors readable. Longer
and torch-judged runs: scripts/fuzz_torch.py."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from tests.fuzz import campaign
from tests.torch import fuzz


def test_committed_cases_replay_as_torch_judged_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verdicts = json.loads(fuzz.VERDICTS.read_text())
    assert len(verdicts) >= 20
    assert {v["loads"] for v in verdicts.values()} == {True, False}
    monkeypatch.chdir(tmp_path)
    assert fuzz.replay(tmp_path) == []


def test_bounded_campaign_keeps_every_invariant() -> None:
    cases = int(os.environ.get("E3_TORCH_FUZZ_CASES", "400"))
    seed = int(os.environ.get("E3_TORCH_FUZZ_SEED", "0"))
    report = campaign.run(
        math.inf, seed=seed, case_timeout=30.0, target="tests.torch.fuzz", cases=cases
    )
    assert report.execs == cases
    assert {kind for kind, _ in report.outcomes} == {"zip", "legacy"}
    assert report.disagreements == 0, (
        f"seed {seed}: {report.failures[:10]} (reproduce: PYTHONPATH=python:. "
        f"python scripts/fuzz_torch.py --no-torch --cases {cases} --seed {seed})"
    )
