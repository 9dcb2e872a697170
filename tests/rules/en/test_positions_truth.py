"""Each vLLM profile's `draft_positions` is what that version's own
`SpeculativeConfig._maybe_override_draft_max_position_embeddings` did when run
(tools/engine_truth/positions.py -> positions.json): never raised, raised for the family's
speculative method, or raised only when the RoPE type merely sizes the cache."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from eagle3_inspect.rules.en import resolve_engines

TRUTH = json.loads(
    (Path(__file__).resolve().parents[3] / "tools/engine_truth/positions.json").read_text()
)
# The speculative method vLLM runs each family with (speculators' P-EAGLE becomes eagle3).
METHOD = {"eagle3": "eagle3", "peagle": "eagle3", "dflash": "dflash", "dflash2": "dflash"}


def _applies(guard: str | None, method: str) -> bool:
    """`self.method in (...)` / `!= "..."` style guards, evaluated without exec."""
    if guard is None:
        return True
    test = ast.parse(guard, mode="eval").body
    assert isinstance(test, ast.Compare) and len(test.ops) == 1, guard
    value = ast.literal_eval(test.comparators[0])
    op = test.ops[0]
    if isinstance(op, ast.In):
        return method in value
    if isinstance(op, ast.NotIn):
        return method not in value
    if isinstance(op, ast.Eq):
        return method == value
    assert isinstance(op, ast.NotEq), guard
    return method != value


def expected(record: dict, family: str) -> str:
    raised = record["raised"]
    if record["function"] is None or not _applies(record["methods"], METHOD[family]):
        return "draft"
    if raised["default"] and raised["yarn"]:
        return "target"
    return "target-if-cache-only-rope" if raised["default"] else "draft"


@pytest.mark.parametrize("key", sorted(TRUTH))
def test_profile_position_policy_is_what_the_engine_code_did(key: str) -> None:
    (profile,) = resolve_engines(key)
    assert profile.families
    for name in profile.families:
        section = profile.family_profile(*name.split(":"))
        assert section is not None
        assert section.draft_positions == expected(TRUTH[key], name.partition(":")[0]), name


def test_the_truth_covers_every_vllm_profile() -> None:
    from eagle3_inspect.rules.en import load_profiles

    covered = {resolve_engines(k)[0].path for k in TRUTH}
    assert covered == {p.path for p in load_profiles() if p.engine == "vllm"}
