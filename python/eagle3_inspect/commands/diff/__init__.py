"""The checkpoint diff: structural matching (match.py), key-path config diff (config.py), vocab
mapping comparison (vocab.py), the report (report.py) and the `diff` call (api.py)."""

from __future__ import annotations

from eagle3_inspect.commands.diff.api import diff
from eagle3_inspect.commands.diff.report import DiffReport, PairResult

__all__ = ["DiffReport", "PairResult", "diff"]
