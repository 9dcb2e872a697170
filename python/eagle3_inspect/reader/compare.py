"""The native calls behind `diff`: content hashes, numeric comparison of tensor pairs, and the
d2t/t2d analysis and comparison by explicit tensor names. Kept in the reader beside the other
consumers of `_native` results, so a change in how the binding returns data stays here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eagle3_inspect import _native
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.stats import ProgressCallback


def content_hashes(
    ckpt: Checkpoint,
    names: Sequence[str],
    *,
    threads: int | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, str]:
    """`{name: xxh3-128 tree hash}` of the readable tensors `names`."""
    # A checkpoint whose bytes live on other machines (cluster/) hashes them where they are.
    remote = getattr(ckpt, "remote_content_hashes", None)
    if remote is not None:
        hashed: dict[str, str] = remote(list(names), threads=threads, progress=progress)
        return hashed
    return _native.content_hashes(ckpt._native, list(names), threads=threads, progress=progress)


def diff_pairs(
    a: Checkpoint, b: Checkpoint, pairs: Sequence[tuple[str, str]], **options: Any
) -> list[_native.PairDiff]:
    """One metrics dict per (name in A, name in B) pair, in order (see `_native.diff_pairs`)."""

    def local(chosen: list[tuple[str, str]], **opts: Any) -> list[_native.PairDiff]:
        return _native.diff_pairs(a._native, b._native, chosen, **opts)

    # Checkpoints whose bytes live on other machines (cluster/) compare where the bytes are.
    remote = getattr(a, "remote_diff_pairs", None)
    if remote is not None:
        compared: list[_native.PairDiff] = remote(b, list(pairs), local, **options)
        return compared
    return local(list(pairs), **options)


def vocab_analysis(
    ckpt: Checkpoint, vocab: tuple[int | None, int | None], names: tuple[str, str]
) -> _native.VocabAnalysis:
    """The d2t/t2d analysis with explicit (Vd, Vt) and (d2t, t2d) tensor names."""
    return _native.vocab_mapping(
        ckpt._native, draft_vocab=vocab[0], target_vocab=vocab[1], d2t=names[0], t2d=names[1]
    )


def vocab_comparison(
    a: Checkpoint,
    b: Checkpoint,
    vocab: tuple[tuple[int | None, int | None], tuple[int | None, int | None]],
    names: tuple[tuple[str, str], tuple[str, str]],
) -> _native.VocabComparison:
    """Both sides' analyses and whether they map and select the same target tokens."""
    return _native.compare_vocab(
        a._native, b._native, vocab_a=vocab[0], vocab_b=vocab[1], names_a=names[0], names_b=names[1]
    )
