"""Findings: the one record every check produces, and its severity scale."""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from eagle3_inspect.frozen import fast_builder
from eagle3_inspect.jsontext import encode_record, json_scalar, json_str


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
        # Field by field, not dataclasses.asdict: that deep-copies, and reports hold a finding per
        # tensor of a million-tensor checkpoint.
        # Spelled out (in field order), not a comprehension over getattr: about 3x faster.
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "file": self.file,
            "tensor": self.tensor,
            "offset": self.offset,
            "config_key": self.config_key,
            "hint": self.hint,
            "engine": self.engine,
        }

    def to_json(self) -> str:
        """`to_dict()` as one compact JSON record, byte for byte what the encoder writes, spelled
        directly (a report may hold a finding per tensor of a million-tensor header)."""
        n, s = "null", json_str
        o = self.offset
        try:
            return (
                f'{{"code": {s(self.code)}, "severity": {s(self.severity._value_)}, '
                f'"message": {s(self.message)}, '
                f'"file": {n if self.file is None else s(self.file)}, '
                f'"tensor": {n if self.tensor is None else s(self.tensor)}, '
                f'"offset": {repr(o) if type(o) is int else json_scalar(o)}, '
                f'"config_key": {n if self.config_key is None else s(self.config_key)}, '
                f'"hint": {n if self.hint is None else s(self.hint)}, '
                f'"engine": {n if self.engine is None else s(self.engine)}}}'
            )
        except TypeError:  # a field of another type (NotPlain is a TypeError): the encoder's way
            return encode_record(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        fields = {k: data.get(k) for k in cls.__dataclass_fields__}
        fields["severity"] = Severity(data["severity"])
        return cls(**fields)


_FIELDS = tuple(f.name for f in fields(Finding))
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
