"""Every E3, EN and drafter-family (FM, PE, DF, TG) code cites the engine code that decides it
(issues 9, 19): the engine versions it holds for and the file and function, as `rules CODE`
prints them."""

from __future__ import annotations

import re

import pytest

from eagle3_inspect.findings import Severity
from eagle3_inspect.registry import all_rules

ENGINE_VERSION = re.compile(r"\b(sglang|vllm|speculators|trtllm) (main-[0-9a-f]+|\d+\.\d+(\.\d+)?)")
FILE_AND_FUNCTION = re.compile(r"[\w/]+\.py \w+")
CODES = sorted(c for c in all_rules() if c.startswith(("E3", "EN", "FM", "PE", "DF", "TG")))


@pytest.mark.parametrize("code", CODES)
def test_code_names_engine_versions_file_and_function(code: str) -> None:
    rule = all_rules()[code]
    assert rule.evidence, f"{code} has no evidence"
    for line in rule.evidence:
        if line.startswith("none"):
            # Only codes that assert no engine behaviour (skipped checks, unverifiable aspects).
            assert rule.severity is not Severity.ERROR, code
            continue
        assert ENGINE_VERSION.search(line), (code, line)
        assert FILE_AND_FUNCTION.search(line), (code, line)


def test_unverified_evidence_never_backs_an_error_alone() -> None:
    """An error code needs at least one line held to engine code run or read from a wheel,
    not only UNVERIFIED sources (TensorRT-LLM)."""
    for code in CODES:
        rule = all_rules()[code]
        if rule.severity is Severity.ERROR:
            assert any("UNVERIFIED" not in line for line in rule.evidence), code


def test_rules_code_prints_the_evidence(run_cli) -> None:
    code, out, _ = run_cli("rules", "EN015")
    assert code == 0
    assert "Evidence" in out and "llama_eagle3.py" in out and "sglang 0.5.12" in out
