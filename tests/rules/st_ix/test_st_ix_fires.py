"""The ST and IX codes no other Python test produces, each from a real file on disk (the Rust
header tests in `rust/core/src/header/tests.rs` cover every ST code in memory)."""

from __future__ import annotations

import json

import eagle3_inspect
from eagle3_inspect.registry import rule
from tests.conftest import raw_file, raw_tensors

ONE = {"w": ("F32", (2,), bytes(8))}


def fired(path) -> dict:
    return {f.code: f for f in eagle3_inspect.open(path).findings}


def check(found: dict, code: str) -> None:
    assert code in found, sorted(found)
    assert found[code].severity is rule(code).severity
    assert found[code].hint == (rule(code).hint or None)


def test_st021_header_over_the_hub_limit(tmp_path):
    header = {
        "__metadata__": {"pad": "x" * 25_000_000},
        "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
    }
    found = fired(raw_file(tmp_path / "big.safetensors", header, bytes(8)))
    check(found, "ST021")
    assert found["ST021"].offset == 0


def test_ix007_index_that_is_not_json(tmp_path):
    raw_tensors(tmp_path / "model-00001-of-00001.safetensors", ONE)
    (tmp_path / "model.safetensors.index.json").write_text("{not json")
    check(fired(tmp_path), "IX007")


def test_ix007_index_without_weight_map(tmp_path):
    raw_tensors(tmp_path / "model-00001-of-00001.safetensors", ONE)
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}}))
    check(fired(tmp_path), "IX007")


def test_ix008_several_files_and_no_index(tmp_path):
    raw_tensors(tmp_path / "a.safetensors", ONE)
    raw_tensors(tmp_path / "b.safetensors", {"v": ("F32", (2,), bytes(8))})
    check(fired(tmp_path), "IX008")


def test_ix009_config_that_is_not_json_python_side(tmp_path):
    raw_tensors(tmp_path / "model.safetensors", ONE)
    (tmp_path / "config.json").write_text('{"hidden_size": 64,')
    found = fired(tmp_path)
    check(found, "IX009")
    assert found["IX009"].file.endswith("config.json")


def test_ix009_config_that_cannot_be_read_rust_side(tmp_path):
    raw_tensors(tmp_path / "model.safetensors", ONE)
    (tmp_path / "config.json").write_bytes(b'{"a": "\xff\xfe"}')  # not UTF-8
    found = fired(tmp_path)
    check(found, "IX009")
    assert "cannot be read" in found["IX009"].message
