"""NUM rules: findings from per-tensor statistics (codes in `codes.toml`, checks in `check.py`)."""

from __future__ import annotations

from eagle3_inspect.rules.num.check import check_numbers

__all__ = ["check_numbers"]
