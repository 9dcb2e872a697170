"""E3 rules: EAGLE-3 drafter architecture and config (E30xx), and cross-checks against the target
model (E31xx). Codes in `codes.toml`; `check_drafter` runs the drafter-only rules,
`check_target` the target cross-checks (`load_target` reads the target; it lives in the reader).
"""

from __future__ import annotations

from eagle3_inspect.reader.target import TargetInfo, load_target
from eagle3_inspect.rules.e3.check import check_drafter
from eagle3_inspect.rules.e3.target import check_target

__all__ = ["TargetInfo", "check_drafter", "check_target", "load_target"]
