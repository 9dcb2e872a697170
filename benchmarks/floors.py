"""The raw-read floor passes every data pass is compared with (`_native.sum_words` over a
checkpoint's readable tensors, with and without dropping their pages after reading), as ops."""

from __future__ import annotations

import functools

import eagle3_inspect
from eagle3_inspect import _native
from timing import Op


def readable(ckpt: eagle3_inspect.Checkpoint) -> list[str]:
    return [n for n in ckpt.tensors if n not in ckpt.unreadable]


def floor_ops(ckpt, label: str, threads: list[int], kept: bool = True) -> list[Op]:
    """Floor passes over `ckpt`, keyed `floor{label}:{t}` (and, with `kept`,
    `... (pages kept mapped)`)."""
    names = readable(ckpt)
    nbytes = sum(ckpt.tensors[x].nbytes for x in names)
    ops = []
    kinds = ((True, ""), (False, " (pages kept mapped)")) if kept else ((True, ""),)
    for t in threads:
        for release, suffix in kinds:

            def run(t=t, release=release):
                return _native.sum_words(ckpt._native, names, threads=t, release_pages=release)

            op = Op(f"floor{label}{suffix}:{t}", f"raw-read floor{label}{suffix}", t, run, nbytes)
            if not release:
                # Map every page first, time a pass over mapped pages, then unmap them again so
                # every other op starts, like a fresh process, with nothing mapped.
                op.setup = run
                op.teardown = functools.partial(run, release=True)
            ops.append(op)
    return ops
