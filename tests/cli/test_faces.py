"""Every report has one face in the text formats, and every face is a report's."""

from __future__ import annotations

from eagle3_inspect.cli.render.faces import FACES
from eagle3_inspect.commands.diff import DiffReport
from eagle3_inspect.commands.fix import FixReport
from eagle3_inspect.commands.scan import ScanReport
from eagle3_inspect.commands.validate import ValidateReport

REPORTS = (ScanReport, ValidateReport, DiffReport, FixReport)


def test_each_report_has_a_face() -> None:
    assert set(FACES) == {cls.__name__ for cls in REPORTS}


def test_each_report_implements_the_report_protocol() -> None:
    for cls in REPORTS:
        for member in ("ok", "exit_code", "to_dict", "remote", "cluster_sections"):
            assert hasattr(cls, member) or member in cls.__dataclass_fields__, (cls, member)
