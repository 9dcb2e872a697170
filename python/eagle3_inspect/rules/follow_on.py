"""Root causes across rule families: a finding that explains others absorbs them, so one problem
is said (and counted) once. The per-engine folds (a refusal, a key-dialect rename) are
`rules/en/fold.py`'s; these two cross families:

- a config.json that does not parse (IX009 on it): every check that reads the config ran on an
  empty one, so what it found (E3030 "no config.json given", the EN verdicts, config-key
  findings) is folded into the IX009 that names the file and the byte of the syntax error;
- an fc built for another number of aux states (E3009): the engine's load-time shape failure
  on that same fc.weight (EN015, per engine) is its consequence, folded into it.

The root keeps its place and severity; the count and codes of what it absorbed are appended to
its message; the absorbed findings leave the report (the `--json` too) and are not counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from eagle3_inspect.echo import clip
from eagle3_inspect.findings import Finding

BROKEN_CONFIG = "IX009"
# The family rules' "no config.json given" (the config rules were skipped).
NO_CONFIG = "E3030"
FC_ROOT = "E3009"
FC_FOLLOW_ON = "EN015"


def folded_note(absorbed: list[Finding], what: str) -> str:
    """` [N <what> folded here: CODE xN, ...]`."""
    counts = ", ".join(f"{c} x{n}" for c, n in sorted(Counter(f.code for f in absorbed).items()))
    return f" [{len(absorbed)} {what} folded here: {counts}]"


def _fold_into(
    findings: list[Finding], root: Finding, follows: Callable[[Finding], bool], what: str
) -> list[Finding]:
    absorbed = [f for f in findings if f is not root and follows(f)]
    if not absorbed:
        return findings
    # The note goes on a message already clipped to the echo cap: clip again, keeping its ends.
    head = replace(root, message=clip(root.message + folded_note(absorbed, what)))
    gone = {id(f) for f in absorbed}
    return [head if f is root else f for f in findings if id(f) not in gone]


def _needs_config(f: Finding) -> bool:
    return f.code == NO_CONFIG or f.engine is not None or f.config_key is not None


def fold_follow_ons(findings: list[Finding], config_path: str | None) -> list[Finding]:
    """`findings` with what follows from a broken config.json (at `config_path`) and from an fc
    built for another aux count folded into those root causes."""
    broken = next((f for f in findings if f.code == BROKEN_CONFIG and f.file == config_path), None)
    if broken is not None and config_path is not None:
        findings = _fold_into(
            findings, broken, _needs_config, "finding(s) that need a parsed config.json"
        )
    for fc in sorted({f.tensor for f in findings if f.code == FC_ROOT and f.tensor}):
        root = next(f for f in findings if f.code == FC_ROOT and f.tensor == fc)
        findings = _fold_into(
            findings, root, _engine_fc_check(fc), "engine consequence(s) of this fc"
        )
    return findings


def _engine_fc_check(fc: str) -> Callable[[Finding], bool]:
    """An engine's load-time shape failure (EN015) on the tensor `fc`."""
    return lambda f: f.code == FC_FOLLOW_ON and f.tensor == fc
