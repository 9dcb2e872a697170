"""The VM rule catalogue: complete, consistently numbered, and every rule documented in full."""

from __future__ import annotations

from eagle3_inspect.findings import Severity
from eagle3_inspect.registry import all_rules, rule

VM_RULES = [r for r in all_rules().values() if r.family == "VM"]


def test_codes_are_consecutive_and_registered() -> None:
    codes = [r.code for r in VM_RULES]
    assert codes == [f"VM{i:03d}" for i in range(1, len(codes) + 1)]
    registered = [c for c in all_rules() if c.startswith("VM")]
    assert registered == codes


def test_every_rule_is_fully_documented() -> None:
    for doc in VM_RULES:
        assert isinstance(doc.severity, Severity)
        assert doc.summary and len(doc.summary) <= 60, doc.code
        assert len(doc.explanation) > 120, doc.code
        assert doc.example and doc.hint, doc.code


def test_lookup_is_case_insensitive() -> None:
    assert rule("vm006").hint.endswith("d2t_offset = d2t_abs - arange(Vd).")
    assert rule("VM011").severity is Severity.INFO
