"""NUM rules: each fires on a drafter with the defect and stays quiet on a correct drafter."""

from __future__ import annotations

import numpy as np
import pytest

import eagle3_inspect
from eagle3_inspect.rules.num import check_numbers
from eagle3_inspect.synthetic.drafters import build_drafter, float_tensor


def num_codes(tmp_path, mutate=None) -> list[tuple[str, str]]:
    drafter = build_drafter(dialect="midlayer", H=64, Vd=256, Vt=1024, dtype="F32")
    if mutate:
        mutate(drafter.tensors)
    ckpt = eagle3_inspect.open(drafter.write(tmp_path / "d"))
    findings = check_numbers(ckpt.tensors, ckpt.stats())
    return sorted((f.code, f.tensor) for f in findings)


def f32(values) -> object:
    return float_tensor(np.asarray(values, dtype=np.float32), "F32")


def test_correct_drafter_is_quiet(tmp_path):
    assert num_codes(tmp_path) == []


def test_bf16_drafter_is_quiet(tmp_path):
    drafter = build_drafter(dialect="layers", config_style="speculators", dtype="BF16")
    ckpt = eagle3_inspect.open(drafter.write(tmp_path / "d"))
    assert check_numbers(ckpt.tensors, ckpt.stats()) == []


def _set(name, make):
    def mutate(tensors):
        shape = tensors[name].shape
        tensors[name] = f32(make(shape))

    return mutate


def _with_nan(shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32) * 0.05
    x.reshape(-1)[[3, 99]] = np.nan
    return x


def _with_inf(shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32) * 0.05
    x.reshape(-1)[7] = -np.inf
    return x


def _kaiming(shape):
    bound = 1 / np.sqrt(shape[1])
    return np.random.default_rng(0).uniform(-bound, bound, shape)


def _hf_normal(shape):
    x = np.random.default_rng(0).standard_normal(shape)
    return (x - x.mean()) / x.std() * 0.02


@pytest.mark.parametrize(
    ("code", "tensor", "make"),
    [
        ("NUM001", "fc.weight", _with_nan),
        ("NUM002", "midlayer.mlp.up_proj.weight", _with_inf),
        ("NUM003", "lm_head.weight", lambda s: np.full(s, np.nan)),
        ("NUM004", "midlayer.hidden_norm.weight", np.zeros),
        ("NUM005", "norm.weight", np.ones),
        ("NUM006", "fc.weight", _kaiming),
        ("NUM006", "midlayer.self_attn.o_proj.weight", _hf_normal),
    ],
)
def test_rule_fires(tmp_path, code, tensor, make):
    assert num_codes(tmp_path, _set(tensor, make)) == [(code, tensor)]
