"""Discovery on a node and the choice of one reader per shard (no cluster needed)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from eagle3_inspect.cluster.discover import discover, shown_root
from eagle3_inspect.cluster.pathmap import NodeInfo, node_path, parse_path_map, root_for
from eagle3_inspect.cluster.placement import PlacedFile, place
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.synthetic.writer import write_safetensors


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


def test_discovery_sends_each_header_along_when_it_is_small(tmp_path):

    write_safetensors(tmp_path / "a.safetensors", {"x": np.zeros(4, np.float32)})
    raw = (tmp_path / "a.safetensors").read_bytes()
    (entry,) = discover(str(tmp_path), whole_cap=0)["files"]
    header_end = 8 + int.from_bytes(raw[:8], "little")
    assert header_end < len(raw) and entry["head"] == raw[:header_end]
    (whole,) = discover(str(tmp_path))["files"]  # small enough to travel whole
    assert whole["head"] == raw
    (tmp_path / "b.safetensors").write_bytes((10**9).to_bytes(8, "little") + b"{}")
    listed = discover(str(tmp_path), whole_cap=0)["files"]
    big = next(e for e in listed if e["name"] == "b.safetensors")
    assert big["head"] == (10**9).to_bytes(8, "little")  # only the prefix


def test_tasks_group_shards_with_the_same_holders_in_pieces(monkeypatch):
    from eagle3_inspect.cluster import checkpoint as cluster_checkpoint  # needs the seam

    monkeypatch.setattr(cluster_checkpoint, "TASK_BYTES", 100)
    one, two = _node(1), _node(2)
    files = [
        PlacedFile("a", 0, [one], {}),
        PlacedFile("b", 0, [one], {}),
        PlacedFile("c", 0, [two, one], {}),
    ]
    sizes = {"a1": 60, "a2": 30, "b1": 30, "c1": 10}
    tensors = {n: TensorInfo(n, "U8", (s,), s, f"/r/{n[0]}", 0) for n, s in sizes.items()}
    found = cluster_checkpoint._tasks(files, list(sizes), tensors)
    shaped = [([f.name for f in fs], names) for fs, names in found]
    assert shaped == [(["a"], [["a1", "a2"]]), (["b"], [["b1"]]), (["c"], [["c1"]])]
    monkeypatch.setattr(cluster_checkpoint, "TASK_BYTES", 1000)
    found = cluster_checkpoint._tasks(files, list(sizes), tensors)
    assert [[f.name for f in fs] for fs, _ in found] == [["a", "b"], ["c"]]


def test_an_index_or_config_that_is_not_utf8_is_reported(tmp_path):
    (tmp_path / "a.safetensors").write_bytes(b"1")
    (tmp_path / "config.json").write_bytes(b'{"x": "\xff"}')
    assert discover(str(tmp_path))["not_text"] == "config.json"
