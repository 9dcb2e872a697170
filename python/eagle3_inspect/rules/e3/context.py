"""The E3 rules' run state: the shared drafter-rule context (`rules/family/context.py`)."""

from __future__ import annotations

from eagle3_inspect.rules.family.context import DrafterContext as E3Context

__all__ = ["E3Context"]
