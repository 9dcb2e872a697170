"""The concise and github line renderers on every documented code, with messages and names that
need escaping; GitHub's escaping rules exactly."""

from __future__ import annotations

import dataclasses

import pytest

from eagle3_inspect.cli.render.concise import concise_line
from eagle3_inspect.cli.render.github import escape_data, escape_property, github_line
from eagle3_inspect.cli.render.records import display_path, finding_record
from eagle3_inspect.registry import all_rules, finding
from tests.cli.line_patterns import CONCISE, GITHUB

NASTY = "100% of rows:\r\nbad, really: bad"


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_every_code_renders_to_one_matching_line(code):
    # The registry already makes a message one line (echo.clip); a finding built past it (from
    # an older JSON document, say) still renders to one line, its CR/LF escaped.
    f = dataclasses.replace(
        finding(code, "x", tensor="model.layers.0.self_attn.q_proj.weight"), message=NASTY
    )
    record = finding_record(f, "/data/drafter, v2: final")
    concise = concise_line(record)
    assert "\n" not in concise and "\r" not in concise
    m = CONCISE.fullmatch(concise)
    assert m and m["code"] == code and m["sev"] == f.severity.value
    assert m["where"].endswith(":model.layers.0.self_attn.q_proj.weight")
    github = github_line(record)
    g = GITHUB.fullmatch(github)
    assert g and g["title"] == code
    level = {"error": "error", "warning": "warning", "info": "notice"}[f.severity.value]
    assert g["level"] == level
    assert "%25" in g["msg"] and "%0D%0A" in g["msg"]
    assert g["file"] == "/data/drafter%2C v2%3A final"


def test_escaping_follows_github():
    assert escape_data("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad:e,f"
    assert escape_property("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad%3Ae%2Cf"


def test_offset_engine_and_config_key_are_kept():
    f = finding("ST015", "data ends early", tensor="fc.weight")
    f = dataclasses.replace(f, offset=4096, engine="vllm@0.20")
    line = concise_line(finding_record(f, "/x"))
    assert line.endswith("[at byte 4096]") and "(vllm@0.20)" in line
    g = finding("E3001", "missing key", config_key="eagle_config.eagle_aux_hidden_state_layer_ids")
    assert ":config:eagle_config.eagle_aux_hidden_state_layer_ids: E3001 " in concise_line(
        finding_record(g, "/x")
    )


def test_paths_inside_the_working_directory_are_relative(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert display_path(str(tmp_path / "d" / "model.safetensors")) == "d/model.safetensors"
    assert display_path("/elsewhere/model.safetensors") == "/elsewhere/model.safetensors"
