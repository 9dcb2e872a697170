"""Matching tensor names across two checkpoints: same names, renames by EAGLE-3 dialect rules
(`midlayer.` <-> `layers.0.`, `midlayer.N.`/`midlayers.N.` <-> `layers.N.`, a `model.` prefix),
renames by identical content (same dtype, shape and content hash), and what is left over."""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from eagle3_inspect.layout.names import canonical_name
from eagle3_inspect.reader.tensorinfo import TensorInfo

HashFn = Callable[[str, list[str]], dict[str, str]]
"""`hashes(side, names) -> {name: hash}` with side "a" or "b"."""


@dataclass(frozen=True)
class Rename:
    """A tensor named `source` in A and `target` in B; `by` says how the match was made:
    `dialect:<rules>` (the rules that differ between the two names, joined by `+`) or `hash`."""

    source: str
    target: str
    by: str

    def to_dict(self) -> dict[str, str]:
        return {"from": self.source, "to": self.target, "by": self.by}


@dataclass
class Matching:
    """The name-level result: pairs to compare (A name, B name), renames, added and removed."""

    pairs: list[tuple[str, str]] = field(default_factory=list)
    renamed: list[Rename] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def select(names: Iterable[str], pattern: str | None) -> list[str]:
    """Names matching the glob `pattern` as written or in canonical form (all when None), so a
    filter written in one dialect selects the same tensors on both sides."""
    if pattern is None:
        return sorted(names)
    return sorted(
        n
        for n in names
        if fnmatch.fnmatchcase(n, pattern) or fnmatch.fnmatchcase(canonical_name(n)[0], pattern)
    )


def match_names(
    names_a: list[str],
    names_b: list[str],
    *,
    renames: bool = True,
    infos: tuple[dict[str, TensorInfo], dict[str, TensorInfo]] | None = None,
    hashes: HashFn | None = None,
) -> Matching:
    """Pairs equal names, then (when `renames`) dialect renames, then (when `hashes` and `infos`
    are given) renames by identical dtype, shape and content hash. Ambiguous dialect matches
    (two B names with the same canonical form) are left unmatched; several tensors with the
    same content pair up in name order."""
    set_b = set(names_b)
    result = Matching()
    result.pairs = [(n, n) for n in names_a if n in set_b]
    only_a = [n for n in names_a if n not in set_b]
    only_b = [n for n in names_b if n not in set(names_a)]
    if renames:
        only_a, only_b = _by_dialect(only_a, only_b, result)
        if hashes is not None and infos is not None:
            only_a, only_b = _by_hash(only_a, only_b, infos, hashes, result)
    result.removed, result.added = only_a, only_b
    return result


def _by_dialect(
    only_a: list[str], only_b: list[str], result: Matching
) -> tuple[list[str], list[str]]:
    by_canon: dict[str, list[str]] = defaultdict(list)
    for name in only_b:
        by_canon[canonical_name(name)[0]].append(name)
    taken: set[str] = set()
    left_a = []
    for name in only_a:
        canon, rules_a = canonical_name(name)
        candidates = by_canon.get(canon, [])
        if len(candidates) == 1 and candidates[0] not in taken:
            target = candidates[0]
            taken.add(target)
            rules = sorted(rules_a ^ canonical_name(target)[1])
            result.renamed.append(Rename(name, target, "dialect:" + "+".join(rules)))
            result.pairs.append((name, target))
        else:
            left_a.append(name)
    return left_a, [n for n in only_b if n not in taken]


def _signature(info: TensorInfo) -> tuple[str, tuple[int, ...]]:
    return info.dtype, tuple(info.shape)


def _by_hash(
    only_a: list[str],
    only_b: list[str],
    infos: tuple[dict[str, TensorInfo], dict[str, TensorInfo]],
    hashes: HashFn,
    result: Matching,
) -> tuple[list[str], list[str]]:
    info_a, info_b = infos
    sigs_a = {_signature(info_a[n]) for n in only_a if n in info_a}
    sigs_b = {_signature(info_b[n]) for n in only_b if n in info_b}
    common = sigs_a & sigs_b
    cand_a = [n for n in only_a if n in info_a and _signature(info_a[n]) in common]
    cand_b = [n for n in only_b if n in info_b and _signature(info_b[n]) in common]
    if not cand_a or not cand_b:
        return only_a, only_b
    hash_a, hash_b = hashes("a", cand_a), hashes("b", cand_b)
    groups: dict[tuple[Any, ...], tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for name in cand_a:
        groups[(_signature(info_a[name]), hash_a[name])][0].append(name)
    for name in cand_b:
        groups[(_signature(info_b[name]), hash_b[name])][1].append(name)
    matched_a: set[str] = set()
    matched_b: set[str] = set()
    for names_a, names_b in groups.values():
        for source, target in zip(sorted(names_a), sorted(names_b), strict=False):
            result.renamed.append(Rename(source, target, "hash"))
            result.pairs.append((source, target))
            matched_a.add(source)
            matched_b.add(target)
    result.renamed.sort(key=lambda r: r.source)
    return [n for n in only_a if n not in matched_a], [n for n in only_b if n not in matched_b]
