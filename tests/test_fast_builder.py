"""records.fast_builder: instances equal to the frozen dataclass's own, and as frozen."""

from __future__ import annotations

import dataclasses

import pytest

from eagle3_inspect.findings import Finding, Severity, build_finding
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.records import fast_builder


def test_built_finding_is_a_plain_frozen_finding_equal_to_the_constructed_one():
    args = ("NUM004", Severity.ERROR, "w: all 4 values are 0")
    where = {"file": "/x.safetensors", "tensor": "w", "offset": 16, "hint": "re-export"}
    built, made = build_finding(*args, **where), Finding(*args, **where)
    assert type(built) is Finding
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
    assert built.to_dict() == made.to_dict()
    assert built.config_key is None and built.engine is None  # the defaults
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.code = "NUM001"  # type: ignore[misc]
    assert dataclasses.replace(built, tensor="v") == dataclasses.replace(made, tensor="v")


def test_built_stats_and_infos_equal_the_constructed_ones():
    row = ("F32", 4, 0, 0, 0, 4, 4, 0.0, -0.0, 0.0, 0.0, 0.0, 0.0, None, None, None, None, "h")
    stats = fast_builder(TensorStats)(*row)
    assert type(stats) is TensorStats and stats == TensorStats(*row)
    assert stats.to_dict() == TensorStats(*row).to_dict()
    info = fast_builder(TensorInfo)("w", "F32", (2, 2), 16, "/x", 8)
    assert info == TensorInfo("w", "F32", (2, 2), 16, "/x", 8) and info.numel == 4
    with pytest.raises(TypeError):
        fast_builder(TensorInfo)("w", "F32")  # missing fields are refused as by the dataclass


def test_classes_the_builder_cannot_mirror_are_refused():
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        a: list[int] = dataclasses.field(default_factory=list)

    for cls in (NoSlots, Checked, Factory):
        with pytest.raises(TypeError):
            fast_builder(cls)
