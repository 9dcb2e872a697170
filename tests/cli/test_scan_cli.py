"""`eagle3-inspect scan`: JSON schema, exit codes, and one ST/IX finding per malformation."""

from __future__ import annotations

import json

import numpy as np
import pytest
import safetensors.numpy

from tests.conftest import raw_file

U8 = {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}


def scan_json(run_cli, path) -> tuple[int, dict]:
    code, out, err = run_cli("scan", str(path), "--json")
    assert "Traceback" not in err
    return code, json.loads(out)


def test_json_schema_and_clean_exit(tmp_path, run_cli):
    path = tmp_path / "m.safetensors"
    safetensors.numpy.save_file({"w": np.ones((2, 3), dtype=np.float32)}, str(path))
    code, data = scan_json(run_cli, path)
    assert code == 0
    assert data["schema"] == "eagle3-inspect/scan/1"
    assert data["path"] == str(path)
    assert data["files"] == [
        {
            "path": str(path),
            "format": "safetensors",
            "bytes": path.stat().st_size,
            "tensors": 1,
            "data_offset": data["files"][0]["data_offset"],
        }
    ]
    (tensor,) = data["tensors"]
    assert {k: tensor[k] for k in ("name", "dtype", "shape", "nbytes")} == {
        "name": "w",
        "dtype": "F32",
        "shape": [2, 3],
        "nbytes": 24,
    }
    assert tensor["offset"] == data["files"][0]["data_offset"]
    assert data["findings"] == []
    assert data["summary"]["params"] == 6
    assert data["summary"]["dtypes"] == {"F32": {"tensors": 1, "params": 6, "bytes": 24}}


def test_filter_glob(tmp_path, run_cli):
    path = tmp_path / "m.safetensors"
    arrays = {n: np.zeros(2, dtype=np.float32) for n in ("midlayer.a", "midlayer.b", "fc.weight")}
    safetensors.numpy.save_file(arrays, str(path))
    _, data = scan_json(run_cli, path)
    assert len(data["tensors"]) == 3
    _, out, _ = run_cli("scan", str(path), "--json", "--filter", "midlayer.*")
    assert [t["name"] for t in json.loads(out)["tensors"]] == ["midlayer.a", "midlayer.b"]


MALFORMED = {
    "ST001": lambda p: p.write_bytes(b"\x01\x02"),
    "ST002": lambda p: p.write_bytes((200_000_000).to_bytes(8, "little") + b"{}"),
    "ST003": lambda p: p.write_bytes((500).to_bytes(8, "little") + b"{}"),
    "ST004": lambda p: p.write_bytes((2).to_bytes(8, "little") + b"{\xff"),
    "ST005": lambda p: raw_file(p, '{"a": ', pad=False),
    "ST006": lambda p: raw_file(p, "[]"),
    "ST007": lambda p: raw_file(
        p, '{"a":' + json.dumps(U8) + ',"a":' + json.dumps(U8) + "}", b"\0" * 4
    ),
    "ST008": lambda p: raw_file(p, {"__metadata__": {"k": 1}}),
    "ST009": lambda p: raw_file(
        p, {"a": {"dtype": "U8", "shape": [-4], "data_offsets": [0, 4]}}, b"\0" * 4
    ),
    "ST010": lambda p: raw_file(p, {"a": {**U8, "dtype": "Q4"}}, b"\0" * 4),
    "ST011": lambda p: raw_file(p, {"a": {**U8, "shape": [2**40, 2**40]}}, b"\0" * 4),
    "ST012": lambda p: raw_file(
        p, {"a": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}}, b"\0\0"
    ),
    "ST013": lambda p: raw_file(p, {"a": {**U8, "shape": [5]}}, b"\0" * 4),
    "ST014": lambda p: raw_file(p, {"a": {**U8, "shape": [0], "data_offsets": [4, 0]}}),
    "ST015": lambda p: raw_file(p, {"a": U8}, b"\0\0"),
    "ST016": lambda p: raw_file(p, {"a": U8, "b": {**U8, "data_offsets": [2, 6]}}, b"\0" * 6),
    "ST017": lambda p: raw_file(p, {"a": U8, "b": {**U8, "data_offsets": [6, 10]}}, b"\0" * 10),
    "ST018": lambda p: raw_file(p, {"a": U8}, b"\0" * 9),
}


