"""`fix`: write the drafter that a named engine version loads as trained, verified before it is
declared done. `plan` decides (from validate's own checks), `output` writes atomically beside
DST (reading every written tensor back and comparing it with its source as it goes), `verify`
re-validates the written copy and checks it against the plan before it is renamed into place:
one read of SRC and one write of DST in all."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eagle3_inspect.commands.fix.config import Refusal
from eagle3_inspect.commands.fix.contract import verifier_name
from eagle3_inspect.commands.fix.destination import (
    check_destination,
    claimed,
    commit,
    discard,
    remove_stale,
)
from eagle3_inspect.commands.fix.output import side_file_steps, stage
from eagle3_inspect.commands.fix.plan import Plan, Verifier, make_plan
from eagle3_inspect.commands.fix.report import SCHEMA, FixReport
from eagle3_inspect.commands.fix.verify import verify
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.remote import is_remote
from eagle3_inspect.reader.target import load_target

if TYPE_CHECKING:
    from eagle3_inspect.rules.en.profile import EngineProfile

__all__ = ["SCHEMA", "FixReport", "Plan", "Refusal", "fix"]


def _profile(engine: str) -> EngineProfile:
    from eagle3_inspect.rules.en import resolve_engines

    profiles = resolve_engines(engine) if engine else []
    if len(profiles) != 1:
        raise InvalidArgumentError(f"fix needs exactly one engine version, got {engine!r}")
    return profiles[0]


def fix(
    src: str | os.PathLike[str],
    *,
    engine: str,
    out: str | os.PathLike[str],
    target: str | os.PathLike[str] | None = None,
    dry_run: bool = False,
    force: bool = False,
    drop_unused: bool = False,
    threads: int | None = None,
    verifier: str | None = None,
) -> FixReport:
    """Plans, writes and verifies SRC converted for `engine` ("sglang@0.5.11") into `out`.
    Raises for paths that cannot be used (missing SRC, existing DST without `force`, DST
    overlapping SRC), `BlockingIOError` while another run writes the same DST, and
    `FileExistsError` when DST appears during the run (without `force`; it is left as it is);
    a drafter that cannot be fixed without guessing is `status="refused"`. `verifier` names
    the verifier speculators loads (`speculators_config.verifier.name_or_path`; default: the
    `target`'s directory or Hub id)."""
    profile = _profile(engine)
    if is_remote(src):
        # The writer copies tensors from local maps, and DST must be checked against SRC's files.
        raise InvalidArgumentError(
            f"fix reads a local SRC, not {os.fspath(src)}: download it first "
            "(e.g. `hf download ORG/NAME --local-dir DIR`), then fix DIR"
        )
    ckpt = Checkpoint(src)
    dst = Path(out)
    target_info = load_target(target) if target is not None else None
    report = FixReport(
        source=ckpt.path,
        destination=os.fspath(dst),
        engine=profile.label,
        status="planned",
        target=None if target is None else os.fspath(target),
    )
    check_destination(ckpt, dst, force)
    side_file_steps(ckpt)  # a link leaving SRC is refused before any work, dry run or not
    try:
        chosen = Verifier(verifier, True) if verifier else Verifier(verifier_name(target))
        plan = make_plan(profile, ckpt, target_info, drop_unused, chosen)
    except Refusal as refusal:
        report.status = "refused"
        report.refusal = {"code": refusal.code, "reason": refusal.reason}
        return report
    report.changes = plan.changes()
    report.notes = plan.notes
    report.expected = [f.to_dict() for f in plan.expected]
    report.suggestion = plan.suggestion
    if plan.empty:
        report.status = "nothing-to-do"
        return report
    if dry_run:
        return report
    with claimed(dst):
        # Again under the lock: a run that held it may have just put its DST in place.
        check_destination(ckpt, dst, force)
        remove_stale(dst)
        _write_verified(report, ckpt, plan, dst, engine, target, force, threads)
    return report


def _write_verified(
    report: FixReport,
    ckpt: Checkpoint,
    plan: Plan,
    dst: Path,
    engine: str,
    target: str | os.PathLike[str] | None,
    force: bool,
    threads: int | None,
) -> None:
    """Stages, verifies and (if verified) renames into place; the staging directory is gone
    afterwards whatever happens (exception, Ctrl-C, a DST that appeared meanwhile)."""
    tmp, report.side_files, written = stage(ckpt, plan, dst, threads)
    committed = False
    try:
        target_path = None if target is None else os.fspath(target)
        report.verification = verify(ckpt, tmp, plan, engine, target_path, threads, written)
        if not report.verification["ok"]:
            report.status = "unverified"
            return
        commit(tmp, dst, force)
        committed = True
    finally:
        if not committed:
            discard(tmp)
    _relocate(report.verification, os.fspath(tmp), os.fspath(dst))
    report.status = "fixed"


def _relocate(verification: dict[str, Any], staged: str, final: str) -> None:
    """Findings from the verification name files in the staging directory, now renamed to DST."""
    for key in ("errors", "expected"):
        for finding in verification["validate"][key]:
            if isinstance(finding.get("file"), str) and finding["file"].startswith(staged):
                finding["file"] = final + finding["file"][len(staged) :]
