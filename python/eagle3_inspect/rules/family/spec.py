"""`FamilySpec`: what a drafter family folder (`rules/e3`, `rules/pe`, `rules/df`) declares about
its family: how to recognise it (speculators type, architectures, config keys, tensors), its
variant and features, and its drafter and target rules. `known.py` lists them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from eagle3_inspect.findings import Finding
from eagle3_inspect.layout import Layout
from eagle3_inspect.layout.bare import BareNames
from eagle3_inspect.reader.draft_config import DraftConfig
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.family.model import Family


@dataclass(frozen=True)
class Facts:
    """What detection reads: the layout, the tensor names without `model.`, the config."""

    layout: Layout
    names: BareNames
    cfg: DraftConfig


Tensors = Mapping[str, TensorInfo]
DrafterCheck = Callable[[Tensors, DraftConfig, Layout, Family], list[Finding]]
TargetCheck = Callable[[Layout, DraftConfig, TargetInfo], list[Finding]]


@dataclass(frozen=True)
class FamilySpec:
    """One drafter family. Detection tries, in order: `speculators_types` (the config's
    `speculators_model_type`), `architectures` (its `architectures[0]`), `config_keys` (dotted
    keys whose presence declares the family), then `tensor_markers` (evidence from the names
    and shapes; empty = none)."""

    name: str
    speculators_types: frozenset[str]
    architectures: frozenset[str]
    config_keys: tuple[str, ...]
    tensor_markers: Callable[[Facts], list[str]]
    variant: Callable[[Facts], str]
    features: Callable[[Facts], tuple[str, ...]]
    check: DrafterCheck
    check_target: TargetCheck
    # Tensors the producer zero-initialises by design (regexes): all zeros there means never
    # trained, not never loaded, so NUM004 is a warning for them (`check.soften_zero_init`).
    zero_init: tuple[str, ...] = ()
