"""The rule registry: every finding code defined once, and the one way to build a finding.

Each rule family keeps its codes beside its check, as data: `rules/<family>/codes.toml` holds,
per code, its severity, summary (title), explanation, example, hint (the fix) and evidence. The
registry reads those files as package data (no import of the rules layer, so the reader below the
rules can use it too) and every emitter, Python or Rust, gets severity and hint from here:
`finding()` for Python checks, `from_native()` for findings the Rust core emits (ST, IX, VM).
Codes are stable: never renumber, only add.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eagle3_inspect.echo import clip
from eagle3_inspect.findings import Finding, Severity, build_finding

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

RULES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules")
CODES_FILE = "codes.toml"
# Rule folders and the code families each defines, in the order `eagle3-inspect rules` lists them.
FOLDERS = (
    ("st_ix", ("ST", "IX")),
    ("pt", ("PT",)),
    ("num", ("NUM",)),
    ("vm", ("VM",)),
    ("family", ("FM",)),
    ("e3", ("E3",)),
    ("pe", ("PE",)),
    ("df", ("DF",)),
    ("tg", ("TG",)),
    ("en", ("EN",)),
)
FIELDS = {"severity", "summary", "explanation", "example", "hint", "evidence"}


class RegistryError(Exception):
    """A codes.toml file is missing or malformed (a packaging or editing mistake)."""


@dataclass(frozen=True)
class Rule:
    """The definition of one finding code."""

    code: str
    severity: Severity
    summary: str
    explanation: str
    example: str = ""
    hint: str = ""
    evidence: tuple[str, ...] = ()
    folder: str = ""

    @property
    def family(self) -> str:
        return family_of(self.code) or ""

    def to_dict(self) -> dict[str, Any]:
        """The `eagle3-inspect rules --json` entry (schema rules/1)."""
        return {
            "code": self.code,
            "severity": self.severity.value,
            "summary": self.summary,
            "explanation": self.explanation,
            "example": self.example,
            "hint": self.hint,
            "evidence": list(self.evidence),
        }


def family_of(code: str) -> str | None:
    """`E3` for `E3009`, `NUM` for `NUM001`; None when `code` is no family's prefix + number."""
    for _, families in FOLDERS:
        for family in families:
            number = code[len(family) :]
            if code.startswith(family) and number.isdigit() and len(number) in (3, 4):
                return family
    return None


def _parse(folder: str, families: tuple[str, ...], text: str) -> list[Rule]:
    where = f"rules/{folder}/{CODES_FILE}"
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RegistryError(f"{where}: {exc}") from exc
    rules = []
    for code, entry in table.items():
        if family_of(code) not in families:
            raise RegistryError(f"{where}: {code} is not a code of the families {families}")
        if not isinstance(entry, dict) or set(entry) - FIELDS or "summary" not in entry:
            raise RegistryError(f"{where} [{code}]: needs summary, may have {sorted(FIELDS)}")
        try:
            severity = Severity(entry.get("severity"))
        except ValueError:
            raise RegistryError(f"{where} [{code}]: bad severity") from None
        rules.append(
            Rule(
                code=code,
                severity=severity,
                summary=str(entry["summary"]),
                explanation=str(entry.get("explanation", "")),
                example=str(entry.get("example", "")),
                hint=str(entry.get("hint", "")),
                evidence=tuple(str(e) for e in entry.get("evidence", [])),
                folder=folder,
            )
        )
    return rules


@functools.cache
def all_rules() -> dict[str, Rule]:
    """Every defined code, in family order then code order (read once; do not mutate it).
    A missing or malformed codes.toml raises RegistryError: no family is skipped silently."""
    order = {f: n for n, f in enumerate(f for _, families in FOLDERS for f in families)}
    rules: list[Rule] = []
    for folder, families in FOLDERS:
        # A plain path beside this module, not importlib.resources (which costs start-up time
        # through pathlib and tempfile): the package is always installed as files.
        node = os.path.join(RULES_DIR, folder, CODES_FILE)
        if not os.path.isfile(node):
            raise RegistryError(f"rules/{folder}/{CODES_FILE} is missing from the package")
        with open(node, encoding="utf-8") as text:
            rules += _parse(folder, families, text.read())
    rules.sort(key=lambda r: (order[r.family], r.code))
    return {r.code: r for r in rules}


def rule(code: str) -> Rule:
    """The definition of `code` (case-insensitive); KeyError when unknown."""
    return all_rules()[code.upper()]


def finding(
    code: str,
    message: str,
    *,
    severity: Severity | None = None,
    hint: str | None = None,
    **where: Any,
) -> Finding:
    """A finding for a defined `code`: severity and hint come from its definition unless the
    check passes a case-specific one (e.g. E3002 is an error only for a reduced vocabulary)."""
    defined = all_rules().get(code) or rule(code)  # exact spelling first: one per tensor
    return build_finding(
        code=code,
        severity=severity or defined.severity,
        message=clip(message),  # a 15 MB config value is not echoed whole
        hint=hint or defined.hint or None,
        **where,
    )


def from_native(data: Mapping[str, Any]) -> Finding:
    """A finding the Rust core emitted (a dict with code, severity, message, file, tensor,
    offset), with the hint from its definition. An undefined code keeps the core's severity and
    gets no hint (a test keeps every emitted code defined)."""
    defined = all_rules().get(data["code"])
    hint = defined.hint or None if defined else None
    return Finding.from_dict({**data, "message": clip(data["message"]), "hint": hint})
