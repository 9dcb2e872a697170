"""eagle3-inspect: find the silent format mismatches behind an EAGLE-3 drafter's zero acceptance.

import eagle3_inspect
ckpt = eagle3_inspect.open("path/to/drafter")
for finding in ckpt.findings: ...

The public names are loaded on first use (PEP 562), so `eagle3-inspect --version` and `rules` do
not pay for numpy and the report modules, and a subpackage that needs no Rust (the installed-engine
harness, imported by torch-only tools and workers) can be imported without `_native`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eagle3_inspect import errors
    from eagle3_inspect.commands.diff import DiffReport, diff
    from eagle3_inspect.commands.fix import FixReport, fix
    from eagle3_inspect.commands.scan import ScanReport, scan
    from eagle3_inspect.commands.servable import require_servable
    from eagle3_inspect.commands.validate import ValidateReport, validate
    from eagle3_inspect.findings import Finding, Severity
    from eagle3_inspect.reader.checkpoint import Checkpoint, FileInfo
    from eagle3_inspect.reader.opening import open_checkpoint as open

    Report = ValidateReport
    from eagle3_inspect.reader.tensorinfo import TensorInfo
    from eagle3_inspect.version import __version__

# Public name -> the module that defines it (and its name there, when it differs).
_LAZY: dict[str, str | tuple[str, str]] = {
    "Checkpoint": "eagle3_inspect.reader.checkpoint",
    "DiffReport": "eagle3_inspect.commands.diff",
    "FileInfo": "eagle3_inspect.reader.checkpoint",
    "FixReport": "eagle3_inspect.commands.fix",
    "Finding": "eagle3_inspect.findings",
    "Report": ("eagle3_inspect.commands.validate", "ValidateReport"),  # its name before 0.2
    "ScanReport": "eagle3_inspect.commands.scan",
    "ValidateReport": "eagle3_inspect.commands.validate",
    "Severity": "eagle3_inspect.findings",
    "TensorInfo": "eagle3_inspect.reader.tensorinfo",
    "__version__": "eagle3_inspect.version",
    "diff": "eagle3_inspect.commands.diff",
    "fix": "eagle3_inspect.commands.fix",
    "open": ("eagle3_inspect.reader.opening", "open_checkpoint"),
    "require_servable": "eagle3_inspect.commands.servable",
    "scan": "eagle3_inspect.commands.scan",
    "validate": "eagle3_inspect.commands.validate",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        # Subpackages (eagle3_inspect.reader, ...) stay reachable as attributes, as before.
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module 'eagle3_inspect' has no attribute {name!r}") from None
    module, attribute = (module, name) if isinstance(module, str) else module
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


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
    "ValidateReport",
    "__version__",
    "diff",
    "errors",
    "fix",
    "open",
    "require_servable",
    "scan",
    "validate",
]
