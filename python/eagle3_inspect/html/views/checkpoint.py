"""The checkpoint view: the tensor table (with per-tensor statistics and sparkline bars when a data
pass ran) and a checkpoint's summary. Used by `Checkpoint._repr_html_`, the scan view and the
HTML report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from eagle3_inspect.findings import Finding
from eagle3_inspect.html.bars import bar, share
from eagle3_inspect.html.findings import findings_table
from eagle3_inspect.html.markup import Markup, definitions, join, note, section, table, tag
from eagle3_inspect.html.page import fragment
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.units import human_bytes, number, shape_text

# A notebook view lists this many tensors and says how many more there are.
NOTEBOOK_ROWS = 200
PLAIN_HEADERS = ("tensor", "dtype", "shape", "bytes", "file", "offset")
STATS_HEADERS = (
    "tensor",
    "dtype",
    "shape",
    "NaN / Inf",
    "zeros",
    "min",
    "max",
    "mean",
    "std",
    "|max|",
    "L2",
)


def _plain_row(t: TensorInfo) -> list[object]:
    return [
        t.name,
        t.dtype,
        shape_text(t.shape),
        human_bytes(t.nbytes),
        t.file.rsplit("/", 1)[-1],
        t.offset,
    ]


def _stats_row(t: TensorInfo, s: TensorStats | None, abs_max_top: float | None) -> list[object]:
    head: list[object] = [t.name, t.dtype, shape_text(t.shape)]
    if s is None:
        return [*head, *(["-"] * (len(STATS_HEADERS) - len(head)))]
    nonfinite = s.nan + s.posinf + s.neginf
    return [
        *head,
        bar(share(nonfinite, s.numel), f"{s.nan:,} / {s.posinf + s.neginf:,}", kind="bad"),
        bar(share(s.zeros, s.numel), f"{s.zeros:,} ({_percent(s.zeros, s.numel)})", kind="zero"),
        number(s.min),
        number(s.max),
        number(s.mean),
        number(s.std),
        bar(share(s.abs_max, abs_max_top) if s.dtype in FLOAT_DTYPES else None, number(s.abs_max)),
        number(s.l2),
    ]


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def tensor_table(
    tensors: Sequence[TensorInfo],
    stats: Mapping[str, TensorStats] | None = None,
    *,
    limit: int | None = None,
) -> Markup:
    """One row per tensor. With `stats`: NaN/Inf and zero counts and |max| as sparkline bars
    (|max| relative to the largest in the table); rows beyond `limit` are counted, not shown."""
    shown = list(tensors if limit is None else tensors[:limit])
    more = (
        note(f"... and {len(tensors) - len(shown)} more tensors.")
        if len(shown) < len(tensors)
        else ""
    )
    if stats is None:
        return join([table(PLAIN_HEADERS, map(_plain_row, shown), class_="tensors"), more])
    # Bars compare float weights with each other; integer tensors (d2t ids) would dwarf them.
    tops = [s.abs_max for s in stats.values() if s.abs_max is not None and s.dtype in FLOAT_DTYPES]
    top = max(tops) if tops else None
    rows = [_stats_row(t, stats.get(t.name), top) for t in shown]
    return join([table(STATS_HEADERS, rows, class_="tensors stats"), more])


def checkpoint_summary(
    path: str, files: int, tensors: Sequence[TensorInfo], metadata: Mapping[str, str]
) -> Markup:
    """The title line and a key/value summary: files, tensors, parameters, bytes, dtypes."""
    dtypes: dict[str, int] = {}
    for t in tensors:
        dtypes[t.dtype] = dtypes.get(t.dtype, 0) + 1
    items: list[tuple[object, object]] = [
        ("files", files),
        ("tensors", len(tensors)),
        ("parameters", f"{sum(t.numel for t in tensors):,}"),
        ("bytes", human_bytes(sum(t.nbytes for t in tensors))),
        ("dtypes", ", ".join(f"{d} x{n}" for d, n in sorted(dtypes.items()))),
    ]
    items += [(f"metadata: {k}", v) for k, v in sorted(metadata.items())]
    return join([tag("div", path, class_="path"), definitions(items)])


def checkpoint_view(
    path: str,
    files: int,
    tensors: Sequence[TensorInfo],
    metadata: Mapping[str, str],
    findings: list[Finding],
) -> str:
    """`Checkpoint._repr_html_`: the summary, the first tensors and the ST/IX findings."""
    body = join(
        [
            tag("h2", "Checkpoint"),
            checkpoint_summary(path, files, tensors, metadata),
            section("Findings", findings_table(findings)),
            section("Tensors", tensor_table(tensors, limit=NOTEBOOK_ROWS)),
        ]
    )
    return fragment(body)
