"""The next step after a validate report: for each engine version it checked, what `fix --engine`
would repair and what it cannot, from fix's own planner (`make_plan`, which runs validate's
family, target and EN checks on the planned drafter) and its own limits (d2t re-encoding,
data copied bit-exactly, errors no conversion fixes), with the exact command line. Nothing is
written; only the headers, config and the small vocab tensors are read, as `fix --dry-run` does.

A finding `remains` when the planned drafter still has its code (for that engine, or for every
engine), when it is about the weights' values (fix copies them bit-exactly) or a d2t/t2d or
file-format finding fix does not rewrite; otherwise `fix` repairs it. What remains is either the
drafter's own (every engine inherits it: retrain or re-export) or this engine version's (serve
with another version, `suggestion`)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eagle3_inspect.commands.fix.config import Refusal
from eagle3_inspect.commands.fix.plan import Plan, make_plan
from eagle3_inspect.commands.fix.verify import DATA_FAMILY
from eagle3_inspect.commands.fix.vocab import D2T_ABSOLUTE
from eagle3_inspect.errors import InspectError
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.reader.remote import is_remote

if TYPE_CHECKING:
    from eagle3_inspect.commands.validate import ValidateReport

# Families whose findings fix's plan does not re-check: the file format (fix writes new files
# but a damaged SRC is refused before planning) and the d2t/t2d analysis (only the absolute-ids
# encoding is rewritten, D2T_ABSOLUTE).
NOT_SIMULATED = ("ST", "IX", "VM")


@dataclass
class EngineAdvice:
    """What `fix --engine <engine>` does with the drafter. `status`: `fixable` (fix writes a
    drafter this version loads as trained), `blocked` (fix writes one, but errors no conversion
    fixes remain: `expected`), `refused` (fix refuses: `refusal`), `nothing-to-do`, or
    `not-planned` (`refusal` says why: a remote SRC, an unreadable one). `repaired` and
    `remaining` are the report's errors and warnings for this engine (and every engine), split
    by what the planned drafter still has; `changes` is the plan's list of changes."""

    engine: str
    status: str
    command: str
    repaired: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    refusal: tuple[str, str] | None = None
    suggestion: str | None = None

    @property
    def retrain(self) -> list[Finding]:
        """Remaining findings of the drafter itself (every engine inherits them)."""
        return [f for f in self.remaining if f.engine is None]

    @property
    def other_engine(self) -> list[Finding]:
        """Remaining findings of this engine version alone (another version may serve it)."""
        return [f for f in self.remaining if f.engine is not None]


def fix_command(src: str, engine: str, target: str | None) -> str:
    """The `fix` command line for `src`, writing beside it (`<src>-<engine>-<version>`)."""
    out = f"{src.rstrip('/')}-{engine.replace('@', '-')}"
    line = ["eagle3-inspect", "fix", src, "--engine", engine]
    if target is not None:
        line += ["--target", target]
    return shlex.join([*line, "--out", out])


def _split(report: ValidateReport, engine: str, plan: Plan) -> tuple[list[Finding], list[Finding]]:
    """The report's errors and warnings for `engine` (and every engine): (repaired, remaining)."""
    after = {(a.code, a.engine) for a in plan.after}

    def remains(f: Finding) -> bool:
        if (f.code, f.engine) in after or f.code.startswith(DATA_FAMILY):
            return True  # still planned, or about the values fix copies bit-exactly
        if f.code in D2T_ABSOLUTE:
            return plan.d2t is None
        return f.code.startswith(NOT_SIMULATED)

    repaired: list[Finding] = []
    remaining: list[Finding] = []
    for f in report.findings:
        if f.engine in (None, engine) and f.severity is not Severity.INFO:
            (remaining if remains(f) else repaired).append(f)
    return repaired, remaining


def advise(report: ValidateReport) -> list[EngineAdvice]:
    """One `EngineAdvice` per engine version the report checked (none without `engine=`)."""
    from eagle3_inspect.rules.en.loader import resolve_label

    ckpt = report.checkpoint
    target = report.target
    target_path = None if target is None else target.path
    out = []
    for label in report.engines:
        try:
            spec, profile = resolve_label(label)
        except ValueError as exc:
            command = fix_command(report.path, label, target_path)
            out.append(EngineAdvice(label, "not-planned", command, refusal=("", str(exc))))
            continue
        command = fix_command(report.path, spec, target_path)
        if ckpt is None or is_remote(report.path):
            reason = (
                "fix reads a local SRC: download it first (e.g. `hf download ORG/NAME "
                "--local-dir DIR`), then fix DIR"
                if ckpt is not None
                else "the report holds no open checkpoint to plan from"
            )
            out.append(EngineAdvice(label, "not-planned", command, refusal=("", reason)))
            continue
        try:
            plan = make_plan(profile, ckpt, target)
        except Refusal as refusal:
            advice = EngineAdvice(label, "refused", command, refusal=(refusal.code, refusal.reason))
            blocked = refusal.blocked
            if isinstance(blocked, Plan):
                advice.repaired, advice.remaining = _split(report, label, blocked)
                advice.changes = blocked.changes()
            out.append(advice)
            continue
        except (InspectError, OSError, ValueError) as exc:
            out.append(EngineAdvice(label, "not-planned", command, refusal=("", str(exc))))
            continue
        repaired, remaining = _split(report, label, plan)
        status = "blocked" if plan.expected else ("nothing-to-do" if plan.empty else "fixable")
        out.append(
            EngineAdvice(
                label,
                status,
                command,
                repaired=repaired,
                remaining=remaining,
                changes=plan.changes(),
                suggestion=plan.suggestion,
            )
        )
    return out


def validate_command(report: ValidateReport) -> str:
    """The validate command line that checks every known engine version (what a report made
    without an engine runs next to learn what fix repairs)."""
    line = ["eagle3-inspect", "validate", report.path, "--engine", "all"]
    if report.target is not None:
        line += ["--target", report.target.path]
    return shlex.join(line)
