"""eagle3-inspect: find the silent format mismatches behind an EAGLE-3 drafter's zero acceptance.

import eagle3_inspect
ckpt = eagle3_inspect.open("path/to/drafter")
for finding in ckpt.findings: ...
"""

from eagle3_inspect._native import VERSION as __version__
from eagle3_inspect.checkpoint import Checkpoint, FileInfo, open
from eagle3_inspect.diff import DiffReport, diff
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.scan import ScanReport, scan
from eagle3_inspect.tensorinfo import TensorInfo
from eagle3_inspect.validate import Report, validate

__all__ = [
    "Checkpoint",
    "DiffReport",
    "FileInfo",
    "Finding",
    "Report",
    "ScanReport",
    "Severity",
    "TensorInfo",
    "__version__",
    "diff",
    "open",
    "scan",
    "validate",
]