@pytest.mark.parametrize("code", sorted(MALFORMED))
def test_each_malformation_is_a_finding_with_exit_1(tmp_path, run_cli, code):
    path = tmp_path / "bad.safetensors"
    MALFORMED[code](path)
    exit_code, data = scan_json(run_cli, path)
    assert exit_code == 1
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert code in {f["code"] for f in errors}, errors
    finding = next(f for f in errors if f["code"] == code)
    assert finding["file"] == str(path)
    assert finding["offset"] is not None


def test_human_output_of_a_truncated_file(tmp_path, run_cli):
    path = tmp_path / "bad.safetensors"
    raw_file(path, {"a": U8}, b"\0\0")
    code, out, err = run_cli("scan", str(path))
    assert code == 1
    assert "ST015" in out and "FAIL: 1 error(s)" in out
    assert err == ""


def _shards(tmp_path, layout: dict[str, list[str]], weight_map: dict | None = None, total=None):
    derived = {}
    for file, names in layout.items():
        safetensors.numpy.save_file(
            {n: np.zeros(2, dtype=np.float32) for n in names}, str(tmp_path / file)
        )
        derived.update(dict.fromkeys(names, file))
    index = {"weight_map": weight_map if weight_map is not None else derived}
    if total is not None:
        index["metadata"] = {"total_size": total}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))


def ix_codes(run_cli, path) -> set[str]:
    _, data = scan_json(run_cli, path)
    return {f["code"] for f in data["findings"]}


def test_ix001_missing_shard(tmp_path, run_cli):
    _shards(tmp_path, {"s1.safetensors": ["a"]}, {"a": "s1.safetensors", "b": "s2.safetensors"})
    assert "IX001" in ix_codes(run_cli, tmp_path)


def test_ix002_tensor_absent_from_its_shard(tmp_path, run_cli):
    _shards(tmp_path, {"s1.safetensors": ["a"]}, {"a": "s1.safetensors", "b": "s1.safetensors"})
    assert "IX002" in ix_codes(run_cli, tmp_path)


def test_ix003_tensor_not_in_weight_map(tmp_path, run_cli):
    _shards(tmp_path, {"s1.safetensors": ["a", "b"]}, {"a": "s1.safetensors"})
    assert "IX003" in ix_codes(run_cli, tmp_path)


def test_ix004_tensor_in_two_shards(tmp_path, run_cli):
    _shards(
        tmp_path,
        {"s1.safetensors": ["a"], "s2.safetensors": ["a", "b"]},
        {"a": "s1.safetensors", "b": "s2.safetensors"},
    )
    assert "IX004" in ix_codes(run_cli, tmp_path)


def test_ix005_stray_file(tmp_path, run_cli):
    _shards(tmp_path, {"s1.safetensors": ["a"]})
    safetensors.numpy.save_file(
        {"x": np.zeros(1, dtype=np.float32)}, str(tmp_path / "old.safetensors")
    )
    assert "IX005" in ix_codes(run_cli, tmp_path)


def test_ix006_total_size(tmp_path, run_cli):
    _shards(tmp_path, {"s1.safetensors": ["a"]}, total=12345)
    assert "IX006" in ix_codes(run_cli, tmp_path)
    _shards(tmp_path, {"s1.safetensors": ["a"]}, total=8)  # the tensor-bytes convention
    assert ix_codes(run_cli, tmp_path) == set()


def test_could_not_run_is_exit_2_with_one_line(tmp_path, run_cli):
    code, out, err = run_cli("scan", str(tmp_path / "missing"))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "missing" in err and "Traceback" not in err
    code, _, err = run_cli("scan", str(tmp_path))  # empty directory
    assert code == 2 and "no .safetensors" in err
    code, _, _ = run_cli("scan", str(tmp_path), "--bogus")
    assert code == 2
