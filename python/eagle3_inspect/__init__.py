"""eagle3-inspect: find the silent format mismatches behind an EAGLE-3 drafter's zero acceptance.

import eagle3_inspect
ckpt = eagle3_inspect.open("path/to/drafter")
for finding in ckpt.findings: ...
"""

from eagle3_inspect._native import VERSION as __version__
from eagle3_inspect.commands.diff import DiffReport, diff
from eagle3_inspect.commands.fix import FixReport, fix
from eagle3_inspect.commands.scan import ScanReport, scan
from eagle3_inspect.commands.validate import Report, validate
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.reader.checkpoint import Checkpoint, FileInfo, open
from eagle3_inspect.reader.tensorinfo import TensorInfo

__all__ = [
    "Checkpoint",
    "DiffReport",
    "FileInfo",
    "Finding",
    "FixReport",
    "Report",
    "ScanReport",
    "Severity",
    "TensorInfo",
    "__version__",
    "diff",
    "fix",
    "open",
    "scan",
    "validate",
]
