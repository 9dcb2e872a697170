"""NUM rules: findings from per-tensor statistics (NaN/Inf, all-zero, all-NaN, untrained norms,
initialisation look-alikes). Integer and bool buffers (d2t, t2d) are the VM rules' business."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from itertools import repeat
from typing import Any

from eagle3_inspect.findings import Finding, Severity, build_finding
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.reader.stats_map import stats_columns
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


def _looks_initialised(
    info: TensorInfo, numel: int, mean: float | None, std: float | None, abs_max: float | None
) -> str | None:
    if len(info.shape) != 2 or std is None or mean is None or abs_max is None:
        return None
    if numel < 4096 or std == 0:
        return None
    fan_in = info.shape[1]
    bound = 1 / math.sqrt(fan_in)
    uniform_std = bound / math.sqrt(3)
    if abs_max <= bound and abs(std - uniform_std) <= INIT_MATCH * uniform_std:
        return (
            f"uniform within ±{bound:.4g} with std {std:.4g} = bound/sqrt(3): nn.Linear's "
            "default kaiming-uniform initialisation"
        )
    if abs(std - HF_INIT_STD) <= INIT_MATCH * HF_INIT_STD and abs(mean) <= 1e-3 * HF_INIT_STD:
        return f"mean {mean:.2g}, std {std:.5g}: normal(0, 0.02), the HF initializer_range default"
    return None


# The statistics the NUM rules read, in `_check_one`'s argument order.
_READ: tuple[str, ...] = ("numel", "nan", "posinf", "neginf", "zeros", "finite", "min", "max")
_READ += ("mean", "std", "abs_max")


def check_numbers(
    tensors: dict[str, TensorInfo], stats: Mapping[str, TensorStats]
) -> list[Finding]:
    """NUM findings for every float tensor that has statistics."""
    found = stats_columns(stats)
    infos = None if found is None else _infos(tensors, found[0])
    rows: Iterable[tuple[Any, ...]]
    if found is not None and infos is not None:
        # The pass's columns, read row by row: no TensorStats built (a million-tensor header).
        names, columns = found
        n = len(names)
        values = (repeat(None, n) if columns[k] is None else columns[k] for k in _READ)
        rows = zip(names, infos, *values, strict=True)
    else:
        rows = (
            (name, tensors.get(name), *(getattr(s, k) for k in _READ)) for name, s in stats.items()
        )
    out: list[Finding] = []
    append = out.append
    # All-zero tensors can be a whole header's worth: their finding is built inline.
    zero_severity, zero_hint = _defined("NUM004")
    for name, info, numel, nan, posinf, neginf, zeros, finite, mn, mx, mean, std, abs_max in rows:
        if info is None or info.dtype not in FLOAT_DTYPES or numel == 0:
            continue
        if zeros == numel and not nan and not posinf and not neginf:
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
        _check_one(
            out, name, info, numel, nan, posinf, neginf, zeros, finite, mn, mx, mean, std, abs_max
        )
    return out


def _infos(tensors: dict[str, TensorInfo], names: list[str]) -> list[TensorInfo | None] | None:
    """`tensors.get(name)` for each of `names`, or None when a name repeats (the dict has one
    entry for it: the caller reads the dict). The table itself when `names` are all its names in
    order (a pass over every tensor): no name looked up."""
    if len(names) == len(tensors) and names == list(tensors):
        return list(tensors.values())
    if len(set(names)) != len(names):
        return None
    return list(map(tensors.get, names))


def _check_one(
    out: list[Finding],
    name: str,
    info: TensorInfo,
    numel: int,
    nan: int,
    posinf: int,
    neginf: int,
    zeros: int,
    finite: int,
    mn: float | None,
    mx: float | None,
    mean: float | None,
    std: float | None,
    abs_max: float | None,
) -> None:
    """The NUM findings of one float tensor that is not simply all zeros."""
    if nan == numel:
        out.append(_finding("NUM003", info, f"all {numel} values are NaN"))
        return
    if nan:
        out.append(_finding("NUM001", info, f"{nan} NaN of {numel} values"))
    if posinf or neginf:
        out.append(_finding("NUM002", info, f"{posinf} +Inf and {neginf} -Inf of {numel} values"))
    if zeros == numel:
        out.append(_finding("NUM004", info, f"all {numel} values are 0"))
        return
    if _is_norm(name) and mn == 1.0 and mx == 1.0 and finite == numel:
        out.append(_finding("NUM005", info, f"all {numel} values are exactly 1.0 (never trained?)"))
    verdict = _looks_initialised(info, numel, mean, std, abs_max)
    if verdict:
        out.append(_finding("NUM006", info, f"looks untrained: {verdict}"))
