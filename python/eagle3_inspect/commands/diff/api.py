"""`diff(a, b)`: opens both checkpoints, matches tensor names (renames by dialect rules and by
content hash), compares every matched pair numerically in the native engine, and diffs
`__metadata__`, config.json and the d2t/t2d vocab mapping."""

from __future__ import annotations

import os
from typing import Any

from eagle3_inspect.commands.diff.config import config_diff, key_path_diff
from eagle3_inspect.commands.diff.match import Matching, match_names, select
from eagle3_inspect.commands.diff.report import DiffReport, PairResult
from eagle3_inspect.commands.diff.vocab import compare_vocab
from eagle3_inspect.commands.tensor_filter import require_match
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.compare import content_hashes, diff_pairs
from eagle3_inspect.reader.opening import PathMap, RayOption, connect, open_checkpoint
from eagle3_inspect.reader.stats import ProgressCallback

PathOrCheckpoint = str | os.PathLike[str] | Checkpoint


def _metadata_diff(ca: Checkpoint, cb: Checkpoint) -> dict[str, Any]:
    """The `__metadata__` diff; none when a side is only torch files, which have no metadata to
    compare (a `.bin` against its safetensors twin differs in format, not in content)."""
    if not all(any(f.format == "safetensors" for f in c.files) for c in (ca, cb)):
        return key_path_diff({}, {})
    return key_path_diff(ca.metadata, cb.metadata)


def _all_names(ckpt: Checkpoint) -> set[str]:
    return set(ckpt.tensors) | ckpt.unreadable


def _pair_result(a: Checkpoint, b: Checkpoint, name_a: str, name_b: str) -> PairResult:
    ia, ib = a.tensors.get(name_a), b.tensors.get(name_b)
    return PairResult(
        name=name_a,
        name_b=name_b,
        dtype=(ia.dtype if ia else "?", ib.dtype if ib else "?"),
        shape=(tuple(ia.shape) if ia else None, tuple(ib.shape) if ib else None),
    )


def _readable(ckpt: Checkpoint, name: str) -> bool:
    return name in ckpt.tensors and name not in ckpt.unreadable


def diff(
    a: PathOrCheckpoint,
    b: PathOrCheckpoint,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    structure_only: bool = False,
    renames: bool = True,
    filter: str | None = None,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
    ray: RayOption | None = None,
    ray_path_map: PathMap = None,
) -> DiffReport:
    """Compares checkpoint `a` with `b` (each a file, sharded directory, HF cache snapshot, an
    `hf://` model or `http(s)://` URL, or an open Checkpoint). Tensors match by logical name,
    whichever shard holds them.

    `rtol`/`atol` override the per-dtype defaults (torch.testing's; see the core `tolerance`
    docs). `structure_only` reads headers only: no numeric pass, no content hashes, so renames
    are found by dialect rules alone and pairs get no status. `renames=False` reports renamed
    tensors as removed + added. `filter` is a glob on tensor names (as written or in canonical
    `layers.N.` form). `progress(done, total)` is called during the hash and numeric passes.

    Per pair: `equal` (same dtype, shape and bytes), `close` (same shape, every element within
    `|a-b| <= atol + rtol*|b|`, NaN only equal to NaN, infinities equal in sign), or `differ`.
    Pairs with another shape but the same element count are compared in flat order (a reshape
    shows max_abs 0) and are still `differ`; with another element count they get no metrics.
    A dtype change with values within tolerance is `close`: it passes the verdict, and is
    listed in `changed` with both dtypes. Metrics are in f64 (64-bit integers above 2**53 round;
    with exact tolerance their mismatch count is still exact).
    """
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    for what, value in (("rtol", rtol), ("atol", atol)):
        if value is not None and not value >= 0:
            raise ValueError(f"{what} must be >= 0, got {value}")
    session = None if ray is None else connect(ray, ray_path_map)
    ca = open_checkpoint(a, ray=session, ray_path_map=ray_path_map)
    cb = open_checkpoint(b, ray=session, ray_path_map=ray_path_map)
    names_a = select(_all_names(ca), filter)
    names_b = select(_all_names(cb), filter)
    require_match(filter, len(names_a) + len(names_b), ca.path, cb.path)

    def hashes(side: str, names: list[str]) -> dict[str, str]:
        ckpt = ca if side == "a" else cb
        readable = [n for n in names if _readable(ckpt, n)]
        found = content_hashes(ckpt, readable, threads=threads, progress=progress)
        for name in _changed(ckpt, readable):
            found.pop(name, None)  # the file shrank under the pass: no trustworthy hash
        # Unreadable tensors get a unique placeholder so they never match by content.
        return {n: found.get(n, f"unreadable:{side}:{n}") for n in names}

    matching: Matching = match_names(
        names_a,
        names_b,
        renames=renames,
        infos=(ca.tensors, cb.tensors),
        hashes=None if structure_only else hashes,
    )
    matching.pairs.sort()
    pairs = [_pair_result(ca, cb, x, y) for x, y in matching.pairs]
    report = DiffReport(
        a=ca,
        b=cb,
        matching=matching,
        pairs=pairs,
        metadata=_metadata_diff(ca, cb),
        config=config_diff(ca.config, cb.config),
        structure_only=structure_only,
        renames=renames,
        filter=filter,
        rtol=rtol,
        atol=atol,
    )
    if not structure_only:
        _compare(report, rtol=rtol, atol=atol, threads=threads, progress=progress)
        report.vocab = compare_vocab(ca, cb)
        _same_mapping(report)
    return report


def _same_mapping(report: DiffReport) -> None:
    """The d2t pair of two encodings of one mapping is marked as such: not a failure, and its
    note says what differs (the bytes) and what does not (the draft-to-target mapping)."""
    vocab = report.vocab
    if vocab is None or not vocab["same_mapping"] or vocab["same_encoding"]:
        return
    side_a, side_b = vocab["a"], vocab["b"]
    for pair in report.pairs:
        if pair.status == "differ" and (pair.name, pair.name_b) == (side_a["d2t"], side_b["d2t"]):
            pair.same_mapping = True
            pair.note = (
                f"the same draft-to-target mapping: {side_a['encoding']} in A, "
                f"{side_b['encoding']} in B (engines read offsets)"
            )


def _compare(report: DiffReport, **options: Any) -> None:
    todo = []
    for pair in report.pairs:
        if _readable(report.a, pair.name) and _readable(report.b, pair.name_b):
            todo.append(pair)
        else:
            pair.status, pair.note = "differ", "unreadable on at least one side"
    results = diff_pairs(report.a, report.b, [(p.name, p.name_b) for p in todo], **options)
    changed_a = _changed(report.a, [p.name for p in todo])
    changed_b = _changed(report.b, [p.name_b for p in todo])
    for pair, result in zip(todo, results, strict=True):
        pair.status = result["status"]
        pair.metrics = result
        if pair.name in changed_a or pair.name_b in changed_b:
            pair.status, pair.note, pair.metrics = "differ", "file shrank during the read", None


def _changed(ckpt: Checkpoint, names: list[str]) -> set[str]:
    """Names whose file shrank during a data pass (each gets an IX011 finding on `ckpt`)."""
    return {f.tensor for f in ckpt.changed(names) if f.tensor}
