"""NUM rules: findings from per-tensor statistics (NaN/Inf, all-zero, all-NaN, untrained norms,
initialisation look-alikes). Integer and bool buffers (d2t, t2d) are the VM rules' business."""

from __future__ import annotations

import functools
import math

from eagle3_inspect.findings import Finding, Severity, build_finding
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.registry import rule

# HF's LlamaConfig.initializer_range default: weights start as normal(0, 0.02).
HF_INIT_STD = 0.02
# How close (relative) a statistic must be to an initialiser's to count as "exactly" it.
INIT_MATCH = 0.005


def _is_norm(name: str) -> bool:
    leaf = name.rsplit(".", 2)
    return name.endswith(".weight") and ("norm" in leaf[-2] if len(leaf) >= 2 else False)


@functools.cache
def _defined(code: str) -> tuple[Severity, str | None]:
    """The registry's severity and hint of `code` (looked up once, not once per tensor)."""
    defined = rule(code)
    return defined.severity, defined.hint or None


def _finding(code: str, info: TensorInfo, message: str) -> Finding:
    # What registry.finding() builds, without its per-call lookups: one per tensor of a header.
    severity, hint = _defined(code)
    name = info.name
    return build_finding(
        code, severity, f"{name}: {message}", info.file, name, info.offset, None, hint
    )


def _looks_initialised(info: TensorInfo, s: TensorStats) -> str | None:
    if len(info.shape) != 2 or s.std is None or s.mean is None or s.abs_max is None:
        return None
    if s.numel < 4096 or s.std == 0:
        return None
    fan_in = info.shape[1]
    bound = 1 / math.sqrt(fan_in)
    uniform_std = bound / math.sqrt(3)
    if s.abs_max <= bound and abs(s.std - uniform_std) <= INIT_MATCH * uniform_std:
        return (
            f"uniform within ±{bound:.4g} with std {s.std:.4g} = bound/sqrt(3): nn.Linear's "
            "default kaiming-uniform initialisation"
        )
    if abs(s.std - HF_INIT_STD) <= INIT_MATCH * HF_INIT_STD and abs(s.mean) <= 1e-3 * HF_INIT_STD:
        return (
            f"mean {s.mean:.2g}, std {s.std:.5g}: normal(0, 0.02), the HF initializer_range default"
        )
    return None


def check_numbers(tensors: dict[str, TensorInfo], stats: dict[str, TensorStats]) -> list[Finding]:
    """NUM findings for every float tensor that has statistics."""
    out: list[Finding] = []
    append, get = out.append, tensors.get
    # All-zero tensors can be a whole header's worth: their finding is built inline.
    zero_severity, zero_hint = _defined("NUM004")
    for name, s in stats.items():
        info = get(name)
        if info is None or info.dtype not in FLOAT_DTYPES:
            continue
        numel = s.numel
        if numel == 0:
            continue
        if s.zeros == numel and not s.nan and not s.posinf and not s.neginf:
            tensor = info.name
            message = f"{tensor}: all {numel} values are 0"
            append(
                build_finding(
                    "NUM004",
                    zero_severity,
                    message,
                    info.file,
                    tensor,
                    info.offset,
                    None,
                    zero_hint,
                )
            )
            continue
        if s.nan == s.numel:
            out.append(_finding("NUM003", info, f"all {s.numel} values are NaN"))
            continue
        if s.nan:
            out.append(_finding("NUM001", info, f"{s.nan} NaN of {s.numel} values"))
        if s.posinf or s.neginf:
            out.append(
                _finding("NUM002", info, f"{s.posinf} +Inf and {s.neginf} -Inf of {s.numel} values")
            )
        if s.zeros == s.numel:
            out.append(_finding("NUM004", info, f"all {s.numel} values are 0"))
            continue
        if _is_norm(name) and s.min == 1.0 and s.max == 1.0 and s.finite == s.numel:
            out.append(
                _finding("NUM005", info, f"all {s.numel} values are exactly 1.0 (never trained?)")
            )
        verdict = _looks_initialised(info, s)
        if verdict:
            out.append(_finding("NUM006", info, f"looks untrained: {verdict}"))
    return out
