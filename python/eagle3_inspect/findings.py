"""Findings: the one record every check produces, its severity scale, and how the human faces
(terminal and HTML) fold a run of one code into one entry."""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from eagle3_inspect.jsontext import encode_record
from eagle3_inspect.records import fast_builder, shape_of


class Severity(str, enum.Enum):
    """How bad a finding is. Errors are facts; warnings are risks or heuristic verdicts."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}
# The severities most severe first (the order of the summary block).
_BY_RANK = (Severity.ERROR, Severity.WARNING, Severity.INFO)
# Rank by the severity's value: `_value_` is a plain attribute, where `.rank` and `.value` are
# properties and hashing a member runs Python code (a sort key per finding of a large report).
RANK_OF_VALUE = {s.value: r for s, r in _RANK.items()}


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem or observation with a stable code (see `eagle3-inspect rules`)."""

    code: str
    severity: Severity
    message: str
    file: str | None = None
    tensor: str | None = None
    offset: int | None = None
    config_key: str | None = None
    hint: str | None = None
    engine: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The finding's JSON object (`SHAPE`)."""
        return SHAPE.to_dict(self)

    def to_json(self) -> str:
        """`to_dict()` as one compact JSON record."""
        return encode_record(SHAPE.to_dict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        fields: dict[str, Any] = {k: data.get(k) for k in cls.__dataclass_fields__}
        fields["severity"] = Severity(data["severity"])
        return cls(**fields)


# The JSON of a finding: its fields, in order.
SHAPE = shape_of(Finding)
# Finding(...) with the same signature, about 8x faster: checks that emit one per tensor use it.
build_finding = fast_builder(Finding)


def location(f: Finding) -> str:
    """File name, tensor, config key and byte offset, as far as the finding knows them (the
    "where" column of the rich and HTML findings tables)."""
    parts = []
    if f.file:
        parts.append(f.file.rsplit("/", 1)[-1])
    if f.tensor:
        parts.append(f.tensor)
    if f.config_key:
        parts.append(f"config:{f.config_key}")
    if f.offset is not None:
        parts.append(f"@{f.offset}")
    return " ".join(parts)


def count_by_severity(findings: list[Finding]) -> dict[str, int]:
    """The `summary` block of every report: errors, warnings and infos."""
    # Counted at C speed (a report may hold a finding per tensor), then named.
    by_value = Counter(map(attrgetter("severity._value_"), findings))
    return {f"{s.value}s": by_value.get(s.value, 0) for s in _BY_RANK}


# A run of findings of one code and engine with more members than this is shown as its first
# member and one "the same for ..." line (the terminal and the HTML report alike; JSON lists all).
FOLD_AFTER = 3


@dataclass(frozen=True)
class FindingRun:
    """Findings of one code and engine, in report order: shown as `first` alone when `folded`."""

    code: str
    engine: str | None
    members: list[Finding]

    @property
    def first(self) -> Finding:
        return self.members[0]

    @property
    def folded(self) -> bool:
        return len(self.members) > FOLD_AFTER

    def same_for(self) -> str:
        """`the same for a, b, c and N more`: what a folded run's other members are about."""
        names = [f.tensor or f.config_key or "" for f in self.members[1:]]
        shown = ", ".join(n for n in names[:FOLD_AFTER] if n)
        more = len(names) - min(len(names), FOLD_AFTER)
        tail = f" and {more} more" if more > 0 else ""
        return f"the same for {shown}{tail}"


def finding_runs(findings: list[Finding]) -> list[FindingRun]:
    """`findings` grouped by (code, engine), in first-appearance order."""
    runs: dict[tuple[str, str | None], list[Finding]] = {}
    for f in findings:
        runs.setdefault((f.code, f.engine), []).append(f)
    return [FindingRun(code, engine, members) for (code, engine), members in runs.items()]
