"""The rule catalogue: every finding code with its summary, explanation, example and fix.

Each family lives in its own module (`st`, `ix`, `num`, `vm`, `e3`, `en`) as a tuple `RULES`
of `RuleDoc`; this module gathers them. Codes are stable: never renumber, only add.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass

from eagle3_inspect.findings import Severity

FAMILIES = ("st", "ix", "num", "vm", "e3", "en")


@dataclass(frozen=True)
class RuleDoc:
    """Documentation of one finding code."""

    code: str
    severity: Severity
    summary: str
    explanation: str
    example: str = ""
    hint: str = ""

    @property
    def family(self) -> str:
        return self.code.rstrip("0123456789")

    def to_dict(self) -> dict[str, str]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "summary": self.summary,
            "explanation": self.explanation,
            "example": self.example,
            "hint": self.hint,
        }


@functools.cache
def all_rules() -> dict[str, RuleDoc]:
    """Every documented code, in family order then code order (built once: findings look up
    their severity and hint here; callers must not mutate it)."""
    rules: dict[str, RuleDoc] = {}
    for family in FAMILIES:
        try:
            module = importlib.import_module(f"eagle3_inspect.catalog.{family}")
        except ModuleNotFoundError:
            continue
        for rule in sorted(module.RULES, key=lambda r: r.code):
            rules[rule.code] = rule
    return rules


def rule(code: str) -> RuleDoc:
    """The documentation of `code` (case-insensitive); KeyError when unknown."""
    return all_rules()[code.upper()]
