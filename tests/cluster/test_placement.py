"""Discovery on a node and the choice of one reader per shard (no cluster needed)."""

from __future__ import annotations

import os

import pytest

from eagle3_inspect.cluster.discover import discover, shown_root
from eagle3_inspect.cluster.pathmap import NodeInfo, node_path, parse_path_map, root_for
from eagle3_inspect.cluster.placement import place
from eagle3_inspect.errors import InvalidArgumentError


def _node(i: int) -> NodeInfo:
    return NodeInfo(f"{i:02d}" * 28, "127.0.0.1", f"n{i}")


def _report(files: dict[str, int], **extra):
    return {
        "kind": "dir",
        "local_root": "/x",
        "files": [{"name": n, "size": s, "identity": (0, 0, 0)} for n, s in files.items()],
        "index": None,
        "config": None,
        **extra,
    }


def test_a_shard_on_two_nodes_is_read_once_by_the_less_loaded_one():
    placement = place(
        [
            (_node(1), _report({"big": 100, "small": 10})),
            (_node(2), _report({"mid": 50, "small": 10})),
        ]
    )
    readers = {f.name: f.holders[0].label for f in placement.files}
    assert readers == {"big": "n1", "mid": "n2", "small": "n2"}
    small = next(f for f in placement.files if f.name == "small")
    assert [h.label for h in small.holders] == ["n2", "n1"]  # n1 is the fall-back


def test_placement_is_deterministic_whatever_the_report_order():
    reports = [(_node(i), _report({"a": 5, "b": 5, "c": 5})) for i in range(3)]
    first = [(f.name, f.holders[0].node_id) for f in place(reports).files]
    again = [(f.name, f.holders[0].node_id) for f in place(reports[::-1]).files]
    assert first == again
    assert len({node for _, node in first}) == 3  # equal shards spread over the nodes


def test_copies_of_different_sizes_use_the_majority_and_are_reported():
    placement = place(
        [
            (_node(1), _report({"a": 5})),
            (_node(2), _report({"a": 5})),
            (_node(3), _report({"a": 7})),
        ]
    )
    assert placement.conflicts == ["a"]
    assert {h.label for h in placement.files[0].holders} == {"n1", "n2"}


def test_discover_reports_files_index_and_config(tmp_path):
    (tmp_path / "model-1.safetensors").write_bytes(b"x" * 10)
    (tmp_path / "model.safetensors.index.json").write_text('{"weight_map": {}}')
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("not a shard")
    found = discover(str(tmp_path))
    assert found["kind"] == "dir"
    assert [(f["name"], f["size"]) for f in found["files"]] == [("model-1.safetensors", 10)]
    assert found["index"] == ("model.safetensors.index.json", '{"weight_map": {}}')
    assert found["config"] == ("config.json", "{}")
    single = discover(str(tmp_path / "model-1.safetensors"))
    assert single["kind"] == "file" and single["index"] is None
    assert shown_root(str(tmp_path / "model-1.safetensors"), "file") == str(tmp_path)
    assert discover(str(tmp_path / "absent"))["kind"] == "none"


def test_discover_skips_what_cannot_be_read_as_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "pipe.safetensors")
    (tmp_path / "dir.safetensors").mkdir()
    (tmp_path / "ok.safetensors").write_bytes(b"1")
    assert [f["name"] for f in discover(str(tmp_path))["files"]] == ["ok.safetensors"]


def test_the_path_map_puts_a_node_s_view_under_its_root():
    mapping = parse_path_map(["n1=/mnt/one", "10.0.0.2=/mnt/two"])
    assert root_for(NodeInfo("ab" * 28, "10.0.0.9", "n1"), mapping) == "/mnt/one"
    assert root_for(NodeInfo("ab" * 28, "10.0.0.2", None), mapping) == "/mnt/two"
    assert root_for(NodeInfo("ab" * 28, "10.0.0.3", None), mapping) is None
    assert node_path("/data/ckpt", "/mnt/one") == "/mnt/one/data/ckpt"
    assert node_path("ckpt", "/mnt/one") == "/mnt/one/ckpt"
    assert node_path("/data/ckpt", None) == "/data/ckpt"
    with pytest.raises(InvalidArgumentError, match="NODE=ROOT"):
        parse_path_map(["n1"])
    with pytest.raises(InvalidArgumentError, match="twice"):
        parse_path_map(["n1=/a", "n1=/b"])
