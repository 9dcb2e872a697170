"""Where a page came from, in its footer: the version that wrote it, when, and the command line
that made it (the CLI passes its own), else the Python API call that the report's recorded
options give."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from eagle3_inspect.html.markup import Markup, tag
from eagle3_inspect.version import PRODUCER

if TYPE_CHECKING:
    from eagle3_inspect.commands.diff import DiffReport
    from eagle3_inspect.commands.scan import ScanReport
    from eagle3_inspect.commands.validate import ValidateReport


@dataclass(frozen=True)
class Provenance:
    """`command`: the command line (or API call) that made the report; `written`: when the page
    was written (at the end of the run, for the CLI)."""

    command: str
    written: datetime

    @classmethod
    def of(
        cls,
        report: ScanReport | ValidateReport | DiffReport,
        command: str | None,
        written: datetime | None,
    ) -> Provenance:
        when = written if written is not None else datetime.now(timezone.utc)
        return cls(command if command is not None else api_call(report), when)

    def footer(self) -> Markup:
        when = self.written.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        return tag(
            "footer",
            tag("span", PRODUCER, class_="producer"),
            " · ",
            tag("time", when, datetime=self.written.isoformat()),
            " · ",
            tag("code", self.command, class_="command"),
            class_="run",
        )


def _call(name: str, args: list[object], options: dict[str, object]) -> str:
    given = [repr(a) for a in args]
    given += [f"{key}={value!r}" for key, value in options.items() if value is not None]
    return f"eagle3_inspect.{name}({', '.join(given)})"


def api_call(report: ScanReport | ValidateReport | DiffReport) -> str:
    """The API call the report's recorded options give (a report made through the API has no
    command line)."""
    from eagle3_inspect.commands.diff import DiffReport
    from eagle3_inspect.commands.validate import ValidateReport

    if isinstance(report, ValidateReport):
        options: dict[str, object] = {
            "engine": ",".join(report.engines) or None,
            "target": None if report.target is None else report.target.path,
            "fail_on": None if report.fail_on.value == "error" else report.fail_on.value,
        }
        return _call("validate", [report.path], options)
    if isinstance(report, DiffReport):
        options = {
            "structure_only": True if report.structure_only else None,
            "renames": None if report.renames else False,
            "filter": report.filter,
            "rtol": report.rtol,
            "atol": report.atol,
        }
        return _call("diff", [report.a.path, report.b.path], options)
    stats = report.stats
    options = {
        "filter": report.filter,
        "stats": True if stats is not None else None,
        "hashes": True if stats is not None and any(s.hash for s in stats.values()) else None,
    }
    return _call("scan", [report.checkpoint.path], options)
