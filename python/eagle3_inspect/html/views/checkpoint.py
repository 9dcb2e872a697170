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
HASH_HEADER = "tensor / xxh3-128 hash"


def _file_name(t: TensorInfo) -> str:
    return t.file.rsplit("/", 1)[-1]


def _plain_row(t: TensorInfo) -> list[object]:
    return [t.name, t.dtype, shape_text(t.shape), human_bytes(t.nbytes), _file_name(t), t.offset]


def all_zero(s: TensorStats) -> bool:
    """Every element is zero (an untrained or never-loaded tensor, unless it is meant to be)."""
    return s.numel > 0 and s.zeros == s.numel


def nonfinite(s: TensorStats) -> int:
    return s.nan + s.posinf + s.neginf


def _stats_cells(s: TensorStats, abs_max_top: float | None) -> list[object]:
    bad = nonfinite(s)
    zeros = f"{s.zeros:,} ({_percent(s.zeros, s.numel)})"
    return [
        # A bar only where there is something to see: an empty NaN/Inf bar per row is noise.
        bar(share(bad, s.numel), f"{s.nan:,} / {s.posinf + s.neginf:,}", kind="bad")
        if bad
        else tag("span", "0", class_="num quiet"),
        join([tag("span", "all zero", class_="badge zero"), " ", zeros])
        if all_zero(s)
        else bar(share(s.zeros, s.numel), zeros, kind="zero")
        if s.zeros
        else tag("span", "0", class_="num quiet"),
        number(s.min),
        number(s.max),
        number(s.mean),
        number(s.std),
        bar(share(s.abs_max, abs_max_top) if s.dtype in FLOAT_DTYPES else None, number(s.abs_max)),
        number(s.l2),
    ]


def _where(t: TensorInfo, shards: bool) -> str:
    """`file @ offset` in a sharded checkpoint, the byte offset alone in a one-file one."""
    return f"{_file_name(t)} @ {t.offset}" if shards else str(t.offset)


def _stats_row(
    t: TensorInfo,
    s: TensorStats | None,
    abs_max_top: float | None,
    hashes: bool,
    shards: bool,
) -> Markup:
    # The hash goes under the name: a 32-digit column would push the statistics off the screen.
    name: object = t.name
    if hashes:
        digest = s.hash if s is not None and s.hash else "-"
        name = join([t.name, tag("div", digest, class_="hash")])
    head: list[object] = [name, _where(t, shards), t.dtype, shape_text(t.shape)]
    width = len(STATS_HEADERS) - 2
    cells = [*head, *(_stats_cells(s, abs_max_top) if s is not None else ["-"] * width)]
    anomaly = None
    if s is not None and nonfinite(s):
        anomaly = "anomaly nonfinite"
    elif s is not None and all_zero(s):
        anomaly = "anomaly all-zero"
    return tag("tr", *(tag("td", c) for c in cells), class_=anomaly, title=t.file)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def tensor_table(
    tensors: Sequence[TensorInfo],
    stats: Mapping[str, TensorStats] | None = None,
    *,
    limit: int | None = None,
) -> Markup:
    """One row per tensor, with its file and byte offset. With `stats`: NaN/Inf (only where
    there are some) and zero counts and |max| as sparkline bars (|max| relative to the largest
    in the table), the content hash when one was computed, and anomalous rows (all zero,
    NaN/Inf) highlighted; rows beyond `limit` are counted, not shown."""
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
    hashes = any(s.hash for s in stats.values())
    shards = len({t.file for t in tensors}) > 1
    first = (HASH_HEADER if hashes else "tensor", "file @ offset" if shards else "offset")
    head = tag("thead", tag("tr", *(tag("th", h) for h in (*first, *STATS_HEADERS))))
    rows = tag("tbody", *(_stats_row(t, stats.get(t.name), top, hashes, shards) for t in shown))
    return join([tag("table", head, rows, class_="tensors stats"), more])


def anomalies(tensors: Sequence[TensorInfo], stats: Mapping[str, TensorStats]) -> Markup:
    """One line per kind of anomaly the statistics show (all-zero tensors, NaN/Inf), naming the
    tensors, for the top of the page; nothing when there are none."""
    zero = [t.name for t in tensors if t.name in stats and all_zero(stats[t.name])]
    bad = [t.name for t in tensors if t.name in stats and nonfinite(stats[t.name])]
    lines = []
    for names, what, kind in (
        (bad, "tensor(s) with NaN or Inf values", "nonfinite"),
        (zero, "all-zero tensor(s)", "all-zero"),
    ):
        if names:
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            lines.append(tag("li", tag("strong", f"{len(names)} {what}: "), shown, class_=kind))
    return tag("ul", *lines, class_="anomalies") if lines else Markup("")


def checkpoint_summary(
    path: str, files: int, tensors: Sequence[TensorInfo], metadata: Mapping[str, str]
) -> Markup:
    """The title line and a key/value summary: files, tensors, parameters, bytes, dtypes."""
    dtypes: dict[str, int] = {}
    for t in tensors:
        dtypes[t.dtype] = dtypes.get(t.dtype, 0) + 1
    names = sorted({_file_name(t) for t in tensors})
    listed = f" ({', '.join(names)})" if 0 < len(names) <= 3 else ""
    items: list[tuple[object, object]] = [
        ("files", f"{files}{listed}"),
        ("tensors", f"{len(tensors):,}"),
        ("parameters", f"{sum(t.numel for t in tensors):,}"),
        ("bytes", human_bytes(sum(t.nbytes for t in tensors))),
        ("dtypes", ", ".join(f"{d} x{n}" for d, n in sorted(dtypes.items()))),
    ]
    # One row across the page: the findings and the tensors start on the first screen.
    facts = table([k for k, _ in items], [[v for _, v in items]], class_="facts")
    meta = definitions((f"metadata: {k}", v) for k, v in sorted(metadata.items()))
    return join([tag("div", path, class_="path"), facts, meta if metadata else ""])


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
