"""`aux_capture`: the aux layers an engine version captures, stated from the functions the EN
checks use, and agreeing with them (EN006 exactly where the target class cannot capture)."""

from __future__ import annotations

import pytest

import eagle3_inspect
from eagle3_inspect.reader.target import load_target
from eagle3_inspect.rules.en import resolve_engines
from eagle3_inspect.rules.en.captured import aux_capture, aux_captures
from eagle3_inspect.synthetic.demo import CAPTURE_ENGINE, ENGINE, write_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo(tmp_path_factory.mktemp("captured"))


def profile(label: str):
    [engine] = resolve_engines(label)
    found = engine.family_profile("eagle3")
    assert found is not None
    return found


def test_the_ids_read_and_the_layers_they_capture(demo):
    ckpt = eagle3_inspect.open(demo.correct)
    capture = aux_capture(profile(ENGINE), ckpt.config, load_target(demo.target))
    assert capture.engine == ENGINE
    assert capture.read_from == "eagle_config.eagle_aux_hidden_state_layer_ids"
    # SGLang shifts output-of ids by one into capture-before-layer indices.
    assert capture.convention == "output-of"
    assert capture.layers == [i + 1 for i in capture.ids]
    assert capture.top == 60  # 61 layers, captured inside the layer loop
    assert capture.target_captures is True


def test_a_config_without_ids_gets_the_engine_default():
    capture = aux_capture(profile("vllm@0.20"), {}, None)
    assert capture.read_from is None and capture.ids is None and capture.layers is None
    assert capture.default  # what the engine uses instead, in words
    assert capture.target_captures is None  # no target: not checked


@pytest.mark.parametrize("label", [ENGINE, CAPTURE_ENGINE])
def test_target_captures_agrees_with_en006(demo, label):
    report = eagle3_inspect.validate(demo.correct, engine=label, target=demo.target, stats=False)
    config = report.checkpoint.config
    [capture] = aux_captures(report.engines, "eagle3", None, config, report.target)
    en006 = any(f.code == "EN006" for f in report.findings)
    assert capture.target_captures is (not en006)
    assert en006 is (label == CAPTURE_ENGINE)  # SGLang 0.5.9 cannot capture Kimi-K2.5's states
